/* The baseline of allreduce_bench: plain MPI_Allreduce (sum of float32)
 * over MPI_COMM_WORLD, 4 KiB to 256 MiB, its buffers reused.
 *   mpirun -np R mpi_allreduce [MAX_BYTES] [in|out|iout]
 * in (the default): in place (MPI_IN_PLACE); out: from a send buffer into
 * a receive buffer, as grt's transport sums (MPI_Iallreduce out of place:
 * Open MPI's non-blocking in-place sum is the slower one); iout: that
 * non-blocking call itself, polled with MPI_Test as grt's run polls it.
 * Rank 0 prints "bytes seconds_per_allreduce" per size, the fastest of 3
 * rounds as allreduce_bench takes. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/cluster/sizes.h"

static void all_reduce(const void* src, float* buf, int n, int nonblocking) {
  if (!nonblocking) {
    MPI_Allreduce(src, buf, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    return;
  }
  MPI_Request req;
  int done = 0;
  MPI_Iallreduce(src, buf, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &req);
  while (!done) MPI_Test(&req, &done, MPI_STATUS_IGNORE);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  long long max = argc > 1 ? atoll(argv[1]) : kMaxBytes;
  int nonblocking = argc > 2 && !strcmp(argv[2], "iout");
  int out_of_place = nonblocking || (argc > 2 && !strcmp(argv[2], "out"));
  float* buf = calloc((size_t)max / sizeof(float) + 1, sizeof(float));
  float* send = out_of_place ? calloc((size_t)max / sizeof(float) + 1, sizeof(float)) : NULL;
  if (!buf || (out_of_place && !send)) MPI_Abort(MPI_COMM_WORLD, 1);
  const void* src = out_of_place ? (const void*)send : MPI_IN_PLACE;
  for (long long bytes = kMinBytes; bytes <= max; bytes *= kStep) {
    int n = (int)(bytes / (long long)sizeof(float)), reps = bench_reps(bytes);
    all_reduce(src, buf, n, nonblocking); /* warm */
    double best = 0;
    for (int round = 0; round < 3; round++) {
      MPI_Barrier(MPI_COMM_WORLD);
      double t0 = MPI_Wtime();
      for (int i = 0; i < reps; i++) all_reduce(src, buf, n, nonblocking);
      double dt = (MPI_Wtime() - t0) / reps;
      if (round == 0 || dt < best) best = dt;
    }
    if (rank == 0) printf("%lld %.9f\n", bytes, best);
  }
  free(send);
  free(buf);
  MPI_Finalize();
  return 0;
}
