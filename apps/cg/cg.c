/*
 * cg - conjugate gradient for the 2-D Poisson problem (5-point Laplacian on
 * a g x g grid, n = g*g unknowns, right-hand side all ones), malleable with
 * the native morph API. The matrix is never stored: each row is generated
 * when it is applied.
 *
 * x, r and p are block-distributed; rr = r.r is replicated. Dot products
 * are sums over processes, so their rounding depends on the number of
 * processes and the result is not bitwise reproducible. The check compares
 * with a serial run on rank 0 within a tolerance: both runs stop at
 * relative residual --tol (default 1e-12); the solutions may differ by at
 * most 1e-12 relative (measured: 2e-15 to 7e-15 on 1 to 7 processes) and
 * the true residual |b - Ax| / |b| of the result must be at most 10 x tol,
 * or twice the serial run's when that is larger: the residual CG updates
 * drifts from the true one, so on large grids even the serial run cannot
 * reach 10 x tol (side 552: 9.2e-11 on 1 process and on 3; the soak's
 * long jobs use such sides).
 *
 * Lines that exist only for malleability end with a morph comment.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"

#define CHECK_DIFF 1e-12

/* (A v)_i for rows [first, first + rows) of the 5-point Laplacian; v is
 * the whole vector. */
static void laplace_rows(int64_t g, const double *v, double *out, int64_t first, int64_t rows) {
  for (int64_t k = 0; k < rows; k++) {
    int64_t i = first + k, row = i / g, col = i % g;
    double s = 4.0 * v[i];
    if (col > 0)
      s -= v[i - 1];
    if (col < g - 1)
      s -= v[i + 1];
    if (row > 0)
      s -= v[i - g];
    if (row < g - 1)
      s -= v[i + g];
    out[k] = s;
  }
}

static double dot(const double *a, const double *b, int64_t n) {
  double s = 0;
  for (int64_t i = 0; i < n; i++)
    s += a[i] * b[i];
  return s;
}

/* The local part of the solver's state. */
typedef struct cg_vecs {
  double *x, *r, *p; /* local parts, registered */
  double *pall, *ap; /* scratch: whole p, local A p */
  int64_t first, rows;
} cg_vecs;

/* x += alpha p, r -= alpha Ap, returns the local r.r. */
static double update_xr(cg_vecs *v, double alpha) {
  for (int64_t i = 0; i < v->rows; i++) {
    v->x[i] += alpha * v->p[i];
    v->r[i] -= alpha * v->ap[i];
  }
  return dot(v->r, v->r, v->rows);
}

static void update_p(cg_vecs *v, double beta) {
  for (int64_t i = 0; i < v->rows; i++)
    v->p[i] = v->r[i] + beta * v->p[i];
}

/* Gathers p into pall (block rule of morph_data_block). */
static void gather_p(MPI_Comm comm, cg_vecs *v, int64_t n) {
  int np;
  MPI_Comm_size(comm, &np);
  int *counts = malloc(2 * sizeof(int) * (size_t)np);
  if (!counts)
    MPI_Abort(comm, 2);
  app_block_counts(n, np, counts, counts + np);
  MPI_Allgatherv(v->p, (int)v->rows, MPI_DOUBLE, v->pall, counts, counts + np, MPI_DOUBLE, comm);
  free(counts);
}

/* One CG iteration; *rr is r.r before and after. */
static void cg_step(MPI_Comm comm, cg_vecs *v, int64_t g, double *rr) {
  gather_p(comm, v, g * g);
  laplace_rows(g, v->pall, v->ap, v->first, v->rows);
  double pap = dot(v->p, v->ap, v->rows), rr_new;
  MPI_Allreduce(MPI_IN_PLACE, &pap, 1, MPI_DOUBLE, MPI_SUM, comm);
  rr_new = update_xr(v, *rr / pap);
  MPI_Allreduce(MPI_IN_PLACE, &rr_new, 1, MPI_DOUBLE, MPI_SUM, comm);
  update_p(v, rr_new / *rr);
  *rr = rr_new;
}

/* r = p = b = ones, x = 0; returns the local r.r. */
static double cg_init(cg_vecs *v) {
  for (int64_t i = 0; i < v->rows; i++) {
    v->x[i] = 0;
    v->r[i] = v->p[i] = 1.0;
  }
  return (double)v->rows;
}

/* The same solver on one process; returns x (malloc'ed). */
static double *cg_serial(int64_t g, int iters, double tol) {
  int64_t n = g * g;
  double *mem = malloc(sizeof(double) * (size_t)(5 * n));
  if (!mem)
    return NULL;
  cg_vecs v = {mem, mem + n, mem + 2 * n, mem + 2 * n, mem + 3 * n, 0, n};
  double rr = cg_init(&v);
  for (int it = 0; it < iters && sqrt(rr) > tol * sqrt((double)n); it++) {
    laplace_rows(g, v.p, v.ap, 0, n);
    double rr_new = update_xr(&v, rr / dot(v.p, v.ap, n));
    update_p(&v, rr_new / rr);
    rr = rr_new;
  }
  return mem;
}

