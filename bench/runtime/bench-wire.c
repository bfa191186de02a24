/*
 * bench-wire: MPI point-to-point bandwidth between two processes, the
 * reference bench/cluster-wire.sh compares morph's cross-host
 * redistribution with. Plain MPI, no libmorph.
 *
 *   mpirun -n 2 --host A:1,B:1 bench-wire [--mib M] [--reps R] [--cold]
 *
 * Rank 0 sends M MiB (default 64) to rank 1 in one MPI_Send, R times
 * (default 10) after one untimed warm-up message; rank 1 answers with an
 * empty message once it received the last one, so the time counts every
 * byte delivered. --cold: no warm-up, so the time includes Open MPI
 * opening the connection at the first message (as in a redistribution
 * towards processes just spawned). Rank 0 prints
 *   WIRE mib=.. reps=.. cold=0|1 seconds=.. mib_s=.. hosts=A,B
 */
#include <getopt.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void transfer(char *buf, int count, int reps, int rank)
{
  for (int r = 0; r < reps; r++) {
    if (rank == 0)
      MPI_Send(buf, count, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
    else
      MPI_Recv(buf, count, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  if (rank == 0)
    MPI_Recv(NULL, 0, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  else
    MPI_Send(NULL, 0, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
  static const struct option opts[] = {
      {"mib", required_argument, 0, 'm'}, {"reps", required_argument, 0, 'r'},
      {"cold", no_argument, 0, 'c'}, {0, 0, 0, 0}};
  int mib = 64, reps = 10, cold = 0, rank, size;
  MPI_Init(&argc, &argv);
  for (int c; (c = getopt_long(argc, argv, "m:r:c", opts, NULL)) != -1;) {
    if (c == 'c')
      cold = 1;
    else if (c == 'm')
      mib = atoi(optarg);
    else if (c == 'r')
      reps = atoi(optarg);
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2 || mib < 1 || mib > 1024 || reps < 1) {
    if (rank == 0)
      fprintf(stderr, "bench-wire: 2 processes, --mib 1..1024, --reps >= 1\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int count = mib << 20;
  char *buf = malloc((size_t)count);
  if (!buf)
    MPI_Abort(MPI_COMM_WORLD, 1);
  memset(buf, rank + 1, (size_t)count); /* pages touched: no first-touch cost in the timing */
  if (!cold)
    transfer(buf, count, 1, rank); /* warm-up: connections set up */
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  transfer(buf, count, reps, rank);
  double t = MPI_Wtime() - t0;
  char host[MPI_MAX_PROCESSOR_NAME], hosts[2][MPI_MAX_PROCESSOR_NAME];
  int len;
  MPI_Get_processor_name(host, &len);
  MPI_Gather(host, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, hosts, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0,
             MPI_COMM_WORLD);
  if (rank == 0)
    printf("WIRE mib=%d reps=%d cold=%d seconds=%.6f mib_s=%.1f hosts=%s,%s\n", mib, reps, cold, t,
           (double)mib * reps / t, hosts[0], hosts[1]);
  free(buf);
  MPI_Finalize();
  return 0;
}
