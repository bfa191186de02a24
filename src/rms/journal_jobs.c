/*
 * Job rows of the journal: the whole morph__job in one row, rewritten on
 * every change, read back in id order when morphd starts.
 */
#include <jansson.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "morph/error.h"
#include "rms/journal.h"

static const char save_sql[] =
  "INSERT OR REPLACE INTO jobs(id, name, kind, req_min, req_max, min, max, pref, argv, cwd,"
  " out, err, submit, start, end, state, exit_status, pid, size, alloc, extra, plan,"
  " failed_resizes, resizes, rz_id, rz_op, rz_to, last_change, cancel, iter_time, mpi_time,"
  " note, rz_phase, traffic, ppu, owner_uid, owner_gid, secret, walltime, limit_end,"
  " limit_size)"
  " VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)";

static const char load_sql[] =
  "SELECT id, name, kind, req_min, req_max, min, max, pref, argv, cwd, out, err, submit,"
  " start, end, state, exit_status, pid, size, alloc, extra, plan, failed_resizes, resizes,"
  " rz_id, rz_op, rz_to, last_change, cancel, iter_time, mpi_time, note, rz_phase, traffic,"
  " owner_uid, owner_gid, secret, walltime, limit_end, limit_size FROM jobs"
  " ORDER BY id";

static char *argv_json(const morph__job *job)
{
  json_t *a = json_array();
  for (int i = 0; a && i < job->argc; i++)
    json_array_append_new(a, json_string(job->argv[i]));
  char *s = a ? json_dumps(a, JSON_COMPACT) : NULL;
  json_decref(a);
  return s;
}

static void bind_alloc(sqlite3_stmt *st, int col, const morph__alloc *a)
{
  char buf[1024];
  morph__alloc_format(a, buf, sizeof buf);
  sqlite3_bind_text(st, col, buf, -1, SQLITE_TRANSIENT);
}

static void bind_text(sqlite3_stmt *st, int col, const char *s)
{
  sqlite3_bind_text(st, col, s ? s : "", -1, SQLITE_TRANSIENT);
}

/* Columns 1-12: the submission. */
static void bind_submission(sqlite3_stmt *st, const morph__job *job, const char *argv)
{
  sqlite3_bind_int64(st, 1, job->id);
  bind_text(st, 2, job->name);
  bind_text(st, 3, morph_job_kind_name(job->kind));
  sqlite3_bind_int(st, 4, job->req_min);
  sqlite3_bind_int(st, 5, job->req_max);
  sqlite3_bind_int(st, 6, job->min);
  sqlite3_bind_int(st, 7, job->max);
  sqlite3_bind_int(st, 8, job->pref);
  bind_text(st, 9, argv);
  bind_text(st, 10, job->cwd);
  bind_text(st, 11, job->out);
  bind_text(st, 12, job->err);
}

/* Columns 13-33: what happened to it. */
static void bind_life(sqlite3_stmt *st, const morph__job *job)
{
  sqlite3_bind_double(st, 13, job->submit);
  sqlite3_bind_double(st, 14, job->start);
  sqlite3_bind_double(st, 15, job->end);
  bind_text(st, 16, morph__jstate_name(job->state));
  sqlite3_bind_int(st, 17, job->exit_status);
  sqlite3_bind_int64(st, 18, job->pid);
  sqlite3_bind_int(st, 19, job->size);
  bind_alloc(st, 20, &job->alloc);
  bind_alloc(st, 21, &job->extra);
  bind_alloc(st, 22, &job->plan);
  sqlite3_bind_int(st, 23, job->failed_resizes);
  sqlite3_bind_int(st, 24, job->resizes);
  sqlite3_bind_int(st, 25, job->rz_id);
  bind_text(st, 26, morph__rop_name(job->rz_op));
  sqlite3_bind_int(st, 27, job->rz_to);
  sqlite3_bind_double(st, 28, job->last_change);
  sqlite3_bind_int(st, 29, job->cancel);
  sqlite3_bind_double(st, 30, job->iter_time);
  sqlite3_bind_double(st, 31, job->mpi_time);
  bind_text(st, 32, job->note);
  bind_text(st, 33, morph__rphase_name(job->rz_phase));
}

