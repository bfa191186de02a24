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
 * commit) instead of morph_point. Either way rank 0 prints, after each
 * resize, the time the iteration loop lost to it:
 *   RESIZE M->N lost_s=.. window_s=.. overlapped=K iter_s=.. prepare_s=..
 *     redist_s=.. commit_s=..
 * lost = window - overlapped * iter, with window the time from the start
 * of the iteration that opened the window to the end of the commit and
 * iter the median of the 8 iterations before it; prepare, redist and commit
 * the phases of morph_last_report (redist: only what the loop waited for).
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

/* The reconfiguration point: blocking (limit 0), or overlapped, the
 * window staying open until the background transfers are done everywhere
 * or `limit` iterations have run in it. */
typedef struct point_state {
  int limit, open, k;
} point_state;

static int point(morph_ctx *m, point_state *p, morph_status *st) {    /* morph */
  if (p->limit == 0)                                                  /* morph */
    return morph_point(m, st);                                        /* morph */
  int rc = MORPH_OK, done = 0;                                        /* morph */
  if (!p->open) {                                                     /* morph */
    morph_change ch;                                                  /* morph */
    morph_window_info win;                                            /* morph */
    rc = morph_probe(m, &ch);                                         /* morph */
    if (rc == MORPH_OK && ch.pending)                                 /* morph */
      rc = morph_begin_overlap(m, &win);                              /* morph */
    if (rc != MORPH_OK || !ch.pending) {                              /* morph */
      *st = morph_get_status(m);                                      /* morph */
      return rc;                                                      /* morph */
    }                                                                 /* morph */
    p->open = 1, p->k = 0;                                            /* morph */
    /* A joiner has nothing to compute yet; a failed window nothing
     * to wait for. */
    done = win.status == MORPH_JOINING || win.new_size == win.old_size; /* morph */
  }                                                                   /* morph */
  if (!done)                                                          /* morph */
    rc = morph_progress(m, &done);                                    /* morph */
  if (rc == MORPH_OK && (done || ++p->k >= p->limit)) {               /* morph */
    p->open = 0;                                                      /* morph */
    rc = morph_commit(m, MORPH_OK, st);                               /* morph */
    rc = rc == MORPH_EABORTED ? MORPH_OK : rc; /* reported, as by morph_point */
  }                                                                   /* morph */
  *st = morph_get_status(m);                                          /* morph */
  return rc;                                                          /* morph */
}                                                                     /* morph */

/* What a resize cost the loop (see the top of the file), on rank 0. */
typedef struct loss_clock {
  double last[8];  /* durations of the last iterations outside windows */
  int n;
  double start;    /* start of the iteration that opened the window (0:
                      none open) */
  int overlapped;  /* iterations computed inside it */
  int seq;         /* last reconfiguration reported */
} loss_clock;

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median_iter(const loss_clock *c) {
  double v[8];
  int n = c->n < 8 ? c->n : 8;
  memcpy(v, c->last, sizeof(double) * (size_t)n);
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n ? v[n / 2] : 0;
}

/* Called after each iteration with its start time and whether a window was
 * open at its end. */
static void loss_tick(loss_clock *c, const morph_ctx *m, double t_start, int open) {
  double now = MPI_Wtime();
  morph_reconf_report r;
  morph_last_report(m, &r);
  /* A window's report appears when it opens; it is over once closed. */
  int resized = !open && r.seq != c->seq;
  if (!open)
    c->seq = r.seq;
  if (!resized && !open && c->start == 0) {
    c->last[c->n++ % 8] = now - t_start;
    return;
  }
  if (c->start == 0)
    c->start = t_start, c->overlapped = 0;
  if (!resized) {
    c->overlapped++;
    return;
  }
  /* The commit's own iteration computed too: count it as overlapped. */
  double iter = median_iter(c), window = now - c->start;
  int k = c->overlapped + 1;
  if (morph_rank(m) == 0 && r.outcome == MORPH_OK)
    printf("RESIZE %d->%d lost_s=%.4f window_s=%.4f overlapped=%d iter_s=%.4f prepare_s=%.4f "
           "redist_s=%.4f commit_s=%.4f\n", r.old_size, r.new_size, window - k * iter, window,
           k - 1, iter, r.t_spawn, r.t_redist, r.t_commit);
  c->start = 0, c->n = 0;
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
  point_state ps = {0};
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
  loss_clock clock = {.seq = 0};
  for (; it < a.iters; it++) {
    double t_start = MPI_Wtime();
    morph_status st;                                                  /* morph */
    app_try(m, point(m, &ps, &st), "morph_point");                    /* morph */
    if (st == MORPH_LEAVING)                                          /* morph */
      return app_finish(m, 1);                                        /* morph */
    if (!ps.open)                                                     /* morph */
      app_progress(m, &seen);                                         /* morph */
    app_hosts(&a, m, &size_seen);
    jacobi_step(morph_comm(m), A, b, x, xall, xall + n, n, morph_local_offset(m, "x"),
                morph_local_count(m, "x"));
    app_delay(&a);
    app_work(&a, morph_comm(m));
    loss_tick(&clock, m, t_start, ps.open);
  }
  if (ps.open) { /* the last iterations ran inside a window */        /* morph */
    morph_status st;                                                  /* morph */
    int crc = morph_commit(m, MORPH_OK, &st);                         /* morph */
    app_try(m, crc == MORPH_EABORTED ? MORPH_OK : crc, "morph_commit"); /* morph */
    if (st == MORPH_LEAVING)                                          /* morph */
      return app_finish(m, 1);                                        /* morph */
  }                                                                   /* morph */
  free(xall);
  int ok = !a.check || check(morph_comm(m), &a, x, morph_local_count(m, "x"));
  return app_finish(m, ok);
}
