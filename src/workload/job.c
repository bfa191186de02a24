/* Workload objects: jobs, kinds, the list and its checks. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "names.h"

static const char *const kind_names[MORPH_KIND_COUNT] = {"fixed", "moldable", "malleable",
                                                         "flexible"};

const char *morph_job_kind_name(morph_job_kind kind)
{
  return (unsigned)kind < MORPH_KIND_COUNT ? kind_names[kind] : "?";
}

int morph_job_kind_parse(const char *name, morph_job_kind *kind)
{
  if (!name || !kind)
    return MORPH_EINVAL;
  if (!strncmp(name, "pure-", 5))
    name += 5;
  for (int k = 0; k < MORPH_KIND_COUNT; k++)
    if (!strcmp(name, kind_names[k])) {
      *kind = (morph_job_kind)k;
      return MORPH_OK;
    }
  if (!strcmp(name, "rigid")) {
    *kind = MORPH_KIND_FIXED;
    return MORPH_OK;
  }
  return MORPH_EINVAL;
}

int morph_job_kind_malleable(morph_job_kind kind)
{
  return kind == MORPH_KIND_MALLEABLE || kind == MORPH_KIND_FLEXIBLE;
}

int morph_job_kind_moldable(morph_job_kind kind)
{
  return kind == MORPH_KIND_MOLDABLE || kind == MORPH_KIND_FLEXIBLE;
}

int morph__wl_fail(morph_workload *wl, int err, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(wl->errmsg, sizeof wl->errmsg, fmt, ap);
  va_end(ap);
  return err;
}

int morph_workload_create(morph_workload **out)
{
  if (!out)
    return MORPH_EINVAL;
  *out = calloc(1, sizeof **out);
  return *out ? MORPH_OK : MORPH_ENOMEM;
}

void morph__wjob_free(morph_wjob *job)
{
  free(job->name);
  free(job->app);
  for (int i = 0; i < job->argc; i++)
    free(job->argv[i]);
  free(job->argv);
  free(job->matrix);
  job->name = job->app = job->matrix = NULL;
  job->argv = NULL;
  job->argc = 0;
}

void morph_workload_clear(morph_workload *wl)
{
  for (size_t i = 0; i < wl->njobs; i++)
    morph__wjob_free(&wl->jobs[i]);
  wl->njobs = 0;
  wl->skipped = 0;
  morph__names_free(wl);
}

void morph_workload_destroy(morph_workload *wl)
{
  if (!wl)
    return;
  morph_workload_clear(wl);
  free(wl->jobs);
  free(wl->skips);
  free(wl->name);
  free(wl);
}

const char *morph_workload_errmsg(const morph_workload *wl)
{
  return wl ? wl->errmsg : "no workload";
}

int morph__wjob_validate(const morph_wjob *job, char *why, size_t len)
{
  if (!(job->submit >= 0) || job->submit > MORPH_WORKLOAD_TIME_MAX)
    return snprintf(why, len, "submit: must be a time in 0..%g s", MORPH_WORKLOAD_TIME_MAX),
           MORPH_EINVAL;
  if ((unsigned)job->kind >= MORPH_KIND_COUNT)
    return snprintf(why, len, "kind: unknown kind"), MORPH_EINVAL;
  /* Limits first: a default request is derived from them. */
  if (job->min < 1 || job->pref < job->min || job->max < job->pref)
    return snprintf(why, len, "min/pref/max: need 1 <= min <= pref <= max (got %d/%d/%d)",
                    job->min, job->pref, job->max), MORPH_EINVAL;
  if (job->req_min < 1 || job->req_max < job->req_min)
    return snprintf(why, len, "request: need 1 <= min <= max (got %d-%d)", job->req_min,
                    job->req_max), MORPH_EINVAL;
  if (job->max > MORPH_WORKLOAD_SIZE_MAX || job->req_max > MORPH_WORKLOAD_SIZE_MAX)
    return snprintf(why, len, "%s: sizes are limited to %d units (got %d)",
                    job->max > MORPH_WORKLOAD_SIZE_MAX ? "max" : "request",
                    MORPH_WORKLOAD_SIZE_MAX, job->max > job->req_max ? job->max : job->req_max),
           MORPH_EINVAL;
  if (!morph_job_kind_moldable(job->kind) && job->req_min != job->req_max)
    return snprintf(why, len, "request: a %s job is submitted rigid (one size), got %d-%d",
                    morph_job_kind_name(job->kind), job->req_min, job->req_max), MORPH_EINVAL;
  if (!(job->walltime >= 0) || job->walltime > MORPH_WORKLOAD_TIME_MAX)
    return snprintf(why, len, "walltime: must be a time in 0..%g s (0: none)",
                    MORPH_WORKLOAD_TIME_MAX), MORPH_EINVAL;
  char mwhy[160];
  if (morph_model_check(&job->model, mwhy, sizeof mwhy) != MORPH_OK)
    return snprintf(why, len, "model: %s", mwhy), MORPH_EINVAL;
  return MORPH_OK;
}

