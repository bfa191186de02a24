/* Reports: job records and the totals defined in morph/report.h. */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

void morph_report_config_init(morph_report_config *cfg)
{
  memset(cfg, 0, sizeof *cfg);
  cfg->unit_name = "nodes";
  cfg->idle_w = 100.0;
  cfg->loaded_w = 340.0;
  cfg->interval = 60.0;
}

static int fail(morph_report *rep, int err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(morph_report *rep, int err, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(rep->errmsg, sizeof rep->errmsg, fmt, ap);
  va_end(ap);
  return err;
}

int morph_report_create(const morph_report_config *cfg, morph_report **out)
{
  if (!out)
    return MORPH_EINVAL;
  *out = NULL;
  if (!cfg || cfg->units <= 0 || cfg->idle_w < 0 || cfg->loaded_w < 0 || !(cfg->interval > 0))
    return MORPH_EINVAL;
  morph_report *rep = calloc(1, sizeof *rep);
  if (!rep)
    return MORPH_ENOMEM;
  rep->cfg = *cfg;
  snprintf(rep->unit_name, sizeof rep->unit_name, "%s", cfg->unit_name ? cfg->unit_name : "nodes");
  snprintf(rep->title, sizeof rep->title, "%s", cfg->title ? cfg->title : "workload");
  rep->cfg.unit_name = rep->unit_name;
  rep->cfg.title = rep->title;
  *out = rep;
  return MORPH_OK;
}

void morph_report_destroy(morph_report *rep)
{
  if (!rep)
    return;
  for (size_t i = 0; i < rep->njobs; i++) {
    free(rep->jobs[i].name);
    free(rep->jobs[i].app);
    free(rep->jobs[i].seg);
  }
  free(rep->jobs);
  free(rep);
}

const char *morph_report_errmsg(const morph_report *rep)
{
  return rep ? rep->errmsg : "no report";
}

size_t morph_report_count(const morph_report *rep)
{
  return rep ? rep->njobs : 0;
}

static int check_record(morph_report *rep, const morph_job_record *j)
{
  const char *n = j->name ? j->name : "?";
  int ran = j->state == MORPH_JOB_COMPLETED || j->state == MORPH_JOB_FAILED;
  if ((unsigned)j->kind >= MORPH_KIND_COUNT || (unsigned)j->state > MORPH_JOB_UNFINISHED)
    return fail(rep, MORPH_EINVAL, "job %s: unknown kind or state", n);
  if (j->state == MORPH_JOB_COMPLETED && (j->start < j->submit || j->end < j->start))
    return fail(rep, MORPH_EINVAL, "job %s: need submit <= start <= end", n);
  if (ran && j->nseg && !j->seg)
    return fail(rep, MORPH_EINVAL, "job %s: segments missing", n);
  for (size_t i = 0; ran && i < j->nseg; i++) {
    if (j->seg[i].size < 0 || j->seg[i].size > rep->cfg.units)
      return fail(rep, MORPH_EINVAL, "job %s: segment %zu: size %d outside 0..%d", n, i,
                  j->seg[i].size, rep->cfg.units);
    if (i > 0 && j->seg[i].t < j->seg[i - 1].t)
      return fail(rep, MORPH_EINVAL, "job %s: segment %zu: not in time order", n, i);
  }
  return MORPH_OK;
}

static int copy_record(morph__rjob *d, const morph_job_record *j)
{
  memset(d, 0, sizeof *d);
  int ran = j->state == MORPH_JOB_COMPLETED || j->state == MORPH_JOB_FAILED;
  d->name = strdup(j->name ? j->name : "?");
  d->app = strdup(j->app ? j->app : "");
  d->nseg = ran ? j->nseg : 0;
  d->seg = d->nseg ? malloc(d->nseg * sizeof *d->seg) : NULL;
  if (!d->name || !d->app || (d->nseg && !d->seg)) {
    free(d->name), free(d->app), free(d->seg);
    return MORPH_ENOMEM;
  }
  if (d->nseg)
    memcpy(d->seg, j->seg, d->nseg * sizeof *d->seg);
  d->kind = j->kind;
  d->state = j->state;
  d->submit = j->submit;
  d->start = j->start;
  d->end = j->end;
  d->resizes = j->resizes;
  return MORPH_OK;
}

int morph_report_add(morph_report *rep, const morph_job_record *job)
{
  if (!rep || !job)
    return MORPH_EINVAL;
  int rc = check_record(rep, job);
  if (rc)
    return rc;
  if (rep->njobs == rep->cap) {
    size_t cap = rep->cap ? rep->cap * 2 : 256;
    morph__rjob *v = realloc(rep->jobs, cap * sizeof *v);
    if (!v)
      return fail(rep, MORPH_ENOMEM, "out of memory");
    rep->jobs = v;
    rep->cap = cap;
  }
  if (copy_record(&rep->jobs[rep->njobs], job) != MORPH_OK)
    return fail(rep, MORPH_ENOMEM, "out of memory");
  rep->njobs++;
  return MORPH_OK;
}

int morph__rjob_ran(const morph__rjob *j)
{
  return j->state == MORPH_JOB_COMPLETED || j->state == MORPH_JOB_FAILED;
}

double morph__rjob_unit_seconds(const morph__rjob *j)
{
  double sum = 0;
  if (!morph__rjob_ran(j))
    return 0;
  for (size_t i = 0; i < j->nseg; i++) {
    double until = i + 1 < j->nseg ? j->seg[i + 1].t : j->end;
    if (until > j->seg[i].t)
      sum += (until - j->seg[i].t) * j->seg[i].size;
  }
  return sum;
}

static void avg_add(morph_report_avg *a, const morph__rjob *j)
{
  a->jobs++;
  a->wait += j->start - j->submit;
  a->exec += j->end - j->start;
  a->completion += j->end - j->submit;
  double exec = j->end - j->start, floor = exec > MORPH_REPORT_BSLD_TAU ? exec : MORPH_REPORT_BSLD_TAU;
  double sld = (j->end - j->submit) / floor;
  a->bsld += sld > 1 ? sld : 1;
}

static void avg_finish(morph_report_avg *a)
{
  if (!a->jobs)
    return;
  a->wait /= (double)a->jobs;
  a->exec /= (double)a->jobs;
  a->completion /= (double)a->jobs;
  a->bsld /= (double)a->jobs;
}

static void count_job(morph_report_totals *t, const morph__rjob *j, int *have)
{
  if (j->state == MORPH_JOB_COMPLETED) {
    t->completed++;
    avg_add(&t->all, j);
    avg_add(&t->kind[j->kind], j);
  }
  t->skipped += j->state == MORPH_JOB_SKIPPED;
  t->failed += j->state == MORPH_JOB_FAILED;
  t->unfinished += j->state == MORPH_JOB_UNFINISHED;
  if (!morph__rjob_ran(j))
    return;
  t->busy_unit_s += morph__rjob_unit_seconds(j);
  t->resizes += (size_t)(j->resizes > 0 ? j->resizes : 0);
  if (!*have || j->submit < t->first_submit)
    t->first_submit = j->submit;
  if (!*have || j->end > t->last_end)
    t->last_end = j->end;
  *have = 1;
}

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The 95th percentile of the completed jobs' waits of one kind (all kinds
 * when kind < 0), nearest rank; w has room for every job. */
