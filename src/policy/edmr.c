/* Efficiency-aware reservation DMR ("edmr", ours). DMRlib's Algorithm 2
 * (paper 000, dmr.c) with the waiting queue in view, as rdmr.c, and with
 * what the job's MPI time says about how well it uses its units (paper
 * 002's MPI-to-compute ratio, MTCT; efficiency = 1 - MTCT when the caller
 * gives no efficiency of its own). Runs after the start policy:
 *
 *  1. Serve the queue. Free units plus units of shrinks in progress form
 *     "avail". Waiting jobs reserve their minimum in queue order while
 *     avail plus what running malleable jobs can release covers them; the
 *     first job not covered ends the walk and keeps what is left. The
 *     shortfall is released in two tiers: first the units above each
 *     job's preferred size, then, only if that is not enough, the units
 *     between preferred and minimum (paper 000 stops at preferred; with a
 *     full queue a job's most efficient size is its smallest, and a node
 *     given to a waiting job does more work there). Within a tier the
 *     least efficient job gives first: its units are worth least where
 *     they are.
 *  2. Expand with spare units only (none while a job waits for units):
 *     jobs below their preferred size first (Algorithm 2 line 2), most
 *     efficient first; at or above it a job grows, doubling at most, only
 *     if both its MTCT values are below mtct_lower (paper 002's rule to
 *     double), or nothing is measured (then as Algorithm 2 does).
 *  3. Rebalance. If a job that would double (both MTCT values below
 *     mtct_lower) found no spare units, the least efficient job above its
 *     preferred size whose MTCT exceeds mtct_upper (paper 002's rule to
 *     halve) gives up to half its units, never below preferred: the freed
 *     units go to the better job at the next decision (step 2 serves the
 *     most efficient first). The band between the two thresholds keeps a
 *     job from being grown and shrunk in turn.
 *
 * Like rdmr it emits no START (several shrinks may serve one job); the
 * start policy of the next decision starts the jobs the units were kept
 * for. Shrinks carry RELEASE_UP: only units on UP nodes were counted. */
#include <stdlib.h>

#include "internal.h"

enum { TIER_ABOVE_PREF = 0, TIER_BELOW_PREF = 1 };

static int eligible(const morph__pass *run, int j)
{
  return morph__resizable(run, j) && !morph__inhibited(run, j);
}

/* Efficiency of running job j in 0..1: the caller's, else 1 - MTCT (the
 * larger of average and trend); 1 when nothing is measured, so unmeasured
 * jobs give last and are served as Algorithm 2 serves them. */
static double efficiency(const morph__pass *run, int j)
{
  const morph_policy_job *job = &run->snap->running[j];
  if (job->efficiency >= 0)
    return job->efficiency;
  if (job->mtct_avg < 0 || job->mtct_trend < 0)
    return 1.0;
  double m = job->mtct_avg > job->mtct_trend ? job->mtct_avg : job->mtct_trend;
  return 1.0 - m;
}

/* Paper 002's thresholds on the job's MPI share (1 - efficiency). */
static int wants_double(const morph__pass *run, int j)
{
  const morph_policy_job *job = &run->snap->running[j];
  if (job->efficiency < 0 && (job->mtct_avg < 0 || job->mtct_trend < 0))
    return -1; /* not measured */
  return 1.0 - efficiency(run, j) < run->params->mtct_lower;
}

static int wants_halving(const morph__pass *run, int j)
{
  return wants_double(run, j) >= 0 && 1.0 - efficiency(run, j) > run->params->mtct_upper;
}

/* Smallest allowed size of job j at or above `least` (and keeping its
 * units on nodes that are not UP, which a waiting job cannot use). */
static int lowest(const morph__pass *run, int j, int least)
{
  int size = run->s->size[j];
  int floor = size - morph__releasable_up(run, j);
  int lo = morph__size_min(run->params->sizes, size, floor > least ? floor : least);
  return lo > 0 ? lo : size;
}

