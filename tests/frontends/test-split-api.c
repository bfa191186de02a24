/*
 * test-split-api: morph_probe / morph_begin / morph_commit used directly,
 * with data the program moves itself inside the window beside data morph
 * moves. `x` (global index i holds i + 0.5 * iteration) is registered as a
 * block array; `y` holds the same values but is the program's own, moved
 * in the window with one MPI_Alltoallv over info.comm (live). Every
 * iteration every process checks both. Under relaunch there is no one to
 * send to inside the window: y is rebuilt from x after the restart, as an
 * application would reload its own checkpoint.
 *
 *   test-split-api N ITERS [DELAY_MS]  (N elements, ITERS iterations of
 *   DELAY_MS each, default 20, so that scheduled decisions find the job)
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "app.h"
#include "morph.h"

static int64_t first_of(int64_t n, int p, int r) { return r * n / p; }
static int64_t len_of(int64_t n, int p, int r) { return r < 0 || r >= p ? 0 : first_of(n, p, r + 1) - first_of(n, p, r); }

static void fail(morph_ctx *m, const char *what, int rc)
{
  fprintf(stderr, "test-split-api: %s: %s (%s)\n", what, morph_strerror(rc), morph_errmsg(m));
  MPI_Abort(MPI_COMM_WORLD, 2);
}

/* Old block layout over `from` to new over `to`, for rank r of info.comm. */
static double *move_y(const double *y, int64_t n, const morph_window_info *in)
{
  int np, r;
  MPI_Comm_size(in->comm, &np);
  MPI_Comm_rank(in->comm, &r);
  int *v = calloc(4 * (size_t)np, sizeof *v);
  int64_t from = in->old_size, to = in->new_size;
  int64_t of = first_of(n, (int)from, r), ol = len_of(n, (int)from, r);
  int64_t nf = first_of(n, (int)to, r), nl = len_of(n, (int)to, r);
  for (int p = 0; p < np; p++) {
    int64_t pf = first_of(n, (int)to, p), pl = len_of(n, (int)to, p);
    int64_t lo = of > pf ? of : pf, hi = of + ol < pf + pl ? of + ol : pf + pl;
    v[p] = hi > lo ? (int)(hi - lo) : 0, v[np + p] = hi > lo ? (int)(lo - of) : 0;
    int64_t qf = first_of(n, (int)from, p), ql = len_of(n, (int)from, p);
    lo = qf > nf ? qf : nf, hi = qf + ql < nf + nl ? qf + ql : nf + nl;
    v[2 * np + p] = hi > lo ? (int)(hi - lo) : 0, v[3 * np + p] = hi > lo ? (int)(lo - nf) : 0;
  }
  double *ny = malloc(sizeof(double) * (size_t)(nl + 1));
  MPI_Alltoallv(y, v, v + np, MPI_DOUBLE, ny, v + 2 * np, v + 3 * np, MPI_DOUBLE, in->comm);
  free(v);
  return ny;
}

static int check(morph_ctx *m, const double *x, const double *y, int64_t n, int it)
{
  int64_t f = morph_local_offset(m, "x"), l = morph_local_count(m, "x");
  if (l != len_of(n, morph_size(m), morph_rank(m)))
    return 0;
  for (int64_t k = 0; k < l; k++)
    if (x[k] != (double)(f + k) + 0.5 * it || y[k] != x[k])
      return 0;
  return 1;
}

int main(int argc, char **argv)
{
  int provided, it = 0, ok = 1, changes = 0, seen = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  int64_t n = argc > 1 ? atoll(argv[1]) : 1001;
  int iters = argc > 2 ? atoi(argv[2]) : 50;
  int delay_ms = argc > 3 ? atoi(argv[3]) : 20;
  morph_ctx *m;
  double *x, *y = NULL;
  if (morph_open(MPI_COMM_WORLD, NULL, &m) != MORPH_OK)
    return 2;
  morph_data_replicated(m, "it", &it, 1, MPI_INT);
  morph_data_block(m, "x", (void **)&x, n, MPI_DOUBLE);
  int64_t l = morph_local_count(m, "x"), f = morph_local_offset(m, "x");
  if (morph_get_status(m) == MORPH_NEW)
    for (int64_t k = 0; k < l; k++)
      x[k] = (double)(f + k);
  y = malloc(sizeof(double) * (size_t)(l + 1));
  for (int64_t k = 0; k < l; k++)
    y[k] = x[k];
  morph_status st = morph_get_status(m);
  for (; it < iters; it++) {
    morph_change ch;
    int rc = morph_probe(m, &ch);
    if (rc != MORPH_OK)
      fail(m, "morph_probe", rc);
    if (morph_get_status(m) == MORPH_JOINING && !ch.pending) { /* restarted by a relaunch */
      app_progress(m, &seen);
      l = morph_local_count(m, "x");
      y = realloc(y, sizeof(double) * (size_t)(l + 1));
      for (int64_t k = 0; k < l; k++)
        y[k] = x[k];
    }
    if (ch.pending) {
      morph_window_info in;
      if ((rc = morph_begin(m, &in)) != MORPH_OK)
        fail(m, "morph_begin", rc);
      double *ny = in.comm != MPI_COMM_NULL ? move_y(y, n, &in) : NULL;
      rc = morph_commit(m, MORPH_OK, &st);
      if (rc != MORPH_OK && rc != MORPH_EABORTED)
        fail(m, "morph_commit", rc);
      if (st == MORPH_LEAVING)
        break;
      app_progress(m, &seen);
      if (rc == MORPH_OK && ny) {
        free(y);
        y = ny;
        changes++;
      } else {
        free(ny);
      }
    }
    if (!check(m, x, y, n, it)) {
      fprintf(stderr, "test-split-api: rank %d size %d: wrong data at iteration %d\n",
              morph_rank(m), morph_size(m), it);
      ok = 0;
      break;
    }
    for (int64_t k = 0; k < morph_local_count(m, "x"); k++)
      x[k] += 0.5, y[k] += 0.5;
    usleep((useconds_t)delay_ms * 1000);
  }
  if (st != MORPH_LEAVING) {
    int all;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, morph_comm(m));
    if (morph_rank(m) == 0)
      printf("%s split-api n=%lld iters=%d size=%d changes=%d\n",
             all ? "CHECK PASSED" : "CHECK FAILED", (long long)n, iters, morph_size(m), changes);
    ok = all;
  }
  free(y);
  return morph_finalize(m, ok ? 0 : 1);
}
