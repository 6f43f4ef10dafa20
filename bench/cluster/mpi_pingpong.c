/* The baseline of bench/cluster/latency.sh: plain MPI ping-pong of 16 bytes
 * (4 floats) between ranks 0 and 1, blocking MPI_Send/MPI_Recv. Rank 0
 * prints the round trip.
 *
 *   mpirun -np 2 mpi_pingpong [STEPS]     (default 20000, after 2000 warm) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int cmp(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int steps = argc > 1 ? atoi(argv[1]) : 20000, warm = 2000, rank = 0;
  if (steps <= 0) steps = 20000;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  float v[4] = {1, 2, 3, 4};
  double* t = calloc((size_t)steps, sizeof *t);
  if (!t) MPI_Abort(MPI_COMM_WORLD, 1);
  for (int i = 0; i < warm + steps; i++) {
    double t0 = MPI_Wtime();
    if (rank == 0) {
      MPI_Send(v, 4, MPI_FLOAT, 1, 0, MPI_COMM_WORLD);
      MPI_Recv(v, 4, MPI_FLOAT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
      MPI_Recv(v, 4, MPI_FLOAT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(v, 4, MPI_FLOAT, 0, 0, MPI_COMM_WORLD);
    }
    if (i >= warm) t[i - warm] = (MPI_Wtime() - t0) * 1e6;
  }
  if (rank == 0) {
    qsort(t, (size_t)steps, sizeof *t, cmp);
    printf("MPI  round trip of 4 floats: median %.2f us, min %.2f us (%d steps)\n", t[steps / 2],
           t[0], steps);
  }
  free(t);
  MPI_Finalize();
  return 0;
}
