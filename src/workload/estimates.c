/*
 * Requested times (user estimates) of a workload: counting them, the
 * offered load as a knob, and Tsafrir's model of how users choose them
 * (D. Tsafrir, Y. Etsion, D. G. Feitelson, "Modeling User Runtime
 * Estimates", JSSPP 2005). Written for morph from the published
 * description; only the parameters come from the model:
 *
 *  - K distinct values, K a piecewise-linear function of the number of
 *    jobs (10 for 20 jobs, 90 for 10,000, 340 for 70,000).
 *  - The 20 most popular values (the "head") are the largest allowed
 *    estimate, the round values every site shares below it (5, 10, 15,
 *    20, 30 min, 1, 2, 3, 4, 5, 6, 8, 10, 12, 18 h) and round multiples
 *    below the largest to complete them. Together they take 89 % of the
 *    jobs: popularity rank x = 2..20 takes a e^(bx) + c percent, the
 *    largest value (rank 1) the rest; which value has which rank follows
 *    the CTC-SP2 column of the model's table.
 *  - The other K - 20 values (the "tail") sit at relative times
 *    (A - 1) x / (A - x) of the largest (x the relative time rank, A = 1 +
 *    12.1039 K^-0.6026) with sizes a x^b (rank x >= 21), matched at
 *    random, scaled to the remaining 11 %.
 *  - Jobs sorted by run time get values so that none is below its run
 *    time: the longest job first, each drawing at random among the values
 *    still free that cover it.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "rng.h"

#define HEAD 20
#define HOUR 3600.0
#define HEAD_SUM 89.0

/* The round values of every log the model was fitted on (seconds). */
static const double joint[] = {300, 900, 600, 1200, 1800, 3600, 7200, 10800, 14400, 18000,
                               21600, 28800, 36000, 43200, 64800};
/* Multiples used to complete the head, walking down from the largest. */
static const double round_step[] = {200 * HOUR, 100 * HOUR, 50 * HOUR, 10 * HOUR, 5 * HOUR,
                                    2 * HOUR, HOUR, 1200, 600, 300};
/* Popularity rank of the head value of time rank t (0: the largest, then
 * in ascending time order): the model's CTC-SP2 column. */
static const int pop_rank[HEAD] = {1, 3, 4, 2, 12, 9, 8, 18, 6, 7,
                                   11, 20, 16, 5, 14, 13, 10, 15, 17, 19};
/* Distinct values as a function of the number of jobs (the model's points). */
static const double bins_at[][2] = {{0, 0}, {20, 10}, {200, 20}, {1000, 35},
                                    {10000, 90}, {70000, 340}, {250000, 565}};

size_t morph_workload_walltimes(const morph_workload *wl, double *max)
{
  size_t n = 0;
  double m = 0;
  for (size_t i = 0; wl && i < wl->njobs; i++)
    if (wl->jobs[i].walltime > 0) {
      n++;
      m = wl->jobs[i].walltime > m ? wl->jobs[i].walltime : m;
    }
  if (max)
    *max = m;
  return n;
}

double morph_workload_offered_load(const morph_workload *wl, int nodes)
{
  double work = 0, first = INFINITY, last = 0;
  for (size_t i = 0; wl && i < wl->njobs; i++) {
    const morph_wjob *j = &wl->jobs[i];
    work += morph_model_time(&j->model, j->req_max) * j->req_max;
    first = j->submit < first ? j->submit : first;
    last = j->submit > last ? j->submit : last;
  }
  return nodes > 0 && last > first ? work / (nodes * (last - first)) : 0;
}

int morph_workload_set_load(morph_workload *wl, int nodes, double load, double *factor)
{
  if (!wl || nodes < 1 || !(load > 0))
    return wl ? morph__wl_fail(wl, MORPH_EINVAL, "set load: need nodes >= 1 and load > 0")
              : MORPH_EINVAL;
  double got = morph_workload_offered_load(wl, nodes);
  if (!(got > 0))
    return morph__wl_fail(wl, MORPH_EINVAL, "set load: the workload has no offered load "
                          "(fewer than two distinct submit times)");
  double f = got / load;
  for (size_t i = 0; i < wl->njobs; i++)
    wl->jobs[i].submit = fmin(wl->jobs[i].submit * f, MORPH_WORKLOAD_TIME_MAX);
  for (size_t i = 0; i < wl->skipped; i++)
    wl->skips[i].submit *= f;
  if (factor)
    *factor = f;
  return MORPH_OK;
}