static double wait_p95(const morph_report *rep, int kind, double *w)
{
  size_t n = 0;
  for (size_t i = 0; i < rep->njobs; i++) {
    const morph__rjob *j = &rep->jobs[i];
    if (j->state == MORPH_JOB_COMPLETED && (kind < 0 || (int)j->kind == kind))
      w[n++] = j->start - j->submit;
  }
  if (n == 0)
    return 0;
  qsort(w, n, sizeof *w, cmp_double);
  size_t rank = (size_t)ceil(0.95 * (double)n);
  return w[rank > 0 ? rank - 1 : 0];
}

static void percentiles(const morph_report *rep, morph_report_totals *t)
{
  double *w = malloc((rep->njobs ? rep->njobs : 1) * sizeof *w);
  if (!w)
    return; /* the averages stand; percentiles stay 0 */
  t->all.wait_p95 = wait_p95(rep, -1, w);
  for (int k = 0; k < MORPH_KIND_COUNT; k++)
    t->kind[k].wait_p95 = wait_p95(rep, k, w);
  free(w);
}

void morph_report_totals_get(const morph_report *rep, morph_report_totals *t)
{
  memset(t, 0, sizeof *t);
  int have = 0;
  for (size_t i = 0; i < rep->njobs; i++)
    count_job(t, &rep->jobs[i], &have);
  t->jobs = rep->njobs;
  avg_finish(&t->all);
  for (int k = 0; k < MORPH_KIND_COUNT; k++)
    avg_finish(&t->kind[k]);
  percentiles(rep, t);
  t->makespan = have ? t->last_end - t->first_submit : 0;
  double capacity = (double)rep->cfg.units * t->makespan;
  if (t->makespan > 0) {
    t->throughput = (double)t->completed / t->makespan;
    t->allocation_rate = t->busy_unit_s / capacity;
  }
  t->energy_j = rep->cfg.loaded_w * t->busy_unit_s + rep->cfg.idle_w * (capacity - t->busy_unit_s);
  t->energy_kwh = t->energy_j / 3.6e6;
}

static double ratio(double num, double den)
{
  return den > 0 ? num / den : 0;
}

void morph_report_speedup_get(const morph_report_totals *a, const morph_report_totals *b,
                              morph_report_speedup *out)
{
  out->wait = ratio(a->all.wait, b->all.wait);
  out->exec = ratio(a->all.exec, b->all.exec);
  out->completion = ratio(a->all.completion, b->all.completion);
  out->makespan = ratio(a->makespan, b->makespan);
  out->throughput = ratio(b->throughput, a->throughput);
  out->energy_ratio = ratio(b->energy_j, a->energy_j);
}
