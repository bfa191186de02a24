/*
 * bench-point: what the reconfiguration point costs an iterative code.
 *
 *   bench-point [--n N] [--block K] [--reps R] [--calls C]
 *
 * A Jacobi sweep for the 2-D Poisson equation on an N x N grid, rows in
 * blocks over the processes (registered with morph), halo rows exchanged
 * with the neighbours and the residual summed with MPI_Allreduce every
 * iteration, as a real solver does. Blocks of K iterations are timed on
 * rank 0 between barriers, alternately with morph_point() called every
 * iteration and without it, R times each (the order alternates too, so that
 * a drift of the machine's load hits both variants alike).
 *
 * Then morph_point() alone: C calls per batch with no inhibitor (rank 0
 * looks for a decision, MPI_Bcast of the answer), and C calls per batch
 * under an inhibitor of 10^9 iterations (the skip path), 21 batches each.
 *
 * Rank 0 prints
 *   POINT iter_ms=.. check_ms=.. nocheck_ms=.. check_vs_nocheck=..
 *         ratio_of_medians=.. check_ns=.. uninhibited_ns=.. residual=..
 * check_vs_nocheck is the median over the adjacent pairs of blocks of
 * (time with the point / time without); check_ms and nocheck_ms are the
 * medians per iteration of each variant; the ns are medians over batches.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "morph.h"

typedef struct grid {
  int n;           /* columns (and global rows) */
  int64_t rows;    /* local rows */
  double *u, *v;   /* rows + 2 halo rows each */
  double *tokens;  /* the registration that splits the rows (see setup) */
  double h2;
} grid;

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void halo(grid *g, MPI_Comm comm)
{
  int me, p;
  MPI_Comm_rank(comm, &me);
  MPI_Comm_size(comm, &p);
  int up = me > 0 ? me - 1 : MPI_PROC_NULL, down = me < p - 1 ? me + 1 : MPI_PROC_NULL;
  int n = g->n;
  double *u = g->u;
  MPI_Sendrecv(u + n, n, MPI_DOUBLE, up, 1, u + (g->rows + 1) * n, n, MPI_DOUBLE, down, 1, comm,
               MPI_STATUS_IGNORE);
  MPI_Sendrecv(u + g->rows * n, n, MPI_DOUBLE, down, 2, u, n, MPI_DOUBLE, up, 2, comm,
               MPI_STATUS_IGNORE);
}

/* One Jacobi sweep for -laplace(u) = 1 with u = 0 on the boundary; returns
 * the global sum of squared updates. */
static double sweep(grid *g, MPI_Comm comm)
{
  halo(g, comm);
  int n = g->n;
  double local = 0;
  for (int64_t r = 1; r <= g->rows; r++) {
    const double *up = g->u + (r - 1) * n, *mid = g->u + r * n, *dn = g->u + (r + 1) * n;
    double *out = g->v + r * n;
    for (int j = 1; j < n - 1; j++) {
      double x = 0.25 * (up[j] + dn[j] + mid[j - 1] + mid[j + 1] + g->h2);
      double d = x - mid[j];
      local += d * d;
      out[j] = x;
    }
  }
  double *t = g->u;
  g->u = g->v, g->v = t;
  double all;
  MPI_Allreduce(&local, &all, 1, MPI_DOUBLE, MPI_SUM, comm);
  return all;
}

/* Seconds of k iterations, with or without the point, timed on rank 0. */
static double block(grid *g, morph_ctx *m, int k, int check, double *res)
{
  MPI_Comm comm = morph_comm(m);
  MPI_Barrier(comm);
  double t0 = MPI_Wtime();
  morph_status st;
  for (int i = 0; i < k; i++) {
    if (check && morph_point(m, &st) != MORPH_OK)
      fprintf(stderr, "morph_point: %s\n", morph_errmsg(m));
    *res = sweep(g, comm);
  }
  MPI_Barrier(comm);
  return MPI_Wtime() - t0;
}

/* Median nanoseconds of one morph_point() over `batches` batches. */
static double point_ns(morph_ctx *m, int calls, int batches)
{
  double *ns = malloc((size_t)batches * sizeof *ns);
  morph_status st;
  for (int b = 0; b < batches; b++) {
    MPI_Barrier(morph_comm(m));
    double t0 = MPI_Wtime();
    for (int i = 0; i < calls; i++)
      morph_point(m, &st);
    ns[b] = (MPI_Wtime() - t0) * 1e9 / calls;
  }
  double med = median(ns, batches);
  free(ns);
  return med;
}