/* The matrix as "n [a, b, ...]"; "" when the job has none. */
static void bind_traffic(sqlite3_stmt *st, int col, const morph__job *job)
{
  json_t *a = morph__job_traffic_json(job);
  char *s = json_is_array(a) ? json_dumps(a, JSON_COMPACT) : NULL;
  char *text = s ? malloc(strlen(s) + 16) : NULL;
  if (text)
    sprintf(text, "%d %s", job->traffic_n, s);
  bind_text(st, col, text);
  free(text);
  free(s);
  json_decref(a);
}

static int load_traffic(morph__job *job, const char *text)
{
  int n = 0, at = 0;
  if (!*text)
    return MORPH_OK;
  if (sscanf(text, "%d %n", &n, &at) != 1)
    return MORPH_EINVAL;
  json_t *a = json_loads(text + at, 0, NULL);
  char why[128];
  int rc = morph__job_set_traffic(job, a ? a : json_null(), n, why, sizeof why);
  json_decref(a);
  return a ? rc : MORPH_EINVAL;
}

int morph__journal_job_save(morph__journal *j, const morph__job *job)
{
  sqlite3_stmt *st = NULL;
  char *argv = argv_json(job);
  if (!argv || sqlite3_prepare_v2(morph__journal_db(j), save_sql, -1, &st, NULL) != SQLITE_OK) {
    free(argv);
    sqlite3_finalize(st);
    return morph__journal_write(j, NULL, "cannot write a job");
  }
  bind_submission(st, job, argv);
  bind_life(st, job);
  bind_traffic(st, 34, job);
  sqlite3_bind_int(st, 35, job->ppu); /* for morph report's node units; not read back */
  sqlite3_bind_int64(st, 36, job->uid == (uid_t)-1 ? -1 : (sqlite3_int64)job->uid);
  sqlite3_bind_int64(st, 37, job->gid == (gid_t)-1 ? -1 : (sqlite3_int64)job->gid);
  sqlite3_bind_text(st, 38, job->secret, -1, SQLITE_TRANSIENT);
  sqlite3_bind_double(st, 39, job->walltime);
  sqlite3_bind_double(st, 40, job->limit_end);
  sqlite3_bind_int(st, 41, job->limit_size);
  int rc = morph__journal_write(j, st, "cannot write a job");
  free(argv);
  return rc;
}

static const char *col_text(sqlite3_stmt *st, int col)
{
  const unsigned char *s = sqlite3_column_text(st, col);
  return s ? (const char *)s : "";
}

static int load_argv(morph__job *job, const char *text)
{
  json_t *a = json_loads(text, 0, NULL);
  int n = json_is_array(a) ? (int)json_array_size(a) : 0;
  const char **v = calloc((size_t)n + 1, sizeof *v);
  int rc = v ? MORPH_OK : MORPH_ENOMEM;
  for (int i = 0; rc == MORPH_OK && i < n; i++) {
    v[i] = json_string_value(json_array_get(a, (size_t)i));
    if (!v[i])
      v[i] = "";
  }
  if (rc == MORPH_OK)
    rc = morph__job_set_argv(job, n, v);
  free(v);
  json_decref(a);
  return rc;
}

static void load_submission(sqlite3_stmt *st, morph__job *job)
{
  job->id = sqlite3_column_int64(st, 0);
  snprintf(job->name, sizeof job->name, "%s", col_text(st, 1));
  morph_job_kind_parse(col_text(st, 2), &job->kind);
  job->req_min = sqlite3_column_int(st, 3);
  job->req_max = sqlite3_column_int(st, 4);
  job->min = sqlite3_column_int(st, 5);
  job->max = sqlite3_column_int(st, 6);
  job->pref = sqlite3_column_int(st, 7);
  sqlite3_int64 uid = sqlite3_column_int64(st, 34), gid = sqlite3_column_int64(st, 35);
  job->uid = uid < 0 ? (uid_t)-1 : (uid_t)uid;
  job->gid = gid < 0 ? (gid_t)-1 : (gid_t)gid;
  snprintf(job->secret, sizeof job->secret, "%s", col_text(st, 36));
  job->walltime = sqlite3_column_double(st, 37);
  job->limit_end = sqlite3_column_double(st, 38);
  job->limit_size = sqlite3_column_int(st, 39);
  job->cwd = strdup(col_text(st, 9));
  job->out = strdup(col_text(st, 10));
  job->err = strdup(col_text(st, 11));
}

