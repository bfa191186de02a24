/*
 * The Lublin-Feitelson workload model (U. Lublin and D. G. Feitelson, "The
 * workload on parallel supercomputers: modeling the characteristics of
 * rigid jobs", JPDC 63(11), 2003): job sizes, run times correlated with
 * size and a daily cycle of arrivals, fitted on the Parallel Workloads
 * Archive's logs. Parameters are the paper's (batch and interactive jobs
 * apart); the machine size sets the largest job. Written for morph from
 * the published description; only the parameters come from the model.
 *
 *  - Size: serial with probability p_serial; otherwise log2(size) from a
 *    two-stage uniform (ULow..UMed with probability Uprob, UMed..UHi
 *    otherwise), rounded to a power of two with probability p_pow2.
 *  - Run time: e^x, x from a hyper-gamma whose first branch has
 *    probability p = pa * size + pb (bigger jobs run longer).
 *  - Arrivals: gaps of e^x seconds at rush hour, x ~ gamma(aarr, barr),
 *    stretched through a daily cycle: half-hour buckets weighted by a
 *    gamma(anum, bnum) density over the day (the day starts at 11:00 in
 *    the model's hours), so that quiet hours see fewer jobs.
 * Batch and interactive jobs arrive in two streams; a job takes the type
 * of the stream whose next arrival comes first.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "rng.h"

#define BUCKETS 48          /* half hours of a day */
#define BUCKET_S 1800.0
#define DAY_START 11        /* the model's cyclic day starts at bucket 11 */
#define MAX_LOG_GAP 13.0    /* gaps above e^13 s (5 days) are drawn again */

typedef struct lublin_type {
  double serial, pow2, ulow, umed_off, uhi_off, uprob; /* sizes; UMed/UHi below log2(P) */
  double a1, b1, a2, b2, pa, pb;                       /* run times */
  double aarr, barr, anum, bnum;                       /* arrivals */
} lublin_type;

/* Batch and interactive parameters of the 2003 model (its Table 3 and the
 * reference implementation's constants; aarr already multiplied by the
 * rush-to-all-hours ratio ARAR). UMed and UHi are given as offsets below
 * log2(machine size), as the model prescribes (UHi = log2 P for batch). */
static const lublin_type lublin_types[2] = {
  {0.2927, 0.6686, 1.2, 2.0, 0.0, 0.875, 6.57, 0.823, 639.1, 0.0156, -0.003, 0.6986,
   6.0415 * 1.0519, 0.8531, 6.1271, 5.2740},
  {0.1541, 0.625, 1.0, 4.0, 1.5, 0.705, 3.8351, 0.6605, 7.073, 0.6856, -0.0118, 0.9156,
   6.5510 * 0.9797, 0.6621, 8.9186, 3.6680},
};

void morph_lublin_options_init(morph_lublin_options *opt)
{
  memset(opt, 0, sizeof *opt);
  opt->njobs = 1000;
  opt->seed = 1;
  opt->nodes = 128;
  opt->interactive = 1;
  opt->max_runtime = exp(12.0);
  opt->serial = 0.05;
  opt->estimates = 1;
}

int morph_lublin_options_shape(morph_lublin_options *opt, const char *shape)
{
  if (!opt || !shape)
    return MORPH_EINVAL;
  if (!strcmp(shape, "lublin"))
    opt->nodes = 128;
  else if (!strcmp(shape, "ctc"))
    opt->nodes = 430, opt->max_runtime = 18 * 3600.0;
  else if (!strcmp(shape, "kth"))
    opt->nodes = 100, opt->max_runtime = 60 * 3600.0;
  else
    return MORPH_EINVAL;
  return MORPH_OK;
}

/* Regularized lower incomplete gamma P(a, x): its series below a + 1, its
 * continued fraction (modified Lentz) above. */
