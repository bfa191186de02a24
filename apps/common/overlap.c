/*
 * The examples' reconfiguration point with an optional overlap (app.h):
 * morph_point, or the split form with morph_begin_overlap and
 * morph_progress, and the clock that measures what a resize cost the
 * iteration loop. Shared so that an example pays for overlap with the
 * lines of its own loop only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"

/* The reconfiguration point: blocking (limit 0), or overlapped, the
 * window staying open until the background transfers are done everywhere
 * or `limit` iterations have run in it. */
int app_point(morph_ctx *m, app_point_state *p, morph_status *st) {
  if (p->limit == 0)
    return morph_point(m, st);
  int rc = MORPH_OK, done = 0;
  if (!p->open) {
    morph_change ch;
    morph_window_info win;
    rc = morph_probe(m, &ch);
    if (rc == MORPH_OK && ch.pending)
      rc = morph_begin_overlap(m, &win);
    if (rc != MORPH_OK || !ch.pending) {
      *st = morph_get_status(m);
      return rc;
    }
    p->open = 1, p->k = 0;
    /* A joiner has nothing to compute yet; a failed window nothing
     * to wait for. */
    done = win.status == MORPH_JOINING || win.new_size == win.old_size;
  }
  if (!done)
    rc = morph_progress(m, &done);
  if (rc == MORPH_OK && (done || ++p->k >= p->limit))
    return app_point_close(m, p, st);
  *st = morph_get_status(m);
  return rc;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median_iter(const app_loss_clock *c) {
  double v[8];
  int n = c->n < 8 ? c->n : 8;
  memcpy(v, c->last, sizeof(double) * (size_t)n);
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n ? v[n / 2] : 0;
}

/* Called after each iteration with its start time and whether a window was
 * open at its end. */
void app_loss_tick(app_loss_clock *c, const morph_ctx *m, double t_start, int open) {
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


int app_point_close(morph_ctx *m, app_point_state *p, morph_status *st) {
  int rc = MORPH_OK;
  if (p->open) {
    p->open = 0;
    rc = morph_commit(m, MORPH_OK, st);
    rc = rc == MORPH_EABORTED ? MORPH_OK : rc; /* reported, as by morph_point */
  }
  *st = morph_get_status(m);
  return rc;
}