/* A version-1 row with a resize in flight: RESIZE had been sent (that
 * version sent it at once), and an EXPAND kept its new pieces in extra
 * only. */
static int legacy_phase(morph__job *job)
{
  if (job->state != MORPH__J_RUNNING)
    return MORPH_OK;
  job->rz_phase = MORPH__P_SENT;
  return job->rz_op == MORPH__R_EXPAND && job->plan.n == 0
             ? morph__alloc_copy(&job->plan, &job->extra)
             : MORPH_OK;
}

static int load_life(sqlite3_stmt *st, morph__job *job)
{
  job->submit = sqlite3_column_double(st, 12);
  job->start = sqlite3_column_double(st, 13);
  job->end = sqlite3_column_double(st, 14);
  int rc = morph__jstate_parse(col_text(st, 15), &job->state);
  job->exit_status = sqlite3_column_int(st, 16);
  job->pid = (pid_t)sqlite3_column_int64(st, 17);
  job->size = sqlite3_column_int(st, 18);
  if (rc == MORPH_OK)
    rc = morph__alloc_parse(&job->alloc, col_text(st, 19));
  if (rc == MORPH_OK)
    rc = morph__alloc_parse(&job->extra, col_text(st, 20));
  if (rc == MORPH_OK)
    rc = morph__alloc_parse(&job->plan, col_text(st, 21));
  job->failed_resizes = sqlite3_column_int(st, 22);
  job->resizes = sqlite3_column_int(st, 23);
  job->rz_id = sqlite3_column_int(st, 24);
  const char *op = col_text(st, 25);
  for (int k = MORPH__R_NONE; k <= MORPH__R_SHRINK; k++)
    if (!strcmp(op, morph__rop_name((morph__rop)k)))
      job->rz_op = (morph__rop)k;
  job->rz_to = sqlite3_column_int(st, 26);
  job->last_change = sqlite3_column_double(st, 27);
  job->cancel = sqlite3_column_int(st, 28);
  job->iter_time = sqlite3_column_double(st, 29);
  job->mpi_time = sqlite3_column_double(st, 30);
  snprintf(job->note, sizeof job->note, "%s", col_text(st, 31));
  job->rz_phase = morph__rphase_parse(col_text(st, 32));
  if (rc == MORPH_OK)
    rc = load_traffic(job, col_text(st, 33));
  if (rc == MORPH_OK && job->rz_id && job->rz_phase == MORPH__P_NONE)
    rc = legacy_phase(job);
  return rc;
}

int morph__journal_jobs_load(morph__journal *j, int (*cb)(void *ctx, morph__job *job), void *ctx)
{
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(morph__journal_db(j), load_sql, -1, &st, NULL) != SQLITE_OK)
    return MORPH_EIO;
  int rc = MORPH_OK;
  while (rc == MORPH_OK && sqlite3_step(st) == SQLITE_ROW) {
    morph__job job;
    morph__job_init(&job);
    load_submission(st, &job);
    rc = load_argv(&job, col_text(st, 8));
    if (rc == MORPH_OK)
      rc = load_life(st, &job);
    if (rc == MORPH_OK && (!job.cwd || !job.out || !job.err))
      rc = MORPH_ENOMEM;
    if (rc != MORPH_OK) {
      morph__job_clear(&job);
      break;
    }
    rc = cb(ctx, &job);
  }
  sqlite3_finalize(st);
  return rc;
}
