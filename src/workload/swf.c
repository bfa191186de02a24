/* Standard Workload Format v2.2 import (Parallel Workloads Archive). */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "rng.h"

#define SWF_FIELDS 18

static const char *const swf_field[SWF_FIELDS] = {
  "job number", "submit time", "wait time", "run time", "allocated processors",
  "average CPU time", "used memory", "requested processors", "requested time",
  "requested memory", "status", "user id", "group id", "executable number", "queue number",
  "partition number", "preceding job", "think time"};

void morph_swf_options_init(morph_swf_options *opt)
{
  memset(opt, 0, sizeof *opt);
  opt->units_per_node = 1;
  opt->seed = 1;
  opt->serial = 0.05;
  opt->min_factor = 0.25;
  opt->max_factor = 2.0;
  opt->data_bytes_per_unit = 1024.0 * 1024.0 * 1024.0;
}

typedef struct swf_ctx {
  morph_workload *wl;
  const morph_swf_options *opt;
  const char *path;
  int line;
  morph__rng rng;
  size_t records; /* data lines read: jobs and skipped records */
} swf_ctx;

static int fail_at(swf_ctx *c, int field, const char *why, const char *tok)
{
  return morph__wl_fail(c->wl, MORPH_EPARSE, "%s:%d: field %d (%s): %s%s%s%s", c->path, c->line,
                        field, swf_field[field - 1], why, tok ? " '" : "", tok ? tok : "",
                        tok ? "'" : "");
}

/* Splits a data line into its 18 numbers; names the first bad field. */
static int split_fields(swf_ctx *c, char *s, double *f)
{
  int n = 0;
  char *save = NULL;
  for (char *tok = strtok_r(s, " \t\r\n", &save); tok; tok = strtok_r(NULL, " \t\r\n", &save), n++) {
    char *end;
    errno = 0;
    double v = strtod(tok, &end);
    if (n >= SWF_FIELDS)
      return morph__wl_fail(c->wl, MORPH_EPARSE, "%s:%d: field %d: more than %d fields",
                            c->path, c->line, n + 1, SWF_FIELDS);
    if (*end || errno || !isfinite(v))
      return fail_at(c, n + 1, "not a number:", tok);
    f[n] = v;
  }
  if (n != SWF_FIELDS) {
    char why[48];
    snprintf(why, sizeof why, "missing (%d of %d fields)", n, SWF_FIELDS);
    return fail_at(c, n + 1, why, NULL);
  }
  return MORPH_OK;
}

/* Units of a record: allocated processors, else requested, over
 * units_per_node rounded up; 0 when neither is positive. Computed in
 * double: a trace may hold any number, int arithmetic would overflow. */
static double record_units(const swf_ctx *c, const double *f)
{
  double procs = f[4] > 0 ? f[4] : f[7];
  return procs > 0 ? ceil(procs / c->opt->units_per_node) : 0;
}

static int check_range(swf_ctx *c, const double *f, double units)
{
  char why[96];
  if (f[1] < 0)
    return fail_at(c, 2, "negative", NULL);
  if (f[1] > MORPH_WORKLOAD_TIME_MAX || f[3] > MORPH_WORKLOAD_TIME_MAX ||
      f[8] > MORPH_WORKLOAD_TIME_MAX) {
    snprintf(why, sizeof why, "above the limit of %g s", MORPH_WORKLOAD_TIME_MAX);
    return fail_at(c, f[1] > MORPH_WORKLOAD_TIME_MAX ? 2 : f[3] > MORPH_WORKLOAD_TIME_MAX ? 4 : 9,
                   why, NULL);
  }
  if (f[3] > 0 && f[3] < MORPH_WORKLOAD_TIME_MIN) {
    snprintf(why, sizeof why, "below the limit of %g s", MORPH_WORKLOAD_TIME_MIN);
    return fail_at(c, 4, why, NULL);
  }
  if (units > MORPH_WORKLOAD_SIZE_MAX) {
    snprintf(why, sizeof why, "%.0f units, above the limit of %d", units, MORPH_WORKLOAD_SIZE_MAX);
    return fail_at(c, f[4] > 0 ? 5 : 8, why, NULL);
  }
  return MORPH_OK;
}

static int clamp_size(int n, int max_size)
{
  return max_size > 0 && n > max_size ? max_size : n;
}

/* Turns one record into a job: an Amdahl model whose time at the traced
 * size is the traced run time, so a rigid replay reproduces the trace. */