static char *dup_or_null(const char *s)
{
  return s ? strdup(s) : NULL;
}

static int copy_strings(morph_wjob *dst, const morph_wjob *src, size_t index)
{
  char fallback[32];
  snprintf(fallback, sizeof fallback, "job-%zu", index);
  dst->name = strdup(src->name ? src->name : fallback);
  dst->app = strdup(src->app ? src->app : "generic");
  dst->argv = calloc((size_t)src->argc + 1, sizeof *dst->argv);
  dst->argc = 0;
  dst->matrix = dup_or_null(src->matrix);
  if (!dst->name || !dst->app || !dst->argv || (src->matrix && !dst->matrix))
    return MORPH_ENOMEM;
  for (int i = 0; i < src->argc; i++, dst->argc++)
    if (!(dst->argv[i] = dup_or_null(src->argv[i])))
      return MORPH_ENOMEM;
  return MORPH_OK;
}

static int grow(morph_workload *wl)
{
  if (wl->njobs < wl->cap)
    return MORPH_OK;
  size_t cap = wl->cap ? wl->cap * 2 : 64;
  morph_wjob *v = realloc(wl->jobs, cap * sizeof *v);
  if (!v)
    return MORPH_ENOMEM;
  wl->jobs = v;
  wl->cap = cap;
  return MORPH_OK;
}

int morph_workload_add(morph_workload *wl, const morph_wjob *job)
{
  char why[256];
  if (!wl || !job)
    return MORPH_EINVAL;
  if (morph__wjob_validate(job, why, sizeof why) != MORPH_OK)
    return morph__wl_fail(wl, MORPH_EINVAL, "job %s: %s", job->name ? job->name : "?", why);
  /* Names are checked only when given: generated ones are unique by index
   * unless a file uses "job-<n>" itself, which load_json catches. */
  if (job->name && morph_workload_find(wl, job->name) >= 0)
    return morph__wl_fail(wl, MORPH_EEXIST, "job %s: name already used", job->name);
  if (grow(wl) != MORPH_OK)
    return morph__wl_fail(wl, MORPH_ENOMEM, "out of memory adding a job");
  morph_wjob *dst = &wl->jobs[wl->njobs];
  *dst = *job;
  if (copy_strings(dst, job, wl->njobs) != MORPH_OK) {
    morph__wjob_free(dst);
    return morph__wl_fail(wl, MORPH_ENOMEM, "out of memory adding a job");
  }
  wl->njobs++;
  if (morph__names_add(wl, wl->njobs - 1) != MORPH_OK)
    morph__names_free(wl); /* find() falls back to a linear search */
  wl->errmsg[0] = '\0';
  return MORPH_OK;
}

long morph_workload_find(const morph_workload *wl, const char *name)
{
  long hit = wl && name ? morph__names_find(wl, name) : -1;
  if (hit != -2)
    return hit;
  for (size_t i = 0; wl && name && i < wl->njobs; i++)
    if (!strcmp(wl->jobs[i].name, name))
      return (long)i;
  return -1;
}

/* Stable merge sort on submit time: qsort is not stable and file order must
 * break ties so that runs are reproducible. */
