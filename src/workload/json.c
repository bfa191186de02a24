/* The JSON workload format (docs/workload.md): reading and writing. */
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "jsonpos.h"
#include "morph/prof.h"

/* What a job parser needs to name a bad field precisely. */
typedef struct jctx {
  morph_workload *wl;
  const char *origin, *text;
  const morph__span *span; /* NULL when the scanner found no span */
  size_t index;
  const char *prefix;   /* "model." inside the model object, else "" */
  const char *line_key; /* key whose line is reported, NULL: the field's */
} jctx;

static int field_fail(jctx *c, const char *key, const char *fmt, const char *detail)
{
  const char *at = c->line_key ? c->line_key : key;
  int line = c->span ? morph__json_key_line(c->text, c->span, at) : 0;
  char why[256];
  snprintf(why, sizeof why, fmt, detail ? detail : "");
  return morph__wl_fail(c->wl, MORPH_EPARSE, "%s:%d: jobs[%zu].%s%s: %s", c->origin, line,
                        c->index, c->prefix ? c->prefix : "", key, why);
}

static int get_int(jctx *c, json_t *o, const char *key, int *out)
{
  json_t *v = json_object_get(o, key);
  if (!v)
    return MORPH_OK;
  if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > INT_MAX)
    return field_fail(c, key, "expected a non-negative integer%s", NULL);
  *out = (int)json_integer_value(v);
  return MORPH_OK;
}

static int get_num(jctx *c, json_t *o, const char *key, double *out)
{
  json_t *v = json_object_get(o, key);
  if (!v)
    return MORPH_OK;
  if (!json_is_number(v) || json_number_value(v) < 0)
    return field_fail(c, key, "expected a number >= 0%s", NULL);
  *out = json_number_value(v);
  return MORPH_OK;
}

/* Rejects unknown keys (a typo must not silently fall back to a default).
 * The error names the unknown key, on its line (inside the model: on the
 * line of "model"). */
static int check_keys(jctx *c, json_t *o, const char *const *allowed)
{
  const char *key;
  json_t *v;
  json_object_foreach(o, key, v) {
    int ok = !strcmp(key, "comment");
    for (size_t i = 0; allowed[i] && !ok; i++)
      ok = !strcmp(key, allowed[i]);
    if (!ok) {
      return field_fail(c, key, "unknown field%s", "");
    }
  }
  return MORPH_OK;
}

/* "N" or "MIN-MAX" as numbers (strtoll: no overflow for long digits). */
static int request_text(const char *s, long long *lo, long long *hi)
{
  char *end;
  errno = 0;
  *lo = *hi = strtoll(s, &end, 10);
  if (*end == '-' && end > s)
    *hi = strtoll(end + 1, &end, 10);
  return errno || *end || end == s ? -1 : 0;
}

static int parse_request(jctx *c, json_t *v, morph_wjob *job)
{
  long long lo = 0, hi = 0;
  if (json_is_integer(v)) {
    lo = hi = json_integer_value(v);
  } else if (json_is_string(v)) {
    if (request_text(json_string_value(v), &lo, &hi))
      return field_fail(c, "request", "expected N or \"MIN-MAX\", got '%s'",
                        json_string_value(v));
  } else if (json_is_array(v) && json_array_size(v) == 2 &&
             json_is_integer(json_array_get(v, 0)) && json_is_integer(json_array_get(v, 1))) {
    lo = json_integer_value(json_array_get(v, 0));
    hi = json_integer_value(json_array_get(v, 1));
  } else {
    return field_fail(c, "request", "expected N, \"MIN-MAX\" or [MIN, MAX]%s", NULL);
  }
  if (lo < 1 || hi < lo)
    return field_fail(c, "request", "need 1 <= MIN <= MAX%s", NULL);
  if (hi > MORPH_WORKLOAD_SIZE_MAX)
    return field_fail(c, "request", "sizes are limited to 1000000 units%s", NULL);
  job->req_min = (int)lo;
  job->req_max = (int)hi;
  return MORPH_OK;
}