static void record_to_job(swf_ctx *c, const double *f, int units, morph_wjob *job, char *name)
{
  const morph_swf_options *o = c->opt;
  int traced = units, n = clamp_size(units, o->max_size);
  double run = f[3];
  memset(job, 0, sizeof *job);
  job->model.type = MORPH_MODEL_AMDAHL;
  job->model.serial = o->serial;
  job->model.t1 = run / (o->serial + (1.0 - o->serial) / traced);
  job->model.scale = 1.0;
  job->model.data_bytes = o->data_bytes_per_unit * n;
  if (job->model.data_bytes > MORPH_WORKLOAD_DATA_MAX)
    job->model.data_bytes = MORPH_WORKLOAD_DATA_MAX;
  job->model.iterations = 100;
  job->submit = f[1];
  /* The request is for the traced size. A job that ran past it was not
   * killed there, so its limit was at least its run time. */
  job->walltime = f[8] > 0 ? fmax(f[8], run) : 0;
  job->line = c->line;
  job->app = "swf";
  snprintf(name, 32, "swf-%.0f", f[0]);
  job->name = name;
  int malleable = o->malleable_share > 0 && morph__rng_uniform(&c->rng) < o->malleable_share;
  int moldable = o->moldable && (malleable || !o->rest_fixed);
  job->kind = malleable ? MORPH_KIND_MALLEABLE : MORPH_KIND_FIXED;
  if (moldable)
    job->kind = malleable ? MORPH_KIND_FLEXIBLE : MORPH_KIND_MOLDABLE;
  job->pref = n;
  job->min = malleable || moldable ? (int)ceil(n * o->min_factor) : n;
  double max = malleable ? floor(n * o->max_factor) : n;
  job->max = clamp_size(max > MORPH_WORKLOAD_SIZE_MAX ? MORPH_WORKLOAD_SIZE_MAX : (int)max,
                        o->max_size);
  job->min = job->min < 1 ? 1 : job->min;
  job->max = job->max < n ? n : job->max;
  job->req_min = moldable ? job->min : n;
  job->req_max = n;
}

static int add_skip(swf_ctx *c, const double *f)
{
  morph_workload *wl = c->wl;
  if (wl->skipped == wl->skips_cap) {
    size_t cap = wl->skips_cap ? 2 * wl->skips_cap : 16;
    morph_wskip *v = realloc(wl->skips, cap * sizeof *v);
    if (!v)
      return morph__wl_fail(wl, MORPH_ENOMEM, "out of memory for skipped records");
    wl->skips = v;
    wl->skips_cap = cap;
  }
  morph_wskip *k = &wl->skips[wl->skipped++];
  snprintf(k->name, sizeof k->name, "swf-%.0f", f[0]);
  k->line = c->line;
  k->submit = f[1];
  return MORPH_OK;
}

static int add_record(swf_ctx *c, const double *f, int units)
{
  morph_wjob job;
  char name[32];
  record_to_job(c, f, units, &job, name);
  int rc = morph_workload_add(c->wl, &job);
  if (rc == MORPH_EEXIST)
    return morph__wl_fail(c->wl, MORPH_EPARSE, "%s:%d: field 1 (job number): %.0f is repeated",
                          c->path, c->line, f[0]);
  if (rc) {
    char keep[sizeof c->wl->errmsg];
    snprintf(keep, sizeof keep, "%s", c->wl->errmsg);
    morph__wl_fail(c->wl, rc == MORPH_ENOMEM ? rc : MORPH_EPARSE, "%s:%d: %s", c->path, c->line,
                   keep);
  }
  return rc == MORPH_OK || rc == MORPH_ENOMEM ? rc : MORPH_EPARSE;
}

static int parse_line(swf_ctx *c, char *s)
{
  double f[SWF_FIELDS];
  int rc = split_fields(c, s, f);
  double units = rc ? 0 : record_units(c, f);
  if (!rc)
    rc = check_range(c, f, units);
  if (rc)
    return rc;
  c->records++;
  if (f[3] <= 0 || units <= 0)
    return add_skip(c, f); /* cancelled before running: nothing to simulate */
  return add_record(c, f, (int)units);
}

static int check_options(morph_workload *wl, const morph_swf_options *o)
{
  if (o->units_per_node < 1 || o->malleable_share < 0 || o->malleable_share > 1 ||
      o->serial < 0 || o->serial > 1 || o->min_factor <= 0 || o->min_factor > 1 ||
      o->max_factor < 1 || o->max_size < 0 || o->limit < 0)
    return morph__wl_fail(wl, MORPH_EINVAL, "swf options out of range");
  return MORPH_OK;
}

/* A NUL byte means a binary file, not a damaged line to skip. */
static int check_text(swf_ctx *c, const char *buf, size_t len)
{
  const char *nul = memchr(buf, '\0', len);
  if (!nul)
    return MORPH_OK;
  return morph__wl_fail(c->wl, MORPH_EPARSE, "%s:%d: NUL byte at column %zu: not a text SWF "
                        "trace", c->path, c->line, (size_t)(nul - buf) + 1);
}