static double gamma_p(double a, double x)
{
  if (x <= 0)
    return 0;
  double lead = exp(a * log(x) - x - lgamma(a));
  if (x < a + 1) {
    double sum = 1.0 / a, term = sum;
    for (int n = 1; n < 500 && fabs(term) > 1e-15 * fabs(sum); n++)
      sum += term *= x / (a + n);
    return sum * lead;
  }
  double b = x + 1 - a, c = 1e300, d = 1 / b, h = d;
  for (int i = 1; i < 500; i++) {
    double an = -i * (i - a);
    b += 2;
    d = an * d + b;
    d = fabs(d) < 1e-300 ? 1e-300 : d;
    c = b + an / c;
    c = fabs(c) < 1e-300 ? 1e-300 : c;
    d = 1 / d;
    h *= d * c;
    if (fabs(d * c - 1) < 1e-15)
      break;
  }
  return 1 - lead * h;
}

/* One arrival stream: the daily weights (mean 1), where it is in the day
 * and its next arrival. */
typedef struct stream {
  const lublin_type *p;
  morph__rng rng;
  double w[BUCKETS];
  double t;       /* next arrival, seconds from the start */
} stream;

static void stream_init(stream *s, const lublin_type *p, uint64_t seed)
{
  s->p = p;
  morph__rng_seed(&s->rng, seed);
  double sum = 0;
  for (int i = DAY_START; i < BUCKETS + DAY_START; i++) {
    int b = (i - 1) % BUCKETS;
    s->w[b] = gamma_p(p->anum, (i + 0.5) / p->bnum) - gamma_p(p->anum, (i - 0.5) / p->bnum);
    sum += s->w[b];
  }
  for (int b = 0; b < BUCKETS; b++)
    s->w[b] = s->w[b] / (sum / BUCKETS) + 1e-9; /* never zero: time must move */
  s->t = 0;
}

/* Advances the stream by one gap of `x` rush-hour seconds: a second of
 * bucket b costs w[b] of them, so busy hours pass slowly (dense arrivals)
 * and quiet ones quickly. */
static void stream_advance(stream *s, double factor)
{
  double x;
  do
    x = morph__rng_gamma(&s->rng, s->p->aarr, s->p->barr);
  while (x > MAX_LOG_GAP);
  x = exp(x) * factor;
  for (;;) {
    int b = (int)fmod(floor(s->t / BUCKET_S), BUCKETS);
    double left = (floor(s->t / BUCKET_S) + 1) * BUCKET_S - s->t;
    if (x <= left * s->w[b]) {
      s->t += x / s->w[b];
      return;
    }
    x -= left * s->w[b];
    s->t += left;
  }
}

static int draw_size(morph__rng *r, const lublin_type *p, int nodes)
{
  double u = morph__rng_uniform(r), uhi = log2((double)nodes) - p->uhi_off;
  double umed = log2((double)nodes) - p->umed_off, ulow = p->ulow;
  umed = umed < ulow ? ulow : umed;
  uhi = uhi < umed ? umed : uhi;
  if (u <= p->serial)
    return 1;
  double v = morph__rng_uniform(r);
  double x = v <= p->uprob ? ulow + (umed - ulow) * morph__rng_uniform(r)
                           : umed + (uhi - umed) * morph__rng_uniform(r);
  if (u <= p->serial + p->pow2)
    x = floor(x + 0.5);
  int n = (int)floor(pow(2.0, x) + 0.5);
  return n < 1 ? 1 : n > nodes ? nodes : n;
}

static double draw_runtime(morph__rng *r, const lublin_type *p, int size, double max_runtime)
{
  double prob = p->pa * size + p->pb;
  prob = prob < 0 ? 0 : prob > 1 ? 1 : prob;
  double lmax = log(max_runtime), x;
  do {
    int first = morph__rng_uniform(r) <= prob;
    x = first ? morph__rng_gamma(r, p->a1, p->b1) : morph__rng_gamma(r, p->a2, p->b2);
  } while (x > lmax);
  double t = floor(exp(x));
  return t < 1 ? 1 : t;
}

/* The jobs of one draw with arrival gaps scaled by `factor`: each type's
 * k-th job has the same size and run time whatever the factor (its own
 * random stream), so only the arrival times move. */
