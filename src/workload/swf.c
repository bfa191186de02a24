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
  double t0;
  int have_t0;
} swf_ctx;

/* Splits a data line into its 18 numbers; names the first bad field. */
static int split_fields(swf_ctx *c, char *s, double *f)
{
  int n = 0;
  for (char *tok = strtok(s, " \t\r\n"); tok; tok = strtok(NULL, " \t\r\n"), n++) {
    char *end;
    errno = 0;
    double v = strtod(tok, &end);
    if (n >= SWF_FIELDS)
      return morph__wl_fail(c->wl, MORPH_EPARSE, "%s:%d: field %d: more than %d fields",
                            c->path, c->line, n + 1, SWF_FIELDS);
    if (*end || errno || !isfinite(v))
      return morph__wl_fail(c->wl, MORPH_EPARSE, "%s:%d: field %d (%s): not a number: '%s'",
                            c->path, c->line, n + 1, swf_field[n], tok);
    f[n] = v;
  }
  if (n != SWF_FIELDS)
    return morph__wl_fail(c->wl, MORPH_EPARSE, "%s:%d: field %d (%s): missing (%d of %d fields)",
                          c->path, c->line, n + 1, swf_field[n], n, SWF_FIELDS);
  return MORPH_OK;
}

static int clamp_size(int n, int max_size)
{
  return max_size > 0 && n > max_size ? max_size : n;
}

/* Turns one record into a job: an Amdahl model whose time at the traced
 * size is the traced run time, so a rigid replay reproduces the trace. */
static void record_to_job(swf_ctx *c, const double *f, int procs, morph_wjob *job, char *name)
{
  const morph_swf_options *o = c->opt;
  /* Rounded up without procs + units - 1, which overflows near INT_MAX. */
  int n = procs / o->units_per_node + (procs % o->units_per_node != 0);
  n = clamp_size(n, o->max_size);
  if (n < 1)
    n = 1;
  double run = f[3];
  memset(job, 0, sizeof *job);
  job->model.type = MORPH_MODEL_AMDAHL;
  job->model.serial = o->serial;
  job->model.t1 = run / (o->serial + (1.0 - o->serial) / n);
  job->model.scale = 1.0;
  job->model.data_bytes = o->data_bytes_per_unit * n;
  job->model.iterations = 100;
  job->submit = f[1] - c->t0;
  job->line = c->line;
  job->app = "swf";
  snprintf(name, 32, "swf-%.0f", f[0]);
  job->name = name;
  int malleable = o->malleable_share > 0 && morph__rng_uniform(&c->rng) < o->malleable_share;
  job->kind = malleable ? MORPH_KIND_MALLEABLE : MORPH_KIND_FIXED;
  if (o->moldable)
    job->kind = malleable ? MORPH_KIND_FLEXIBLE : MORPH_KIND_MOLDABLE;
  job->pref = n;
  job->min = malleable || o->moldable ? (int)ceil(n * o->min_factor) : n;
  double max = floor(n * o->max_factor); /* may exceed INT_MAX before the cap */
  job->max = malleable ? clamp_size(max > INT_MAX ? INT_MAX : (int)max, o->max_size) : n;
  job->min = job->min < 1 ? 1 : job->min;
  job->max = job->max < n ? n : job->max;
  job->req_min = o->moldable ? job->min : n;
  job->req_max = n;
}

static int parse_line(swf_ctx *c, char *s)
{
  double f[SWF_FIELDS];
  int rc = split_fields(c, s, f);
  if (rc)
    return rc;
  if (f[1] < 0)
    return morph__wl_fail(c->wl, MORPH_EPARSE, "%s:%d: field 2 (submit time): negative",
                          c->path, c->line);
  int k = f[4] > 0 ? 4 : 7; /* allocated processors, else requested */
  if (f[k] > INT_MAX)
    return morph__wl_fail(c->wl, MORPH_EPARSE, "%s:%d: field %d (%s): more than %d", c->path,
                          c->line, k + 1, swf_field[k], INT_MAX);
  int procs = (int)f[k];
  if (f[3] <= 0 || procs <= 0) {
    c->wl->skipped++; /* cancelled before running: nothing to simulate */
    return MORPH_OK;
  }
  if (!c->have_t0) {
    c->t0 = f[1];
    c->have_t0 = 1;
  }
  morph_wjob job;
  char name[32];
  record_to_job(c, f, procs, &job, name);
  rc = morph_workload_add(c->wl, &job);
  if (rc == MORPH_EEXIST)
    rc = morph__wl_fail(c->wl, MORPH_EPARSE, "%s:%d: field 1 (job number): %.0f is repeated",
                        c->path, c->line, f[0]);
  return rc;
}

static int check_options(morph_workload *wl, const morph_swf_options *o)
{
  if (o->units_per_node < 1 || o->malleable_share < 0 || o->malleable_share > 1 ||
      o->serial < 0 || o->serial > 1 || o->min_factor <= 0 || o->min_factor > 1 ||
      o->max_factor < 1 || o->max_size < 0 || o->limit < 0)
    return morph__wl_fail(wl, MORPH_EINVAL, "swf options out of range");
  return MORPH_OK;
}

static int read_lines(swf_ctx *c, FILE *f)
{
  char buf[4096];
  int rc = MORPH_OK;
  while (!rc && fgets(buf, sizeof buf, f)) {
    c->line++;
    char *p = buf + strspn(buf, " \t");
    if (*p == ';' || *p == '\n' || *p == '\r' || *p == '\0')
      continue;
    if (c->opt->limit && (long)c->wl->njobs >= c->opt->limit)
      break;
    rc = parse_line(c, p);
  }
  return rc;
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
  swf_ctx c = {wl, opt, path, 0, {{0}}, 0, 0};
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
  morph_workload_sort(wl);
  wl->errmsg[0] = '\0';
  return MORPH_OK;
}