/* ||b - A x|| / ||b|| for the whole x (b = ones). */
static double true_residual(int64_t g, const double *x) {
  int64_t n = g * g;
  double *ax = malloc(sizeof(double) * (size_t)n), s = 0;
  if (!ax)
    return INFINITY;
  laplace_rows(g, x, ax, 0, n);
  for (int64_t i = 0; i < n; i++)
    s += (1.0 - ax[i]) * (1.0 - ax[i]);
  free(ax);
  return sqrt(s / (double)n);
}

static int check(MPI_Comm comm, const app_args *a, double tol, const cg_vecs *v, int it) {
  int64_t n;
  double *x = app_gather(v->x, v->rows, MPI_DOUBLE, comm, &n), diff = 0, res = 0;
  double res_max = 10 * tol;
  if (x) {
    double *xs = cg_serial(a->size, a->iters, tol);
    diff = xs ? app_rel_diff(x, xs, n) : INFINITY;
    res = true_residual(a->size, x);
    if (xs)
      res_max = fmax(res_max, 2 * true_residual(a->size, xs));
    free(xs);
    free(x);
  }
  int np, ok = diff <= CHECK_DIFF && res <= res_max;
  MPI_Comm_size(comm, &np);
  return app_verdict(comm, ok, "cg n=%lld its=%d procs=%d: |x-x_serial|/|x_serial|=%.1e (max %.0e), "
                     "|b-Ax|/|b|=%.1e (max %.1e)", (long long)n, it, np, diff, CHECK_DIFF, res,
                     res_max);
}

int main(int argc, char **argv) {
  int thread_level; /* MULTIPLE gives morph's spawns a time limit */    /* morph */
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &thread_level);  /* morph */
  app_args a = {.size = 48, .iters = 500, .check = 1};
  double tol = 1e-12;
  const app_option extra[] = {{"tol", 'd', &tol, "stop at this relative residual (1e-12)"}, {0}};
  int rc = app_parse(argc, argv, "Conjugate gradient, 2-D Poisson (native morph API); "
                     "--size is the grid side.", &a, extra);
  if (rc != 0 || a.size < 1) {
    MPI_Finalize();
    return rc > 0 ? 0 : 2;
  }
  int64_t g = a.size, n = g * g;
  morph_ctx *m;                                                       /* morph */
  app_try(NULL, morph_open(MPI_COMM_WORLD, NULL, &m), "morph_open");  /* morph */
  cg_vecs v;
  int it = 0, seen = 0, size_seen = 0;
  double rr = 0;
  app_try(m, morph_data_replicated(m, "it", &it, 1, MPI_INT), "it");  /* morph */
  app_try(m, morph_data_replicated(m, "rr", &rr, 1, MPI_DOUBLE), "rr"); /* morph */
  app_try(m, morph_data_block(m, "x", (void **)&v.x, n, MPI_DOUBLE), "x"); /* morph */
  app_try(m, morph_data_block(m, "r", (void **)&v.r, n, MPI_DOUBLE), "r"); /* morph */
  app_try(m, morph_data_block(m, "p", (void **)&v.p, n, MPI_DOUBLE), "p"); /* morph */
  v.pall = malloc(sizeof(double) * (size_t)(2 * n));
  v.ap = v.pall + n;
  if (!v.pall)
    MPI_Abort(MPI_COMM_WORLD, 2);
  v.first = morph_local_offset(m, "x");
  v.rows = morph_local_count(m, "x");
  if (morph_get_status(m) == MORPH_NEW) {                             /* morph */
    rr = cg_init(&v);
    MPI_Allreduce(MPI_IN_PLACE, &rr, 1, MPI_DOUBLE, MPI_SUM, morph_comm(m));
  }                                                                   /* morph */
  for (; it < a.iters; it++) {
    morph_status st;                                                  /* morph */
    app_try(m, morph_point(m, &st), "morph_point");                   /* morph */
    if (st == MORPH_LEAVING)                                          /* morph */
      return app_finish(m, 1);                                        /* morph */
    app_progress(m, &seen);                                           /* morph */
    app_hosts(&a, m, &size_seen);
    v.first = morph_local_offset(m, "x");                             /* morph */
    v.rows = morph_local_count(m, "x");                               /* morph */
    if (sqrt(rr) <= tol * sqrt((double)n))
      break;
    cg_step(morph_comm(m), &v, g, &rr);
    app_delay(&a);
    app_work(&a, morph_comm(m));
  }
  free(v.pall);
  int ok = !a.check || check(morph_comm(m), &a, tol, &v, it);
  return app_finish(m, ok);
}