static int bin_count(size_t njobs)
{
  int last = (int)(sizeof bins_at / sizeof bins_at[0]) - 1;
  if ((double)njobs >= bins_at[last][0])
    return (int)bins_at[last][1];
  int k = 1;
  while ((double)njobs > bins_at[k][0])
    k++;
  double slope = (bins_at[k][1] - bins_at[k - 1][1]) / (bins_at[k][0] - bins_at[k - 1][0]);
  int n = (int)lround(bins_at[k - 1][1] + ((double)njobs - bins_at[k - 1][0]) * slope);
  return n < 1 ? 1 : n;
}

static int has(const double *v, int n, double x)
{
  for (int i = 0; i < n; i++)
    if (v[i] == x)
      return 1;
  return 0;
}

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The head's values: the largest first, then ascending. */
static int head_values(double maxest, double *v)
{
  int n = 0;
  v[n++] = maxest;
  for (size_t i = 0; i < sizeof joint / sizeof joint[0]; i++)
    if (joint[i] < maxest)
      v[n++] = joint[i];
  for (size_t i = 0; i < sizeof round_step / sizeof round_step[0] && n < HEAD; i++)
    for (double t = floor(maxest / round_step[i]) * round_step[i]; t > 0 && n < HEAD;
         t -= round_step[i])
      if (!has(v, n, t))
        v[n++] = t;
  qsort(v + 1, (size_t)n - 1, sizeof *v, cmp_double);
  return n;
}

/* Percent of jobs of popularity rank x (1 = most popular) in the head. */
static double head_percent(int x)
{
  if (x > 1)
    return 14.0491 * exp(-0.177531 * x) + 0.462513;
  double rest = 0;
  for (int r = 2; r <= HEAD; r++)
    rest += head_percent(r);
  return HEAD_SUM - rest;
}

/* The tail: up to k values away from the head's, with their percents
 * (matched at random), scaled to what the head leaves. Returns how many. */
static int tail_values(double maxest, int k, const double *head, int nh, double *v, double *p,
                       morph__rng *r)
{
  double a = 1 + 12.1039 * pow(k, -0.6026), sum = 0;
  int n = 0;
  for (int i = 1; i <= k && n < k - nh; i++) {
    double x = (double)i / k, t = fmax(60, round(maxest * (a - 1) * x / (a - x) / 60) * 60);
    if (t <= maxest && !has(head, nh, t) && !has(v, n, t))
      v[n++] = t;
  }
  for (int i = 0; i < n; i++)
    sum += p[i] = 795.6 * pow(HEAD + 1 + i, -2.267);
  for (int i = n - 1; i > 0; i--) {
    int j = (int)morph__rng_below(r, (uint64_t)i + 1);
    double t = p[i];
    p[i] = p[j], p[j] = t;
  }
  for (int i = 0; i < n; i++)
    p[i] *= (100.0 - HEAD_SUM) / sum;
  return n;
}

/* Job counts per value adding up to njobs exactly: rounded percents, at
 * least one job each, the difference taken from or given to the largest. */
static void to_counts(const double *p, int n, size_t njobs, long *count)
{
  long sum = 0;
  int big = 0;
  for (int i = 0; i < n; i++) {
    count[i] = lround(p[i] * (double)njobs / 100.0);
    count[i] = count[i] < 1 ? 1 : count[i];
    sum += count[i];
    big = count[i] > count[big] ? i : big;
  }
  while (sum > (long)njobs && count[big] > 1) {
    long cut = sum - (long)njobs < count[big] - 1 ? sum - (long)njobs : count[big] - 1;
    count[big] -= cut, sum -= cut;
    for (int i = 0; i < n; i++)
      big = count[i] > count[big] ? i : big;
  }
  count[big] += (long)njobs - sum;
}

typedef struct est_job {
  double run;
  size_t index;
} est_job;

