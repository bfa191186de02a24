/*
 * crash-traffic: rank 1 sends known amounts, then kills itself with
 * SIGKILL in the middle of the run (no exit handler, no MPI_Finalize).
 * `morph prof` must still write a readable matrix whose row 1 holds what
 * rank 1 sent before it died: 1000 + 500 bytes to rank 2.
 */
#include <mpi.h>
#include <signal.h>
#include <unistd.h>

int main(int argc, char **argv)
{
  char buf[1000] = {0};
  int r, p;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  MPI_Send(buf, 1000, MPI_CHAR, (r + 1) % p, 0, MPI_COMM_WORLD);
  MPI_Recv(buf, 1000, MPI_CHAR, (r + p - 1) % p, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  if (r == 1) {
    MPI_Send(buf, 500, MPI_CHAR, 2, 1, MPI_COMM_WORLD);
    raise(SIGKILL);
  }
  if (r == 2)
    MPI_Recv(buf, 500, MPI_CHAR, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Barrier(MPI_COMM_WORLD); /* never completes: rank 1 is gone */
  MPI_Finalize();
  return 0;
}