static int parse_args(jctx *c, json_t *v, morph_wjob *job, char ***argv)
{
  if (!json_is_array(v))
    return field_fail(c, "args", "expected an array of strings%s", NULL);
  size_t n = json_array_size(v);
  *argv = calloc(n + 1, sizeof **argv);
  if (!*argv)
    return morph__wl_fail(c->wl, MORPH_ENOMEM, "out of memory");
  for (size_t i = 0; i < n; i++) {
    json_t *a = json_array_get(v, i);
    if (!json_is_string(a))
      return field_fail(c, "args", "element %s is not a string", NULL);
    (*argv)[i] = (char *)json_string_value(a); /* borrowed until add copies */
  }
  job->argc = (int)n;
  job->argv = *argv;
  return MORPH_OK;
}

/* "matrix": a Matrix Market file, relative to the workload file's folder
 * (a string workload: to the current folder), read now so that a missing
 * or malformed matrix is an error of the workload, at its line. Its
 * absolute path (a saved workload loads back from anywhere) goes to buf
 * (PATH_MAX bytes), borrowed by the job until add copies it. */
static int parse_matrix(jctx *c, json_t *v, morph_wjob *job, char *buf)
{
  if (!json_is_string(v) || !*json_string_value(v))
    return field_fail(c, "matrix", "expected the path of a Matrix Market file%s", NULL);
  const char *s = json_string_value(v), *slash = strrchr(c->origin, '/');
  int dir = s[0] != '/' && slash ? (int)(slash - c->origin) : -1;
  int n = dir >= 0 ? snprintf(buf, PATH_MAX, "%.*s/%s", dir, c->origin, s)
                   : snprintf(buf, PATH_MAX, "%s", s);
  if (n < 0 || n >= PATH_MAX)
    return field_fail(c, "matrix", "path too long%s", NULL);
  morph_comm_matrix *m;
  if (morph_comm_matrix_create(0, &m) != MORPH_OK)
    return morph__wl_fail(c->wl, MORPH_ENOMEM, "out of memory");
  int rc = morph_comm_matrix_load(m, buf, MORPH_CM_BYTES);
  if (rc != MORPH_OK)
    rc = field_fail(c, "matrix", "%s", morph_comm_matrix_errmsg(m));
  morph_comm_matrix_destroy(m);
  char abs[PATH_MAX];
  if (rc == MORPH_OK && realpath(buf, abs))
    memcpy(buf, abs, strlen(abs) + 1);
  job->matrix = buf;
  return rc;
}

static int parse_table(jctx *c, json_t *m, morph_model *model)
{
  json_t *sz = json_object_get(m, "sizes"), *tm = json_object_get(m, "times");
  if (!json_is_array(sz) || !json_is_array(tm) || json_array_size(sz) != json_array_size(tm) ||
      json_array_size(sz) < 1 || json_array_size(sz) > MORPH_MODEL_TABLE_MAX)
    return field_fail(c, "model", "table needs arrays sizes and times of equal length 1..16%s",
                      NULL);
  model->table_len = (int)json_array_size(sz);
  for (int i = 0; i < model->table_len; i++) {
    json_t *a = json_array_get(sz, (size_t)i), *b = json_array_get(tm, (size_t)i);
    if (!json_is_integer(a) || !json_is_number(b))
      return field_fail(c, "model", "sizes must be integers and times numbers%s", NULL);
    model->table_size[i] = (int)json_integer_value(a);
    model->table_time[i] = json_number_value(b);
  }
  return MORPH_OK;
}

static int parse_model_type(jctx *c, json_t *m, morph_model *model)
{
  json_t *t = json_object_get(m, "type");
  if (!t)
    return MORPH_OK;
  const char *s = json_is_string(t) ? json_string_value(t) : "";
  if (!strcmp(s, "table")) {
    model->type = MORPH_MODEL_TABLE;
    return parse_table(c, m, model);
  }
  if (!strcmp(s, "amdahl"))
    model->type = MORPH_MODEL_AMDAHL;
  else if (!strcmp(s, "downey"))
    model->type = MORPH_MODEL_DOWNEY;
  else
    return field_fail(c, "model", "type must be table, amdahl or downey, got '%s'", s);
  return MORPH_OK;
}