static int read_lines(swf_ctx *c, FILE *f)
{
  char *buf = NULL;
  size_t cap = 0;
  ssize_t len;
  int rc = MORPH_OK;
  while (!rc && (len = getline(&buf, &cap, f)) >= 0) {
    c->line++;
    rc = check_text(c, buf, (size_t)len);
    char *p = buf + strspn(buf, " \t\r\n");
    if (rc || *p == ';' || *p == '\0')
      continue;
    if (c->opt->limit && (long)c->wl->njobs >= c->opt->limit)
      break;
    rc = parse_line(c, p);
  }
  free(buf);
  if (!rc && ferror(f))
    rc = morph__wl_fail(c->wl, MORPH_EIO, "%s:%d: read error", c->path, c->line);
  if (!rc && c->records == 0)
    rc = morph__wl_fail(c->wl, MORPH_EPARSE, "%s:%d: no job record (only comments or blank "
                        "lines): not an SWF trace", c->path, c->line);
  return rc;
}

static int cmp_skip(const void *a, const void *b)
{
  const morph_wskip *x = a, *y = b;
  if (x->submit != y->submit)
    return x->submit < y->submit ? -1 : 1;
  return (x->line > y->line) - (x->line < y->line);
}

/* Submit times start at 0 at the earliest record, sorted or not; skipped
 * records follow the jobs' order (by time, then line). */
static void shift_submits(morph_workload *wl)
{
  if (wl->skipped > 1)
    qsort(wl->skips, wl->skipped, sizeof *wl->skips, cmp_skip);
  double t0 = INFINITY;
  for (size_t i = 0; i < wl->njobs; i++)
    t0 = wl->jobs[i].submit < t0 ? wl->jobs[i].submit : t0;
  for (size_t i = 0; i < wl->skipped; i++)
    t0 = wl->skips[i].submit < t0 ? wl->skips[i].submit : t0;
  for (size_t i = 0; i < wl->njobs; i++)
    wl->jobs[i].submit -= t0;
  for (size_t i = 0; i < wl->skipped; i++)
    wl->skips[i].submit -= t0;
}

int morph_workload_load_swf(morph_workload *wl, const char *path, const morph_swf_options *opt)
{
  morph_swf_options defaults;
  if (!wl || !path)
    return MORPH_EINVAL;
  if (!opt)
    morph_swf_options_init(&defaults), opt = &defaults;
  morph_workload_clear(wl);
  if (check_options(wl, opt))
    return MORPH_EINVAL;
  FILE *f = fopen(path, "r");
  if (!f)
    return morph__wl_fail(wl, MORPH_EIO, "%s: cannot read: %s", path, strerror(errno));
  swf_ctx c = {.wl = wl, .opt = opt, .path = path};
  morph__rng_seed(&c.rng, opt->seed);
  int rc = read_lines(&c, f);
  fclose(f);
  if (rc) {
    morph_workload_clear(wl);
    return rc;
  }
  free(wl->name);
  const char *base = strrchr(path, '/');
  wl->name = strdup(base ? base + 1 : path);
  shift_submits(wl);
  morph_workload_sort(wl);
  wl->errmsg[0] = '\0';
  return MORPH_OK;
}

static void write_record(FILE *out, long number, double submit, double run, int procs,
                         double walltime)
{
  /* SWF holds whole seconds: times are rounded (a run time to at least 1,
   * a request up, never below the run time). */
  double r = run > 0 ? fmax(1.0, round(run)) : -1.0;
  double w = walltime > 0 ? fmax(r, ceil(walltime)) : -1.0;
  fprintf(out, "%ld %.0f -1 %.0f %d -1 -1 %d %.0f -1 %d -1 -1 -1 -1 -1 -1 -1\n", number,
          floor(submit), r, procs, procs, w, run > 0 ? 1 : 5);
}

int morph_workload_write_swf(const morph_workload *wl, FILE *out, const char *comment)
{
  if (!wl || !out)
    return MORPH_EINVAL;
  fprintf(out, "; Version: 2.2\n; Computer: morph workload %s\n; MaxJobs: %zu\n",
          wl->name ? wl->name : "", wl->njobs + wl->skipped);
  if (comment)
    fprintf(out, "; Note: %s\n", comment);
  size_t k = 0;
  for (size_t i = 0; i < wl->njobs; i++) {
    const morph_wjob *j = &wl->jobs[i];
    for (; k < wl->skipped && wl->skips[k].submit <= j->submit; k++)
      write_record(out, (long)(i + k + 1), wl->skips[k].submit, -1, -1, 0);
    write_record(out, (long)(i + k + 1), j->submit, morph_model_time(&j->model, j->req_max),
                 j->req_max, j->walltime);
  }
  for (; k < wl->skipped; k++)
    write_record(out, (long)(wl->njobs + k + 1), wl->skips[k].submit, -1, -1, 0);
  return ferror(out) ? MORPH_EIO : MORPH_OK;
}
