/* Reservation-aware DMR ("rdmr"): DMRlib's Algorithm 2 (paper 000 section
 * 5.1, see dmr.c) with the pending queue kept in view, so that a job asking
 * for many units can start on a full cluster without waiting for a job to
 * end. It runs after the start policy (fcfs or easy):
 *
 *  1. Serve the queue. Walk the jobs the start policy left waiting, in queue
 *     order. Units free now plus units that shrinks in progress will free
 *     (`resize_to`) form the pool "avail"; running malleable jobs above
 *     their preferred size can add what they would release going down to
 *     it (never below it, as in Algorithm 2). Each job reserves its minimum
 *     while avail plus those releases cover all reservations; the first job
 *     they cannot cover ends the walk and keeps what is left of avail (a
 *     shrink never serves a later job before the head). Then the shortfall
 *     of the served jobs is released at once, largest release first, so
 *     fewer jobs pay a reconfiguration.
 *  2. Expand with the rest. Only units no waiting job holds a reservation
 *     on are spare; jobs below their preferred size grow first (Algorithm
 *     2 line 2), then the others, towards their maximum.
 *
 * Starts are left to the start policy: the units of a shrink become free
 * when it completes, and the next decision starts the job they were kept
 * for (queue order puts it first). A START that depends on several
 * SHRINKs cannot be expressed with one `depends`, and one that depends on
 * a single shrink would let the other released units be taken by anyone.
 *
 * Differences from Algorithm 2: several jobs may shrink for one pending job
 * (Algorithm 2 shrinks one), and free units are not given to running jobs
 * while a waiting job needs them (Algorithm 2 lines 8 and 9 expand whenever
 * units are free). */
#include <stdlib.h>

#include "internal.h"

static int eligible(const morph__pass *run, int j)
{
  return morph__resizable(run, j) && !morph__inhibited(run, j);
}

/* Units job j can release on UP nodes without going below its preferred
 * size (its min with shrink_floor=min) and its master, as an allowed size;
 * 0 if none. */
static int releasable(const morph__pass *run, int j)
{
  int size = run->s->size[j], least = morph__shrink_floor(run, j);
  if (size <= least || !eligible(run, j))
    return 0;
  int floor = size - morph__releasable_up(run, j);
  int lo = morph__size_min(run->params->sizes, size, floor > least ? floor : least);
  return lo > 0 ? size - lo : 0;
}

static int cmp_release(const void *a, const void *b)
{
  const int *x = a, *y = b;
  /* Largest release first; ties in running order, for determinism. */
  return x[0] != y[0] ? (x[0] < y[0]) - (x[0] > y[0]) : (x[1] > y[1]) - (x[1] < y[1]);
}

/* Collects (release, job) pairs of the jobs that may shrink in the
 * scratch pairs, largest release first; returns their total release. */
static long candidates(const morph__pass *run)
{
  int c = 0;
  long total = 0;
  for (int j = 0; j < run->snap->nrunning; j++) {
    int r = releasable(run, j);
    if (r == 0)
      continue;
    run->s->pairs[2 * c] = r;
    run->s->pairs[2 * c + 1] = j;
    total += r;
    c++;
  }
  if (c > 1) /* qsort of a NULL array is undefined even for 0 elements */
    qsort(run->s->pairs, (size_t)c, 2 * sizeof(int), cmp_release);
  /* shrink_jobs: only the largest releases may serve the queue. */
  for (int k = run->params->shrink_jobs; k > 0 && k < c; k++)
    total -= run->s->pairs[2 * k];
  return total;
}

/* Shrinks candidates, largest release first, until they release at least
 * `want` units (the caller checked that they can); the last one releases
 * only what is still missing, rounded up to an allowed size. */
static int shrink_for(morph__pass *run, long want)
{
  for (int k = 0; want > 0; k++) {
    int rel = run->s->pairs[2 * k], j = run->s->pairs[2 * k + 1];
    int size = run->s->size[j];
    int to = size - rel;
    if (rel > want)
      to = morph__size_down(run->params->sizes, size, size - rel, size - (int)want);
    int rc = morph__shrink_job(run, j, to, MORPH_POLICY_RELEASE_UP);
    if (rc)
      return rc;
    want -= size - to;
  }
  return MORPH_OK;
}

/* Step 1: reserves units for the waiting jobs in queue order, as far as
 * free units, units of shrinks in progress and possible shrinks cover
 * them, then shrinks for the shortfall of all of them at once (a job gets
 * one action per decision, so serving them one by one would stop at the
 * first partly shrunk job). Returns in *spare the units no waiting job
 * has a reservation on: none once a job has to wait for jobs to end. */
static int serve_queue(morph__pass *run, long *spare)
{
  long cap = candidates(run), avail = morph__free_units(run) + morph__incoming_units(run);
  int blocked;
  long reserved = morph__queue_reserve(run, avail, cap, &blocked);
  *spare = blocked || reserved > avail ? 0 : avail - reserved;
  return reserved > avail ? shrink_for(run, reserved - avail) : MORPH_OK;
}

/* Step 2, one pass: expands eligible jobs (only those below their
 * preferred size if `below_pref`) with at most *spare units. */
static int expand_pass(morph__pass *run, long *spare, int below_pref)
{
  for (int j = 0; j < run->snap->nrunning && *spare > 0; j++) {
    const morph_policy_job *job = &run->snap->running[j];
    int size = run->s->size[j];
    if ((below_pref && size >= job->pref) || !eligible(run, j))
      continue;
    long hi = size + *spare;
    int to = morph__size_up(run->params->sizes, size, (int)(hi < job->max ? hi : job->max));
    if (to <= size)
      continue;
    int rc = morph__expand_job(run, j, to);
    if (rc)
      return rc;
    *spare -= to - size;
  }
  return MORPH_OK;
}

int morph__rdmr_after(morph__pass *run)
{
  long spare;
  int rc = serve_queue(run, &spare);
  /* Reserved units may still be on their way (shrinks in progress): only
   * those free now can be given to running jobs. */
  if (spare > morph__free_units(run))
    spare = morph__free_units(run);
  if (rc == MORPH_OK)
    rc = expand_pass(run, &spare, 1);
  if (rc == MORPH_OK)
    rc = expand_pass(run, &spare, 0);
  return rc;
}