static int parse_model(jctx *outer, json_t *m, morph_model *model)
{
  static const char *const keys[] = {"type", "t1", "serial", "A", "sigma", "sizes", "times",
                                     "scale", "data_bytes", "inhibit", "iterations", "mpi", NULL};
  jctx mc = *outer; /* fields inside the model are reported on its line */
  jctx *c = &mc;
  c->prefix = "model.";
  c->line_key = "model";
  if (!json_is_object(m))
    return field_fail(outer, "model", "expected an object%s", NULL);
  int rc = check_keys(c, m, keys);
  if (!rc)
    rc = parse_model_type(c, m, model);
  if (!rc && (rc = get_num(c, m, "t1", &model->t1)) == MORPH_OK &&
      (rc = get_num(c, m, "serial", &model->serial)) == MORPH_OK &&
      (rc = get_num(c, m, "A", &model->downey_a)) == MORPH_OK &&
      (rc = get_num(c, m, "sigma", &model->downey_sigma)) == MORPH_OK &&
      (rc = get_num(c, m, "scale", &model->scale)) == MORPH_OK &&
      (rc = get_num(c, m, "data_bytes", &model->data_bytes)) == MORPH_OK &&
      (rc = get_num(c, m, "inhibit", &model->inhibit_s)) == MORPH_OK &&
      (rc = get_num(c, m, "mpi", &model->mpi_share)) == MORPH_OK)
    rc = get_int(c, m, "iterations", &model->iterations);
  return rc;
}

static int get_string(jctx *c, json_t *o, const char *key, const char **out, int required)
{
  json_t *v = json_object_get(o, key);
  if (!v && !required)
    return MORPH_OK;
  if (!v)
    return field_fail(c, key, "missing (required)%s", NULL);
  if (!json_is_string(v))
    return field_fail(c, key, "expected a string%s", NULL);
  *out = json_string_value(v);
  return MORPH_OK;
}

/* Kind and application decide the defaults; everything else overrides. */
static int parse_head(jctx *c, json_t *o, morph_wjob *job)
{
  const char *kind = NULL, *app = NULL, *name = NULL;
  json_t *submit = json_object_get(o, "submit");
  int rc = get_string(c, o, "kind", &kind, 1);
  if (!rc)
    rc = get_string(c, o, "app", &app, 1);
  if (!rc)
    rc = get_string(c, o, "name", &name, 0);
  if (rc)
    return rc;
  if (!submit)
    return field_fail(c, "submit", "missing (required)%s", NULL);
  if (!json_is_number(submit) || json_number_value(submit) < 0)
    return field_fail(c, "submit", "expected a time in seconds >= 0%s", NULL);
  morph_job_kind k;
  if (morph_job_kind_parse(kind, &k) != MORPH_OK)
    return field_fail(c, "kind", "unknown kind '%s' (fixed, moldable, malleable, flexible)",
                      kind);
  if (morph__wjob_from_app(job, app, k, 0) != MORPH_OK)
    morph__wjob_from_app(job, "generic", k, 0);
  job->submit = json_number_value(submit);
  job->name = (char *)name; /* borrowed until add copies */
  job->app = (char *)app;
  return MORPH_OK;
}

static int parse_job(jctx *c, json_t *o, morph_wjob *job, char ***argv, char *matrix)
{
  static const char *const keys[] = {"name", "submit", "kind", "app", "request", "min", "max",
                                     "pref", "args", "model", "matrix", "walltime", NULL};
  if (!json_is_object(o))
    return field_fail(c, "", "expected an object%s", NULL);
  int rc = check_keys(c, o, keys);
  if (!rc)
    rc = parse_head(c, o, job);
  if (!rc)
    rc = get_int(c, o, "min", &job->min);
  if (!rc)
    rc = get_int(c, o, "max", &job->max);
  if (!rc)
    rc = get_int(c, o, "pref", &job->pref);
  if (!rc)
    rc = get_num(c, o, "walltime", &job->walltime);
  json_t *v;
  if (!rc && (v = json_object_get(o, "args")))
    rc = parse_args(c, v, job, argv);
  if (!rc && (v = json_object_get(o, "model")))
    rc = parse_model(c, v, &job->model);
  if (!rc && (v = json_object_get(o, "matrix")))
    rc = parse_matrix(c, v, job, matrix);
  if (rc)
    return rc;
  /* Paper 000, Table 6: rigid submissions ask for the upper limit, moldable
   * ones for the whole range. */
  job->req_max = job->max;
  job->req_min = morph_job_kind_moldable(job->kind) ? job->min : job->max;
  if ((v = json_object_get(o, "request")))
    rc = parse_request(c, v, job);
  return rc;
}

