/* EASY backfilling (Lifka 1995; Mu'alem and Feitelson 2001). Jobs start in
 * queue order while they fit. The first job that does not fit (the head)
 * gets a reservation: the earliest time ("shadow time") at which enough
 * units are free for its minimum, computed from the running jobs' expected
 * ends (start + walltime estimate). Later jobs may start now (backfill) if
 * they fit and either end before the shadow time or use only the units that
 * are left over at the shadow time ("extra"), so the head is never delayed.
 * A moldable backfilled job gets as many units as keep that promise. */
#include <math.h>

#include "internal.h"

/* Expected end of a job that starts (or started) at `start`; INFINITY when
 * there is no estimate and no default. */
double morph__expected_end(const morph__pass *run, const morph_policy_job *job, double start)
{
  double w = job->walltime > 0 ? job->walltime : run->params->default_walltime;
  if (w <= 0)
    return INFINITY;
  double end = start + w;
  /* A job past its estimate is expected to end any moment now. */
  return end > run->snap->now ? end : run->snap->now;
}

/* Merges pairs [lo, mid) and [mid, hi) of src into dst by end time; on
 * equal ends the left one first, so the sort is stable. */
static void merge(const double *src, double *dst, int lo, int mid, int hi)
{
  int i = lo, j = mid, k = lo;
  while (i < mid && j < hi) {
    int from = src[2 * j] < src[2 * i] ? j++ : i++;
    dst[2 * k] = src[2 * from];
    dst[2 * k++ + 1] = src[2 * from + 1];
  }
  for (; i < mid; i++, k++)
    dst[2 * k] = src[2 * i], dst[2 * k + 1] = src[2 * i + 1];
  for (; j < hi; j++, k++)
    dst[2 * k] = src[2 * j], dst[2 * k + 1] = src[2 * j + 1];
}

/* Sorts n (end, units) pairs by end, equal ends in their order (as glibc's
 * qsort, a stable merge sort, did: the reservation depends on it). A
 * bottom-up merge sort with the comparison inlined takes a third of the
 * time of qsort's callback on 10,000 jobs. tmp has room for n pairs;
 * returns whichever of v and tmp holds the result. */
static double *sort_ends(double *v, double *tmp, int n)
{
  for (int w = 1; w < n; w *= 2) {
    for (int lo = 0; lo < n; lo += 2 * w) {
      int mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
      merge(v, tmp, lo, mid, hi);
    }
    double *t = v;
    v = tmp;
    tmp = t;
  }
  return v;
}

/* Collects (end, units) pairs of running jobs and of jobs started in this
 * decision; returns the number of pairs. */
static int collect_ends(const morph__pass *run)
{
  const morph_policy_snapshot *snap = run->snap;
  double *e = run->s->ends;
  int n = 0;
  for (int j = 0; j < snap->nrunning; j++, n++) {
    e[2 * n] = morph__expected_end(run, &snap->running[j], snap->running[j].start_time);
    e[2 * n + 1] = run->s->size[j];
  }
  for (int a = 0; a < run->out->n; a++) {
    const morph_policy_action *act = &run->out->v[a];
    if (act->op != MORPH_POLICY_START)
      continue;
    e[2 * n] = morph__expected_end(run, &snap->pending[act->job_index], snap->now);
    e[2 * n + 1] = act->to;
    n++;
  }
  return n;
}

/* Computes the head's shadow time and the extra units free at that time. */
void morph__easy_reserve(const morph__pass *run, int head, double *shadow, long *extra)
{
  int n = collect_ends(run);
  const double *e = sort_ends(run->s->ends, run->s->ends + 2 * (size_t)n, n);
  long avail = morph__free_units(run);
  long need = run->snap->pending[head].req_min;
  *shadow = INFINITY;
  *extra = 0;
  for (int i = 0; i < n && isfinite(e[2 * i]); i++) {
    avail += (long)e[2 * i + 1];
    if (avail >= need) {
      *shadow = e[2 * i];
      *extra = avail - need;
      return;
    }
  }
}

/* Size to backfill job p with now, or 0 if it must wait. */
static int backfill_size(const morph__pass *run, int p, double shadow, long extra)
{
  const morph_policy_job *job = &run->snap->pending[p];
  long free = morph__free_units(run);
  long n = job->req_max < free ? job->req_max : free;
  if (n < job->req_min)
    return 0;
  if (morph__expected_end(run, job, run->snap->now) <= shadow)
    return (int)n;
  if (n > extra)
    n = extra;
  return n >= job->req_min ? (int)n : 0;
}

int morph__easy_start(morph__pass *run)
{
  int head = morph__fcfs_prefix(run);
  if (head < 0 || head >= run->snap->npending)
    return head < 0 ? head : MORPH_OK;
  double shadow;
  long extra;
  morph__easy_reserve(run, head, &shadow, &extra);
  for (int p = head + 1; p < run->snap->npending && morph__free_units(run) > 0; p++) {
    int n = backfill_size(run, p, shadow, extra);
    if (n == 0)
      continue;
    int rc = morph__start_job(run, p, n, -1);
    if (rc)
      return rc;
    if (morph__expected_end(run, &run->snap->pending[p], run->snap->now) > shadow)
      extra -= n;
  }
  return MORPH_OK;
}
