/*
 * prof-calls: the cost of the interception itself, in CPU time per call
 * (robust to a loaded machine, unlike wall time). One process sends 8
 * bytes to itself (MPI_Sendrecv) and reduces one int (MPI_Allreduce), N
 * times each, and prints the mean CPU time of each call. Run it with and
 * without libmorph-prof (LD_PRELOAD, MORPH_PROF_DIR): the difference is
 * what intercepting and counting costs a call.
 *
 * usage: prof-calls [N]   (default 1000000), on one process
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double cpu(void)
{
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
  int n = argc > 1 ? atoi(argv[1]) : 1000000, x = 1, y;
  double a = 0, b;
  MPI_Init(&argc, &argv);
  double t0 = cpu();
  for (int i = 0; i < n; i++)
    MPI_Sendrecv(&a, 1, MPI_DOUBLE, 0, 0, &b, 1, MPI_DOUBLE, 0, 0, MPI_COMM_SELF, MPI_STATUS_IGNORE);
  double t1 = cpu();
  for (int i = 0; i < n; i++)
    MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  double t2 = cpu();
  printf("sendrecv_ns %.1f allreduce_ns %.1f\n", (t1 - t0) / n * 1e9, (t2 - t1) / n * 1e9);
  MPI_Finalize();
  return 0;
}