static int add_job(jctx *c, json_t *o)
{
  morph_wjob job;
  char **argv = NULL, matrix[PATH_MAX];
  memset(&job, 0, sizeof job);
  job.line = c->span ? c->span->line : 0;
  int rc = parse_job(c, o, &job, &argv, matrix);
  char why[256];
  if (!rc && morph__wjob_validate(&job, why, sizeof why) != MORPH_OK) {
    char key[32];
    snprintf(key, sizeof key, "%.*s", (int)strcspn(why, ":/"), why);
    rc = field_fail(c, key, "%s", strchr(why, ':') ? strchr(why, ':') + 2 : why);
  }
  if (!rc && job.name && morph_workload_find(c->wl, job.name) >= 0)
    rc = field_fail(c, "name", "'%s' is already used by another job", job.name);
  if (!rc && (rc = morph_workload_add(c->wl, &job)) != MORPH_OK) {
    char keep[sizeof c->wl->errmsg];
    snprintf(keep, sizeof keep, "%s", c->wl->errmsg);
    morph__wl_fail(c->wl, rc, "%s:%d: jobs[%zu]: %s", c->origin, job.line, c->index, keep);
  }
  free(argv);
  return rc;
}

static int parse_top(morph_workload *wl, json_t *root, const char *text, const char *origin)
{
  jctx c = {wl, origin, text, NULL, 0, "", NULL};
  if (!json_is_object(root))
    return morph__wl_fail(wl, MORPH_EPARSE, "%s:1: expected an object with \"jobs\"", origin);
  json_t *jobs = json_object_get(root, "jobs"), *v;
  if (!json_is_array(jobs))
    return morph__wl_fail(wl, MORPH_EPARSE, "%s:1: jobs: missing or not an array", origin);
  if ((v = json_object_get(root, "nodes")) && json_is_integer(v))
    wl->nodes = (int)json_integer_value(v);
  if ((v = json_object_get(root, "name")) && json_is_string(v)) {
    free(wl->name);
    wl->name = strdup(json_string_value(v));
  }
  morph__span *spans = NULL;
  long nspans = morph__json_job_spans(text, strlen(text), &spans);
  int rc = MORPH_OK;
  for (size_t i = 0; i < json_array_size(jobs) && !rc; i++) {
    c.index = i;
    c.span = (long)i < nspans ? &spans[i] : NULL;
    rc = add_job(&c, json_array_get(jobs, i));
  }
  free(spans);
  return rc;
}

int morph_workload_parse_json(morph_workload *wl, const char *text, const char *origin)
{
  if (!wl || !text)
    return MORPH_EINVAL;
  origin = origin ? origin : "<string>";
  morph_workload_clear(wl);
  json_error_t err;
  json_t *root = json_loads(text, JSON_REJECT_DUPLICATES, &err);
  if (!root)
    return morph__wl_fail(wl, MORPH_EPARSE, "%s:%d:%d: %s", origin, err.line, err.column,
                          err.text);
  int rc = parse_top(wl, root, text, origin);
  json_decref(root);
  if (rc) {
    morph_workload_clear(wl);
    return rc;
  }
  morph_workload_sort(wl);
  wl->errmsg[0] = '\0';
  return MORPH_OK;
}

static char *read_all(const char *path)
{
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap);
  while (buf) {
    n += fread(buf + n, 1, cap - n - 1, f);
    if (n < cap - 1)
      break;
    char *nb = realloc(buf, cap * 2);
    if (!nb)
      free(buf);
    buf = nb;
    cap *= 2;
  }
  if (buf)
    buf[n] = '\0';
  fclose(f);
  return buf;
}

int morph_workload_load_json(morph_workload *wl, const char *path)
{
  if (!wl || !path)
    return MORPH_EINVAL;
  char *text = read_all(path);
  if (!text) {
    morph_workload_clear(wl);
    return morph__wl_fail(wl, MORPH_EIO, "%s: cannot read: %s", path, strerror(errno));
  }
  if (!wl->name) {
    const char *base = strrchr(path, '/');
    wl->name = strdup(base ? base + 1 : path);
  }
  int rc = morph_workload_parse_json(wl, text, path);
  free(text);
  return rc;
}