static int cmp_run_desc(const void *a, const void *b)
{
  const est_job *x = a, *y = b;
  if (x->run != y->run)
    return x->run < y->run ? 1 : -1;
  return (x->index > y->index) - (x->index < y->index);
}

/* Gives each job (longest first) a value drawn among the free ones that
 * cover its run time; est is sorted descending and used up in place. */
static void assign(morph_workload *wl, est_job *jobs, double *est, morph__rng *r)
{
  size_t n = wl->njobs, hi = 0;
  for (size_t j = 0; j < n; j++) {
    if (est[j] < jobs[j].run) {
      wl->jobs[jobs[j].index].walltime = jobs[j].run; /* longer than any value */
      continue;
    }
    hi = hi < j ? j : hi;
    while (hi + 1 < n && est[hi + 1] >= jobs[j].run)
      hi++;
    size_t k = j + (size_t)morph__rng_below(r, hi - j + 1);
    wl->jobs[jobs[j].index].walltime = est[k];
    est[k] = est[j];
  }
}

/* The model's values and their shares: head then tail; returns how many. */
static int model_values(size_t njobs, double maxest, double *v, double *p, morph__rng *r)
{
  int k = bin_count(njobs), nh = head_values(maxest, v);
  for (int t = 0; t < nh; t++)
    p[t] = head_percent(pop_rank[t]);
  /* Fewer values than the head holds: the most popular ones. */
  while (nh > k) {
    int worst = 0;
    for (int t = 1; t < nh; t++)
      worst = pop_rank[t] > pop_rank[worst] ? t : worst;
    memmove(v + worst, v + worst + 1, (size_t)(nh - worst - 1) * sizeof *v);
    memmove(p + worst, p + worst + 1, (size_t)(nh - worst - 1) * sizeof *p);
    nh--;
  }
  return nh + tail_values(maxest, k, v, nh, v + nh, p + nh, r);
}

static int fill(morph_workload *wl, double maxest, morph__rng *r, double *v, double *p,
                long *count, double *est, est_job *jobs)
{
  int n = model_values(wl->njobs, maxest, v, p, r);
  to_counts(p, n, wl->njobs, count);
  size_t e = 0;
  for (int i = 0; i < n; i++)
    for (long c = 0; c < count[i]; c++)
      est[e++] = v[i];
  qsort(est, e, sizeof *est, cmp_double);
  for (size_t i = 0; i < e / 2; i++) {
    double t = est[i];
    est[i] = est[e - 1 - i], est[e - 1 - i] = t;
  }
  for (size_t i = 0; i < wl->njobs; i++)
    jobs[i] = (est_job){morph_model_time(&wl->jobs[i].model, wl->jobs[i].req_max), i};
  qsort(jobs, wl->njobs, sizeof *jobs, cmp_run_desc);
  assign(wl, jobs, est, r);
  return MORPH_OK;
}

int morph_workload_estimates_tsafrir(morph_workload *wl, double max_estimate, uint64_t seed)
{
  if (!wl)
    return MORPH_EINVAL;
  if (!(max_estimate >= HOUR) || max_estimate > MORPH_WORKLOAD_TIME_MAX)
    return morph__wl_fail(wl, MORPH_EINVAL, "estimates: the largest estimate must be 3600..%g s",
                          MORPH_WORKLOAD_TIME_MAX);
  if (wl->njobs == 0)
    return MORPH_OK;
  int k = bin_count(wl->njobs) + HEAD;
  double *v = calloc((size_t)k, sizeof *v), *p = calloc((size_t)k, sizeof *p);
  long *count = calloc((size_t)k, sizeof *count);
  double *est = calloc(wl->njobs, sizeof *est);
  est_job *jobs = calloc(wl->njobs, sizeof *jobs);
  int rc = v && p && count && est && jobs ? MORPH_OK
                                         : morph__wl_fail(wl, MORPH_ENOMEM, "estimates: out of memory");
  if (rc == MORPH_OK) {
    morph__rng r;
    morph__rng_seed(&r, seed);
    rc = fill(wl, floor(max_estimate), &r, v, p, count, est, jobs);
  }
  free(v), free(p), free(count), free(est), free(jobs);
  return rc;
}