static int draw(morph_workload *wl, const morph_lublin_options *o, double factor)
{
  stream s[2];
  morph__rng attr[2];
  for (int k = 0; k < 2; k++) {
    stream_init(&s[k], &lublin_types[k], o->seed * 4 + (uint64_t)k);
    morph__rng_seed(&attr[k], o->seed * 4 + 2 + (uint64_t)k);
    stream_advance(&s[k], factor);
  }
  morph_workload_clear(wl);
  for (size_t i = 0; i < o->njobs; i++) {
    int k = o->interactive && s[1].t < s[0].t ? 1 : 0;
    int n = draw_size(&attr[k], s[k].p, o->nodes);
    double run = draw_runtime(&attr[k], s[k].p, n, o->max_runtime);
    morph_wjob job;
    char name[32];
    memset(&job, 0, sizeof job);
    snprintf(name, sizeof name, "lublin-%zu", i + 1);
    job.name = name;
    job.app = k ? "lublin-interactive" : "lublin-batch";
    job.kind = MORPH_KIND_FIXED;
    job.submit = s[k].t;
    job.req_min = job.req_max = job.min = job.pref = job.max = n;
    job.model = (morph_model){.type = MORPH_MODEL_AMDAHL, .serial = o->serial, .scale = 1,
                              .t1 = run / (o->serial + (1 - o->serial) / n), .iterations = 100};
    int rc = morph_workload_add(wl, &job);
    if (rc)
      return rc;
    stream_advance(&s[k], factor);
  }
  return MORPH_OK;
}

/* The load falls as the gaps grow, but in steps (the two streams
 * interleave differently): bisect the gap scale on a log scale from a
 * bracket around the proportional guess, and keep the closest draw. */
static int reach_load(morph_workload *wl, const morph_lublin_options *o)
{
  int rc = draw(wl, o, 1.0);
  double got = rc ? 0 : morph_workload_offered_load(wl, o->nodes);
  if (rc || got <= 0)
    return rc;
  double lo = log(got / o->load) - 1, hi = lo + 2, best = lo + 1, err = INFINITY;
  for (int i = 0; i < 40 && err > 0.001; i++) {
    double mid = 0.5 * (lo + hi);
    if ((rc = draw(wl, o, exp(mid))) != MORPH_OK)
      return rc;
    got = morph_workload_offered_load(wl, o->nodes);
    if (fabs(got / o->load - 1) < err)
      err = fabs(got / o->load - 1), best = mid;
    if (got > o->load)
      lo = mid;
    else
      hi = mid;
  }
  return draw(wl, o, exp(best));
}

int morph_workload_generate_lublin(morph_workload *wl, const morph_lublin_options *opt)
{
  morph_lublin_options def;
  if (!wl)
    return MORPH_EINVAL;
  if (!opt)
    morph_lublin_options_init(&def), opt = &def;
  if (opt->njobs < 2 || opt->nodes < 1 || opt->nodes > MORPH_WORKLOAD_SIZE_MAX ||
      !(opt->load >= 0) || !(opt->max_runtime >= 2) || opt->max_runtime > MORPH_WORKLOAD_TIME_MAX ||
      !(opt->serial >= 0) || opt->serial > 1)
    return morph__wl_fail(wl, MORPH_EINVAL, "lublin: need njobs >= 2, 1 <= nodes <= 1e6, "
                          "load >= 0, 2 <= max_runtime <= 1e9, serial in [0, 1]");
  int rc = opt->load > 0 ? reach_load(wl, opt) : draw(wl, opt, 1.0);
  /* Users' requests, after the load: the model draws them from the run
   * times, which the load does not change. */
  if (!rc && opt->estimates)
    rc = morph_workload_estimates_tsafrir(wl, fmax(3600.0, opt->max_runtime), opt->seed);
  if (rc) {
    morph_workload_clear(wl);
    return rc;
  }
  morph_workload_sort(wl);
  free(wl->name);
  wl->name = strdup("lublin");
  wl->nodes = opt->nodes;
  wl->errmsg[0] = '\0';
  return MORPH_OK;
}