static void merge_sort(morph_wjob *v, morph_wjob *tmp, size_t n)
{
  if (n < 2)
    return;
  size_t h = n / 2, i = 0, j = h, k = 0;
  merge_sort(v, tmp, h);
  merge_sort(v + h, tmp, n - h);
  while (i < h && j < n)
    tmp[k++] = v[j].submit < v[i].submit ? v[j++] : v[i++];
  while (i < h)
    tmp[k++] = v[i++];
  while (j < n)
    tmp[k++] = v[j++];
  memcpy(v, tmp, n * sizeof *v);
}

void morph_workload_sort(morph_workload *wl)
{
  morph_wjob *tmp = malloc(wl->njobs * sizeof *tmp + 1);
  if (tmp)
    merge_sort(wl->jobs, tmp, wl->njobs);
  free(tmp);
  if (morph__names_rebuild(wl) != MORPH_OK)
    morph__names_free(wl);
}

static int cap(int v, int max_size)
{
  return v > max_size ? max_size : v;
}

size_t morph_workload_cap_sizes(morph_workload *wl, int max_size)
{
  size_t cut = 0;
  for (size_t i = 0; wl && max_size > 0 && i < wl->njobs; i++) {
    morph_wjob *j = &wl->jobs[i];
    if (j->req_max > max_size && cut++ == 0)
      morph__wl_fail(wl, MORPH_OK, "%s (line %d) asked for %d units", j->name, j->line,
                     j->req_max);
    /* Its limit was for the size it asked for: at the cut size it runs
     * longer, at most by the ratio of sizes. */
    if (j->req_max > max_size && j->walltime > 0)
      j->walltime = fmin(j->walltime * j->req_max / max_size, MORPH_WORKLOAD_TIME_MAX);
    j->req_min = cap(j->req_min, max_size);
    j->req_max = cap(j->req_max, max_size);
    j->max = cap(j->max, max_size);
    j->pref = cap(j->pref, j->max);
    j->min = cap(j->min, j->pref);
  }
  return cut;
}

int morph_workload_set_inhibit(morph_workload *wl, double seconds)
{
  if (!wl || !(seconds >= 0) || seconds > MORPH_WORKLOAD_TIME_MAX)
    return MORPH_EINVAL;
  for (size_t i = 0; i < wl->njobs; i++)
    wl->jobs[i].model.inhibit_s = seconds;
  return MORPH_OK;
}

int morph_wjob_fits(const morph_wjob *job, int n)
{
  return job->req_min <= n;
}

int morph_workload_check(morph_workload *wl, int n, morph_impossible policy, size_t *nbad)
{
  size_t bad = 0;
  long first = -1;
  for (size_t i = 0; i < wl->njobs; i++)
    if (!morph_wjob_fits(&wl->jobs[i], n)) {
      if (first < 0)
        first = (long)i;
      bad++;
    }
  if (nbad)
    *nbad = bad;
  if (!bad)
    return MORPH_OK;
  const morph_wjob *j = &wl->jobs[first];
  morph__wl_fail(wl, MORPH_ESIZE, "%zu job(s) can never run on %d units; first: %s (line %d) "
                 "requests at least %d", bad, n, j->name, j->line, j->req_min);
  return policy == MORPH_IMPOSSIBLE_REJECT ? MORPH_ESIZE : MORPH_OK;
}

int morph__wjob_from_app(morph_wjob *job, const char *app, morph_job_kind kind, int max_size)
{
  morph_app_info info;
  if (morph_app_lookup(app, &info) != MORPH_OK)
    return MORPH_ENOENT;
  int cap = max_size > 0 ? max_size : info.max;
  job->kind = kind;
  job->max = info.max < cap ? info.max : cap;
  job->min = info.min < job->max ? info.min : job->max;
  job->pref = info.pref < job->max ? info.pref : job->max;
  int rigid = info.rigid < cap ? info.rigid : cap;
  job->req_min = morph_job_kind_moldable(kind) ? job->min : rigid;
  job->req_max = morph_job_kind_moldable(kind) ? job->max : rigid;
  job->model = info.model;
  return MORPH_OK;
}
