/* The baseline of allreduce_bench: plain MPI_Allreduce (sum of float32, in
 * place) over MPI_COMM_WORLD, 4 KiB to 256 MiB, one buffer reused.
 *   mpirun -np R mpi_allreduce [MAX_BYTES]
 * Rank 0 prints "bytes seconds_per_allreduce" per size. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench/cluster/sizes.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  long long max = argc > 1 ? atoll(argv[1]) : kMaxBytes;
  float* buf = calloc((size_t)max / sizeof(float) + 1, sizeof(float));
  if (!buf) MPI_Abort(MPI_COMM_WORLD, 1);
  for (long long bytes = kMinBytes; bytes <= max; bytes *= kStep) {
    int n = (int)(bytes / (long long)sizeof(float)), reps = bench_reps(bytes);
    MPI_Allreduce(MPI_IN_PLACE, buf, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD); /* warm */
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < reps; i++)
      MPI_Allreduce(MPI_IN_PLACE, buf, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    double dt = (MPI_Wtime() - t0) / reps;
    if (rank == 0) printf("%lld %.9f\n", bytes, dt);
  }
  free(buf);
  MPI_Finalize();
  return 0;
}
