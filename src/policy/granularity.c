/* The malleable components' decision module (paper 003, section IV-B.3):
 * change a job's granularity when processors come or go so that it keeps
 * one process per available processor. In a snapshot a process is a unit
 * (slot, or node in NODE units), so:
 *   - before starts: a job with units on nodes that are no longer UP
 *     (DRAINING or DOWN) shrinks by those units, releasing them first, down
 *     to its minimum. This ignores the scheduling period: those processors
 *     are going away whatever the job's pace.
 *   - after starts: the units still free are spread over the malleable jobs
 *     below their maximum, as evenly as their headroom allows (size rule
 *     ANY), or job by job to the largest allowed size (other rules).
 * Pending jobs are served first because the start policy runs before the
 * spreading; paper 003 has no queue, so that order is ours. */
#include <stdlib.h>

#include "internal.h"

int morph__granularity_before(morph__pass *run)
{
  for (int j = 0; j < run->snap->nrunning; j++) {
    const morph_policy_job *job = &run->snap->running[j];
    int bad = morph__resizable(run, j) ? morph__bad_units(run, j) : 0;
    if (bad == 0)
      continue;
    int size = run->s->size[j];
    int want = size - bad > job->min ? size - bad : job->min;
    int to = morph__size_down(run->params->sizes, size, job->min, want);
    int rc = to > 0 ? morph__shrink_job(run, j, to, MORPH_POLICY_RELEASE_ANY) : MORPH_OK;
    if (rc)
      return rc;
  }
  return MORPH_OK;
}

static int cmp_pair(const void *a, const void *b)
{
  const int *x = a, *y = b;
  return x[0] != y[0] ? (x[0] > y[0]) - (x[0] < y[0]) : (x[1] > y[1]) - (x[1] < y[1]);
}

/* Collects (headroom, job) pairs of jobs that may grow; returns how many. */
static int candidates(const morph__pass *run)
{
  int c = 0;
  for (int j = 0; j < run->snap->nrunning; j++) {
    int room = run->snap->running[j].max - run->s->size[j];
    if (room > 0 && morph__resizable(run, j) && !morph__inhibited(run, j)) {
      run->s->pairs[2 * c] = room;
      run->s->pairs[2 * c + 1] = j;
      c++;
    }
  }
  return c;
}

/* Even spread: jobs with the least headroom first, each taking at most its
 * share of what is left, so the rest is shared by jobs that can use it. */
static int spread_even(morph__pass *run, int c)
{
  qsort(run->s->pairs, (size_t)c, 2 * sizeof(int), cmp_pair);
  for (int i = 0; i < c && morph__free_units(run) > 0; i++) {
    long left = morph__free_units(run);
    long share = (left + (c - i) - 1) / (c - i);
    int room = run->s->pairs[2 * i], j = run->s->pairs[2 * i + 1];
    int give = room < share ? room : (int)share;
    int rc = morph__expand_job(run, j, run->s->size[j] + give);
    if (rc)
      return rc;
  }
  return MORPH_OK;
}

static int spread_by_rule(morph__pass *run, int c)
{
  for (int i = 0; i < c && morph__free_units(run) > 0; i++) {
    int j = run->s->pairs[2 * i + 1], size = run->s->size[j];
    long hi = size + morph__free_units(run);
    if (hi > run->snap->running[j].max)
      hi = run->snap->running[j].max;
    int to = morph__size_up(run->params->sizes, size, (int)hi);
    int rc = to > size ? morph__expand_job(run, j, to) : MORPH_OK;
    if (rc)
      return rc;
  }
  return MORPH_OK;
}

int morph__granularity_after(morph__pass *run)
{
  int c = candidates(run);
  if (c == 0 || morph__free_units(run) == 0)
    return MORPH_OK;
  return run->params->sizes == MORPH_POLICY_SIZES_ANY ? spread_even(run, c)
                                                      : spread_by_rule(run, c);
}