static int cmp_offer(const void *a, const void *b, void *arg)
{
  const int *x = a, *y = b;
  const morph__pass *run = arg;
  if (x[0] != y[0])
    return x[0] - y[0];
  double ex = efficiency(run, x[1]), ey = efficiency(run, y[1]);
  if (ex != ey)
    return ex < ey ? -1 : 1;
  if (x[2] != y[2])
    return y[2] - x[2];
  return x[1] - y[1];
}

/* Collects (tier, job, units) offers in the scratch, in the order they are
 * taken; returns their count and their total in *total. */
static int offers(morph__pass *run, long *total)
{
  int *v = run->s->pairs, c = 0;
  *total = 0;
  for (int j = 0; j < run->snap->nrunning; j++) {
    if (!eligible(run, j))
      continue;
    const morph_policy_job *job = &run->snap->running[j];
    int size = run->s->size[j], at_pref = lowest(run, j, job->pref);
    int at_min = lowest(run, j, job->min);
    int cut[2] = {size - at_pref, at_pref - at_min};
    for (int t = 0; t < 2; t++) {
      if (cut[t] <= 0)
        continue;
      v[3 * c] = t, v[3 * c + 1] = j, v[3 * c + 2] = cut[t];
      *total += cut[t];
      c++;
    }
  }
  if (c > 1)
    qsort_r(v, (size_t)c, 3 * sizeof(int), cmp_offer, run);
  return c;
}

/* Takes `want` units from the offers in order, then shrinks each job that
 * gave once, to the largest allowed size that releases what it gave. */
static int release(morph__pass *run, int c, long want)
{
  int *v = run->s->pairs;
  for (int k = 0; k < c; k++) {
    int take = want < v[3 * k + 2] ? (int)want : v[3 * k + 2];
    v[3 * k + 2] = take;
    want -= take;
  }
  for (int k = 0; k < c; k++) {
    int j = v[3 * k + 1], given = 0;
    if (run->s->touched[j] || v[3 * k + 2] == 0)
      continue;
    for (int m = k; m < c; m++)
      given += v[3 * m + 1] == j ? v[3 * m + 2] : 0;
    int size = run->s->size[j], least = lowest(run, j, run->snap->running[j].min);
    int to = morph__size_down(run->params->sizes, size, least, size - given);
    int rc = to > 0 ? morph__shrink_job(run, j, to, MORPH_POLICY_RELEASE_UP) : MORPH_OK;
    if (rc)
      return rc;
  }
  return MORPH_OK;
}

/* Step 1; *spare gets the free units no waiting job holds. */
static int serve_queue(morph__pass *run, long *spare)
{
  long cap, avail = morph__free_units(run) + morph__incoming_units(run);
  int c = offers(run, &cap), blocked;
  long reserved = morph__queue_reserve(run, avail, cap, &blocked);
  /* A job the units cannot cover waits for jobs to end. With backfilling
   * the rest is kept for the jobs behind it; without, nobody else may
   * start, so it would sit idle until then: running jobs may use it, and
   * step 1 takes it back when the job can be covered. */
  *spare = reserved > avail || (blocked && run->backfills) ? 0 : avail - reserved;
  if (*spare > morph__free_units(run))
    *spare = morph__free_units(run);
  return reserved > avail ? release(run, c, reserved - avail) : MORPH_OK;
}

static int cmp_taker(const void *a, const void *b, void *arg)
{
  int x = *(const int *)a, y = *(const int *)b;
  double ex = efficiency(arg, x), ey = efficiency(arg, y);
  return ex != ey ? (ex > ey ? -1 : 1) : x - y;
}

/* How far job j may grow now: to preferred below it; beyond, doubling at
 * most, only if paper 002 would double it (or it is not measured). */
static long grow_limit(const morph__pass *run, int j)
{
  const morph_policy_job *job = &run->snap->running[j];
  int size = run->s->size[j], d = wants_double(run, j);
  if (size < job->pref)
    return job->pref;
  if (d == 0)
    return size;
  long hi = d > 0 ? 2L * size : job->max;
  return hi < job->max ? hi : job->max;
}

