/*
 * bench/lang point.c: what one morph_point() costs a C program, measured
 * exactly as point.f90 and point.py measure it from Fortran and Python
 * (bench/lang/run.sh runs the three alternately and compares).
 *
 *   bench-lang-point [CALLS]
 *
 * One block registration of 1000 doubles (a program holds data; the
 * Fortran and Python layers look at their registrations after each point).
 * Then CALLS points per batch with no inhibitor (rank 0 looks for a
 * decision and broadcasts the answer), and 10 x CALLS per batch under an
 * inhibitor of 10^9 iterations (the path of nearly every point of a real
 * job), 21 batches each; rank 0 prints the medians per call:
 *   POINT lang=c check_ns=.. uninhibited_ns=..
 */
#include <stdio.h>
#include <stdlib.h>

#include "morph.h"

static int cmp(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Median nanoseconds per point over 21 batches of `calls`. */
static double per_point(morph_ctx *m, int calls)
{
  double ns[21];
  morph_status st;
  for (int b = 0; b < 21; b++) {
    MPI_Barrier(morph_comm(m));
    double t0 = MPI_Wtime();
    for (int i = 0; i < calls; i++)
      morph_point(m, &st);
    ns[b] = (MPI_Wtime() - t0) * 1e9 / calls;
  }
  qsort(ns, 21, sizeof *ns, cmp);
  return ns[10];
}

int main(int argc, char **argv)
{
  int provided, calls = argc > 1 ? atoi(argv[1]) : 2000;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  morph_ctx *m;
  double *rows;
  morph_status st;
  if (morph_open(MPI_COMM_WORLD, NULL, &m) != MORPH_OK)
    return 1;
  if (morph_data_block(m, "rows", (void **)&rows, 1000, MPI_DOUBLE) != MORPH_OK)
    return morph_finalize(m, 1);
  double unin = per_point(m, calls);
  morph_set_inhibitors(m, 0, 1000000000);
  morph_point(m, &st); /* the check that computes the skip count */
  double inh = per_point(m, 10 * calls);
  if (morph_rank(m) == 0)
    printf("POINT lang=c check_ns=%.2f uninhibited_ns=%.1f\n", inh, unin);
  return morph_finalize(m, 0);
}