typedef struct params {
  int n, k, reps, calls;
} params;

static void parse(params *p, int argc, char **argv)
{
  static const struct option opts[] = {{"n", required_argument, 0, 'n'},
                                       {"block", required_argument, 0, 'k'},
                                       {"reps", required_argument, 0, 'r'},
                                       {"calls", required_argument, 0, 'c'},
                                       {0, 0, 0, 0}};
  *p = (params){1200, 50, 10, 20000};
  for (int c; (c = getopt_long(argc, argv, "n:k:r:c:", opts, NULL)) != -1;) {
    if (c == 'n')
      p->n = atoi(optarg);
    else if (c == 'k')
      p->k = atoi(optarg);
    else if (c == 'r')
      p->reps = atoi(optarg);
    else if (c == 'c')
      p->calls = atoi(optarg);
  }
}

/* The timed blocks: check / no check alternately, R of each; ratio[r] is
 * the ratio within the r-th adjacent pair, which a slow drift of the load
 * affects least. */
static void compare(grid *g, morph_ctx *m, const params *p, double *with, double *without,
                    double *ratio, double *res)
{
  block(g, m, p->k, 0, res); /* warm-up: caches, page faults, MPI connections */
  for (int r = 0; r < p->reps; r++) {
    int first = r % 2;
    double t1 = block(g, m, p->k, first, res), t2 = block(g, m, p->k, !first, res);
    with[r] = (first ? t1 : t2) / p->k;
    without[r] = (first ? t2 : t1) / p->k;
    ratio[r] = with[r] / without[r];
  }
}

/* The rows are split by a block registration of one element per grid row,
 * so that the context holds data as a real code's would and the split is
 * morph's; no reconfiguration happens here, so the grid itself need not
 * follow the processes. */
static int setup(grid *g, morph_ctx *m, int n)
{
  g->n = n;
  g->h2 = 1.0 / ((double)(n - 1) * (n - 1));
  if (morph_data_block(m, "rows", (void **)&g->tokens, (int64_t)n, MPI_DOUBLE) != MORPH_OK)
    return 1;
  g->rows = morph_local_count(m, "rows");
  g->u = calloc((size_t)(g->rows + 2) * (size_t)n, sizeof *g->u);
  g->v = calloc((size_t)(g->rows + 2) * (size_t)n, sizeof *g->v);
  return !g->u || !g->v;
}

int main(int argc, char **argv)
{
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  params p;
  parse(&p, argc, argv);
  morph_ctx *m;
  if (morph_open(MPI_COMM_WORLD, NULL, &m) != MORPH_OK) {
    MPI_Finalize();
    return 1;
  }
  grid g;
  if (setup(&g, m, p.n)) {
    fprintf(stderr, "bench-point: setup failed: %s\n", morph_errmsg(m));
    return morph_finalize(m, 1);
  }
  double *with = malloc(3 * (size_t)p.reps * sizeof *with), res = 0;
  double *without = with + p.reps, *ratio = with + 2 * p.reps;
  compare(&g, m, &p, with, without, ratio, &res);
  double wm = median(with, p.reps), nm = median(without, p.reps), rm = median(ratio, p.reps);
  double unin = point_ns(m, p.calls, 21);
  morph_set_inhibitors(m, 0, 1000000000);
  morph_status st;
  morph_point(m, &st); /* the check that computes the skip count */
  double inh = point_ns(m, p.calls * 10, 21);
  if (morph_rank(m) == 0)
    printf("POINT procs=%d n=%d block=%d reps=%d iter_ms=%.4f check_ms=%.4f nocheck_ms=%.4f "
           "check_vs_nocheck=%.4f ratio_of_medians=%.4f check_ns=%.2f uninhibited_ns=%.1f "
           "residual=%.3e\n", morph_size(m), p.n, p.k, p.reps, nm * 1e3, wm * 1e3, nm * 1e3, rm,
           wm / nm, inh, unin, sqrt(res));
  free(with);
  free(g.u);
  free(g.v); /* g.tokens belongs to morph */
  return morph_finalize(m, 0);
}