/* Step 2, one pass over the jobs in `order` (most efficient first). */
static int expand(morph__pass *run, const int *order, int n, long *spare, int below_pref)
{
  for (int i = 0; i < n && *spare > 0; i++) {
    int j = order[i], size = run->s->size[j];
    if (run->s->touched[j] || (below_pref && size >= run->snap->running[j].pref))
      continue;
    long hi = grow_limit(run, j);
    hi = hi < size + *spare ? hi : size + *spare;
    int to = morph__size_up(run->params->sizes, size, (int)hi);
    if (to <= size)
      continue;
    int rc = morph__expand_job(run, j, to);
    if (rc)
      return rc;
    *spare -= to - size;
  }
  return MORPH_OK;
}

/* Step 3: a job that would double and did not grow takes units from the
 * least efficient job above preferred that paper 002 would halve. */
static int rebalance(morph__pass *run, const int *order, int n)
{
  int taker = -1, donor = -1;
  for (int i = 0; i < n && taker < 0; i++)
    if (!run->s->touched[order[i]] && wants_double(run, order[i]) > 0 &&
        run->s->size[order[i]] < run->snap->running[order[i]].max)
      taker = order[i];
  for (int i = n - 1; i >= 0 && taker >= 0 && donor < 0; i--)
    if (!run->s->touched[order[i]] && wants_halving(run, order[i]) &&
        run->s->size[order[i]] > run->snap->running[order[i]].pref)
      donor = order[i];
  if (donor < 0)
    return MORPH_OK;
  int size = run->s->size[donor], room = run->snap->running[taker].max - run->s->size[taker];
  int give = size / 2 < room ? size / 2 : room;
  int least = lowest(run, donor, run->snap->running[donor].pref);
  int want = size - (give > 0 ? give : 1);
  int to = morph__size_down(run->params->sizes, size, least, want > least ? want : least);
  return to > 0 ? morph__shrink_job(run, donor, to, MORPH_POLICY_RELEASE_ANY) : MORPH_OK;
}

static int waiting(const morph__pass *run)
{
  for (int p = 0; p < run->snap->npending; p++)
    if (!run->s->started[p])
      return 1;
  return 0;
}

/* Step 1b: while jobs still wait, every job paper 002 would halve is
 * halved (down to its min): its units do more work elsewhere, whether or
 * not they are enough for the head of the queue. */
static int halve_under_pressure(morph__pass *run)
{
  for (int j = 0; j < run->snap->nrunning; j++) {
    if (!eligible(run, j) || !wants_halving(run, j))
      continue;
    int size = run->s->size[j], least = lowest(run, j, run->snap->running[j].min);
    int want = size / 2 > least ? size / 2 : least;
    int to = want < size ? morph__size_down(run->params->sizes, size, least, want) : 0;
    int rc = to > 0 ? morph__shrink_job(run, j, to, MORPH_POLICY_RELEASE_UP) : MORPH_OK;
    if (rc)
      return rc;
  }
  return MORPH_OK;
}

int morph__edmr_after(morph__pass *run)
{
  long spare;
  int rc = serve_queue(run, &spare);
  /* Without backfilling the halved units would wait for the queue's
   * head, idle, while the halved jobs run slower (plain edmr, FCFS
   * starts, ran a held-out workload at half the utilisation of FCFS on
   * rigid jobs): only the head's shortfall (step 1) is worth a shrink. */
  if (rc == MORPH_OK && run->backfills && waiting(run))
    rc = halve_under_pressure(run);
  int *order = run->s->pairs, n = 0; /* the offers are used up: reuse */
  for (int j = 0; rc == MORPH_OK && j < run->snap->nrunning; j++)
    if (eligible(run, j))
      order[n++] = j;
  if (n > 1)
    qsort_r(order, (size_t)n, sizeof(int), cmp_taker, run);
  if (rc == MORPH_OK)
    rc = expand(run, order, n, &spare, 1);
  if (rc == MORPH_OK)
    rc = expand(run, order, n, &spare, 0);
  if (rc == MORPH_OK && spare == 0 && !waiting(run))
    rc = rebalance(run, order, n);
  return rc;
}
