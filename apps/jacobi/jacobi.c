/*
 * jacobi - Jacobi iteration for a dense, diagonally dominant system
 * A x = b of order n, malleable with the native morph API.
 *
 * Rows of A, b and x are block-distributed. Every iteration gathers the
 * whole x and updates the local rows; when the job changes size, morph
 * moves the rows. Each new x_i is a sum over j in the same order whatever
 * the distribution, so the result is bitwise equal to a serial run, which
 * rank 0 repeats at the end to check.
 *
 * A and b never change, so they are declared constant: with --overlap K
 * the job resizes with morph_begin_overlap (A and b move in the background
 * while up to K more iterations run at the old size; x moves at the
 * commit) instead of morph_point (app_point, apps/common/overlap.c).
 * Either way rank 0 prints, after each resize, the time the iteration loop
 * lost to it (RESIZE lines, app.h).
 *
 * Lines that exist only for malleability end with a morph comment.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"

/* Entry (i, j) of A: small off-diagonal values and a dominant diagonal, so
 * that the iteration converges. */
static double a_entry(int64_t n, int64_t i, int64_t j) {
  return i == j ? (double)n : 1.0 / (double)(1 + (i * 7 + j * 3) % 11);
}

static void init_rows(double *A, double *b, int64_t n, int64_t first, int64_t rows) {
  for (int64_t r = 0; r < rows; r++) {
    for (int64_t j = 0; j < n; j++)
      A[r * n + j] = a_entry(n, first + r, j);
    b[r] = (double)((first + r) % 13) - 6.0;
  }
}

/* xnew of rows [first, first + rows) from the whole previous x. */
static void sweep_rows(const double *A, const double *b, const double *x, double *xnew, int64_t n,
                       int64_t first, int64_t rows) {
  for (int64_t r = 0; r < rows; r++) {
    double s = b[r];
    for (int64_t j = 0; j < n; j++)
      if (j != first + r)
        s -= A[r * n + j] * x[j];
    xnew[r] = s / A[r * n + first + r];
  }
}

/* One parallel iteration: gather x, update the local rows in place. */
static void jacobi_step(MPI_Comm comm, const double *A, const double *b, double *x, double *xall,
                        double *xnew, int64_t n, int64_t first, int64_t rows) {
  int p;
  MPI_Comm_size(comm, &p);
  int *counts = malloc(2 * sizeof(int) * (size_t)p);
  if (!counts)
    MPI_Abort(comm, 2);
  app_block_counts(n, p, counts, counts + p);
  MPI_Allgatherv(x, (int)rows, MPI_DOUBLE, xall, counts, counts + p, MPI_DOUBLE, comm);
  free(counts);
  sweep_rows(A, b, xall, xnew, n, first, rows);
  if (rows > 0)
    memcpy(x, xnew, sizeof(double) * (size_t)rows);
}

/* Rank 0 runs the same iterations serially and compares bitwise. */
static int check(MPI_Comm comm, const app_args *a, const double *x, int64_t rows) {
  int64_t n;
  double *got = app_gather(x, rows, MPI_DOUBLE, comm, &n);
  int64_t bad = -1;
  if (got) {
    double *A = malloc(sizeof(double) * (size_t)(n * n + 3 * n));
    if (!A)
      MPI_Abort(comm, 2);
    double *b = A + n * n, *xs = b + n, *xnew = xs + n;
    init_rows(A, b, n, 0, n);
    memset(xs, 0, sizeof(double) * (size_t)n);
    for (int it = 0; it < a->iters; it++) {
      sweep_rows(A, b, xs, xnew, n, 0, n);
      memcpy(xs, xnew, sizeof(double) * (size_t)n);
    }
    bad = app_first_difference(got, xs, n, sizeof *xs);
    free(A);
    free(got);
  }
  int p;
  MPI_Comm_size(comm, &p);
  if (bad >= 0)
    return app_verdict(comm, 0, "jacobi n=%lld iters=%d procs=%d: x[%lld] differs from the serial run",
                       (long long)n, a->iters, p, (long long)bad);
  return app_verdict(comm, 1, "jacobi n=%lld iters=%d procs=%d: bitwise equal to the serial run",
                     (long long)n, a->iters, p);
}

int main(int argc, char **argv) {
  int thread_level; /* MULTIPLE gives morph's spawns a time limit */    /* morph */
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &thread_level);  /* morph */
  app_args a = {.size = 400, .iters = 100, .check = 1};
  app_point_state ps = {0};
  const app_option extra[] = {
      {"overlap", 'i', &ps.limit, "K: resize overlapped with up to K iterations (default 0: "
                                  "blocking morph_point)"},
      {NULL, 0, NULL, NULL}};
  int rc = app_parse(argc, argv, "Jacobi iteration on a dense system (native morph API).", &a,
                     extra);
  if (rc != 0 || a.size < 1) {
    MPI_Finalize();
    return rc > 0 ? 0 : 2;
  }
  int64_t n = a.size;
  morph_ctx *m;                                                       /* morph */
  app_try(NULL, morph_open(MPI_COMM_WORLD, NULL, &m), "morph_open");  /* morph */
  MPI_Datatype row;                                                   /* morph */
  MPI_Type_contiguous((int)n, MPI_DOUBLE, &row);                      /* morph */
  MPI_Type_commit(&row);                                              /* morph */
  double *A, *b, *x;
  int it = 0, seen = 0, size_seen = 0;
  app_try(m, morph_data_replicated(m, "it", &it, 1, MPI_INT), "it");  /* morph */
  app_try(m, morph_data_block(m, "A", (void **)&A, n, row), "A");     /* morph */
  app_try(m, morph_data_block(m, "b", (void **)&b, n, MPI_DOUBLE), "b"); /* morph */
  app_try(m, morph_data_block(m, "x", (void **)&x, n, MPI_DOUBLE), "x"); /* morph */
  app_try(m, morph_data_set_constant(m, "A", 1), "A constant");       /* morph */
  app_try(m, morph_data_set_constant(m, "b", 1), "b constant");       /* morph */
  if (morph_get_status(m) == MORPH_NEW)                               /* morph */
    init_rows(A, b, n, morph_local_offset(m, "b"), morph_local_count(m, "b"));
  double *xall = malloc(sizeof(double) * (size_t)(2 * n));
  if (!xall)
    MPI_Abort(MPI_COMM_WORLD, 2);
  app_loss_clock clock = {.seq = 0};
  for (; it < a.iters; it++) {
    double t_start = MPI_Wtime();
    morph_status st;                                                  /* morph */
    app_try(m, app_point(m, &ps, &st), "morph_point");                /* morph */
    if (st == MORPH_LEAVING)                                          /* morph */
      return app_finish(m, 1);                                        /* morph */
    if (!ps.open)                                                     /* morph */
      app_progress(m, &seen);                                         /* morph */
    app_hosts(&a, m, &size_seen);
    jacobi_step(morph_comm(m), A, b, x, xall, xall + n, n, morph_local_offset(m, "x"),
                morph_local_count(m, "x"));
    app_delay(&a);
    app_work(&a, morph_comm(m));
    app_loss_tick(&clock, m, t_start, ps.open);
  }
  morph_status st;                                                    /* morph */
  app_try(m, app_point_close(m, &ps, &st), "morph_commit");           /* morph */
  if (st == MORPH_LEAVING)                                            /* morph */
    return app_finish(m, 1);                                          /* morph */
  free(xall);
  int ok = !a.check || check(morph_comm(m), &a, x, morph_local_count(m, "x"));
  return app_finish(m, ok);
}
