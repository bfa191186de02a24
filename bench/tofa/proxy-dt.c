/*
 * proxy-dt: the data flow of NAS DT class C, "black hole" graph (85
 * processes), without the feature computations, for SimGrid's SMPI and
 * for real MPI (to check its matrix with morph prof).
 *
 * NPB DT's buildBH: 64 sources (ranks 0-63); 16 comparators (64-79),
 * comparator j reading sources 4j..4j+3; 4 comparators (80-83), reading
 * 64+4k..64+4k+3; the sink (84) reading 80-83. One process per graph node,
 * rank = node number, as DT does. A source makes its feature array
 * (--flops per byte of computation) and sends it on; a comparator receives
 * its four inputs, filters them (--flops per byte) and sends one array on;
 * the sink checks the last four. So traffic goes from rank i to 64 + i / 4
 * and upwards, far from the diagonal: the paper's figure 1b. Rank 0
 * prints "seconds <value>" (simulated time under SMPI) for --reps passes.
 *
 * usage: proxy-dt [--bytes B] [--flops F] [--reps N]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proxy.h"

#define SOURCES 64
#define FANIN 4
#define NODES 85 /* 64 + 16 + 4 + 1 */

/* The graph node a node sends to (-1 for the sink), and its first input. */
static int successor(int v)
{
  if (v < 64)
    return 64 + v / FANIN;
  if (v < 80)
    return 80 + (v - 64) / FANIN;
  return v < 84 ? 84 : -1;
}

static int first_input(int v)
{
  return v < 64 ? -1 : v < 80 ? (v - 64) * FANIN : v < 84 ? 64 + (v - 80) * FANIN : 80;
}

static void pass(int rank, long bytes, double flops_per_byte, char *buf, char *in)
{
  MPI_Request q[FANIN];
  MPI_Status st[FANIN];
  int first = first_input(rank);
  if (first >= 0) { /* the four inputs arrive in any order */
    for (int j = 0; j < FANIN; j++)
      MPI_Irecv(in + (size_t)j * bytes, (int)bytes, MPI_BYTE, first + j, 0, MPI_COMM_WORLD, &q[j]);
    MPI_Waitall(FANIN, q, st);
  }
  proxy_compute(flops_per_byte * (double)bytes * (first >= 0 ? FANIN : 1));
  int next = successor(rank);
  if (next >= 0)
    MPI_Send(buf, (int)bytes, MPI_BYTE, next, 0, MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
  long bytes = 8 << 20;
  double flops = 2.0;
  int reps = 1, rank, size;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--bytes"))
      bytes = atol(argv[i + 1]);
    else if (!strcmp(argv[i], "--flops"))
      flops = atof(argv[i + 1]);
    else if (!strcmp(argv[i], "--reps"))
      reps = atoi(argv[i + 1]);
  }
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != NODES || bytes < 1 || reps < 1) {
    if (rank == 0)
      fprintf(stderr, "proxy-dt: needs %d processes (has %d) and positive sizes\n", NODES, size);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  char *buf = proxy_buffer((size_t)bytes), *in = proxy_buffer((size_t)bytes * FANIN);
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  for (int r = 0; r < reps; r++)
    pass(rank, bytes, flops, buf, in);
  double check = rank, sum = 0; /* DT's verification: one value to the first rank */
  MPI_Reduce(&check, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  double t = MPI_Wtime() - t0;
  if (rank == 0)
    printf("proxy-dt: %d processes, %d pass(es) of %ld-byte arrays in %.6f s\nseconds %.6f\n",
           size, reps, bytes, t, t);
  proxy_free(buf);
  proxy_free(in);
  MPI_Finalize();
  return 0;
}