static json_t *model_json(const morph_model *m)
{
  static const char *const types[] = {"table", "amdahl", "downey"};
  json_t *o = json_object();
  json_object_set_new(o, "type", json_string(types[m->type]));
  if (m->type == MORPH_MODEL_TABLE) {
    json_t *sz = json_array(), *tm = json_array();
    for (int i = 0; i < m->table_len; i++) {
      json_array_append_new(sz, json_integer(m->table_size[i]));
      json_array_append_new(tm, json_real(m->table_time[i]));
    }
    json_object_set_new(o, "sizes", sz);
    json_object_set_new(o, "times", tm);
  } else {
    json_object_set_new(o, "t1", json_real(m->t1));
  }
  if (m->type == MORPH_MODEL_AMDAHL)
    json_object_set_new(o, "serial", json_real(m->serial));
  if (m->type == MORPH_MODEL_DOWNEY) {
    json_object_set_new(o, "A", json_real(m->downey_a));
    json_object_set_new(o, "sigma", json_real(m->downey_sigma));
  }
  json_object_set_new(o, "scale", json_real(m->scale));
  json_object_set_new(o, "data_bytes", json_real(m->data_bytes));
  json_object_set_new(o, "inhibit", json_real(m->inhibit_s));
  json_object_set_new(o, "iterations", json_integer(m->iterations));
  json_object_set_new(o, "mpi", json_real(m->mpi_share));
  return o;
}

static json_t *job_json(const morph_wjob *j)
{
  json_t *o = json_object(), *args = json_array();
  char req[48];
  snprintf(req, sizeof req, "%d-%d", j->req_min, j->req_max);
  json_object_set_new(o, "name", json_string(j->name));
  json_object_set_new(o, "submit", json_real(j->submit));
  json_object_set_new(o, "kind", json_string(morph_job_kind_name(j->kind)));
  json_object_set_new(o, "app", json_string(j->app));
  json_object_set_new(o, "request", json_string(req));
  json_object_set_new(o, "min", json_integer(j->min));
  json_object_set_new(o, "max", json_integer(j->max));
  json_object_set_new(o, "pref", json_integer(j->pref));
  for (int i = 0; i < j->argc; i++)
    json_array_append_new(args, json_string(j->argv[i]));
  json_object_set_new(o, "args", args);
  json_object_set_new(o, "model", model_json(&j->model));
  if (j->matrix)
    json_object_set_new(o, "matrix", json_string(j->matrix));
  if (j->walltime > 0)
    json_object_set_new(o, "walltime", json_real(j->walltime));
  return o;
}

/* One job per line: the file stays readable and diffable, and the line of a
 * job is its index plus the header lines. */
int morph_workload_write_json(const morph_workload *wl, FILE *out)
{
  fprintf(out, "{\n  \"format\": \"morph-workload\",\n  \"version\": 1,\n");
  json_t *name = json_string(wl->name ? wl->name : "workload");
  char *s = json_dumps(name, JSON_ENCODE_ANY);
  fprintf(out, "  \"name\": %s,\n  \"nodes\": %d,\n  \"jobs\": [\n", s ? s : "\"?\"", wl->nodes);
  free(s);
  json_decref(name);
  for (size_t i = 0; i < wl->njobs; i++) {
    json_t *o = job_json(&wl->jobs[i]);
    s = json_dumps(o, JSON_COMPACT | JSON_REAL_PRECISION(17));
    json_decref(o);
    if (!s)
      return MORPH_ENOMEM;
    fprintf(out, "    %s%s\n", s, i + 1 < wl->njobs ? "," : "");
    free(s);
  }
  fprintf(out, "  ]\n}\n");
  return ferror(out) ? MORPH_EIO : MORPH_OK;
}

int morph_workload_save_json(const morph_workload *wl, const char *path)
{
  FILE *f = fopen(path, "w");
  if (!f)
    return MORPH_EIO;
  int rc = morph_workload_write_json(wl, f);
  if (fclose(f) != 0 && rc == MORPH_OK)
    rc = MORPH_EIO;
  return rc;
}
