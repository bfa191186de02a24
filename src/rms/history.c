/* Journal -> report records. */
#include "rms/history.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "morph/error.h"
#include "rms/job.h"

int morph__history_units(morph__journal *j)
{
  char buf[32];
  morph__journal_meta_get(j, "slots", buf, sizeof buf);
  return atoi(buf);
}

int morph__history_is_slurm(morph__journal *j)
{
  char buf[32];
  morph__journal_meta_get(j, "backend", buf, sizeof buf);
  return !strcmp(buf, "slurm");
}

const char *morph__history_unit_name(morph__journal *j)
{
  return morph__history_is_slurm(j) ? "nodes" : "slots";
}

static morph_job_state report_state(const char *s)
{
  if (!strcmp(s, "completed"))
    return MORPH_JOB_COMPLETED;
  if (!strcmp(s, "failed") || !strcmp(s, "cancelled"))
    return MORPH_JOB_FAILED;
  if (!strcmp(s, "rejected"))
    return MORPH_JOB_SKIPPED;
  return MORPH_JOB_UNFINISHED;
}

/* "jacobi" from "/x/bin/jacobi.ompi". */
static void app_name(const char *argv_json, char *buf, size_t size)
{
  const char *p = strchr(argv_json, '"');
  snprintf(buf, size, "%s", p ? p + 1 : "?");
  char *q = strchr(buf, '"');
  if (q)
    *q = '\0';
  char *slash = strrchr(buf, '/');
  if (slash)
    memmove(buf, slash + 1, strlen(slash + 1) + 1);
  char *dot = strrchr(buf, '.');
  if (dot && (!strcmp(dot, ".ompi") || !strcmp(dot, ".mpich")))
    *dot = '\0';
}

/* The job's size history in units of `per` processes (rounded up: a
 * node partly used is held whole); drops the final 0 written at its end. */
static int segments(sqlite3 *db, sqlite3_int64 id, double t0, int per, morph_seg **seg, size_t *n)
{
  sqlite3_stmt *st;
  *seg = NULL, *n = 0;
  if (sqlite3_prepare_v2(db, "SELECT t, size FROM sizes WHERE job = ? ORDER BY t, rowid", -1, &st,
                         NULL) != SQLITE_OK)
    return MORPH_EIO;
  sqlite3_bind_int64(st, 1, id);
  size_t cap = 0;
  int rc = MORPH_OK;
  while (rc == MORPH_OK && sqlite3_step(st) == SQLITE_ROW) {
    if (sqlite3_column_int(st, 1) <= 0)
      continue;
    if (*n == cap) {
      cap = cap ? 2 * cap : 8;
      morph_seg *v = realloc(*seg, cap * sizeof *v);
      if (!v) {
        rc = MORPH_ENOMEM;
        break;
      }
      *seg = v;
    }
    int size = (sqlite3_column_int(st, 1) + per - 1) / per;
    (*seg)[(*n)++] = (morph_seg){sqlite3_column_double(st, 0) - t0, size};
  }
  sqlite3_finalize(st);
  return rc;
}

static const char jobs_sql[] =
  "SELECT id, name, kind, state, submit, start, end, argv,"
  " (SELECT COUNT(*) FROM resizes r WHERE r.job = jobs.id AND r.op IN ('expand', 'shrink')"
  "  AND r.state = 'done'), ppu FROM jobs ORDER BY id";

/* One job; `nodes`: sizes in nodes, from its processes per node. */
static int add_row(sqlite3 *db, sqlite3_stmt *st, morph_report *rep, double t0, int nodes,
                   char *err, size_t errsize)
{
  char name[96], app[64];
  const char *jname = (const char *)sqlite3_column_text(st, 1);
  sqlite3_int64 id = sqlite3_column_int64(st, 0);
  snprintf(name, sizeof name, "%lld%s%s", (long long)id, jname && *jname ? ":" : "",
           jname ? jname : "");
  app_name((const char *)sqlite3_column_text(st, 7), app, sizeof app);
  morph_job_record r = {.name = name, .app = app};
  morph_job_kind_parse((const char *)sqlite3_column_text(st, 2), &r.kind);
  r.state = report_state((const char *)sqlite3_column_text(st, 3));
  r.submit = sqlite3_column_double(st, 4) - t0;
  r.start = sqlite3_column_double(st, 5) > 0 ? sqlite3_column_double(st, 5) - t0 : 0;
  r.end = sqlite3_column_double(st, 6) > 0 ? sqlite3_column_double(st, 6) - t0 : 0;
  r.resizes = sqlite3_column_int(st, 8);
  int per = nodes ? sqlite3_column_int(st, 9) : 1;
  /* A job that never started has no sizes to convert. */
  if (per <= 0 && sqlite3_column_double(st, 5) > 0)
    return snprintf(err, errsize, "job %lld: the journal does not say its processes per node"
                    " (written by a morphd older than node units): its sizes are processes",
                    (long long)id), MORPH_EINVAL;
  morph_seg *seg;
  int rc = segments(db, id, t0, per > 0 ? per : 1, &seg, &r.nseg);
  r.seg = seg;
  if (rc == MORPH_OK && (rc = morph_report_add(rep, &r)) != MORPH_OK)
    snprintf(err, errsize, "job %lld: %s", (long long)id, morph_report_errmsg(rep));
  free(seg);
  return rc;
}

int morph__history_report(morph__journal *j, morph_report *rep, double *t0, char *err,
                          size_t errsize)
{
  sqlite3 *db = morph__journal_db(j);
  sqlite3_stmt *st;
  *t0 = 0;
  if (sqlite3_prepare_v2(db, "SELECT IFNULL(MIN(submit), 0) FROM jobs", -1, &st, NULL) != SQLITE_OK)
    return snprintf(err, errsize, "journal: %s", sqlite3_errmsg(db)), MORPH_EIO;
  if (sqlite3_step(st) == SQLITE_ROW)
    *t0 = sqlite3_column_double(st, 0);
  sqlite3_finalize(st);
  if (sqlite3_prepare_v2(db, jobs_sql, -1, &st, NULL) != SQLITE_OK)
    return snprintf(err, errsize, "journal: %s", sqlite3_errmsg(db)), MORPH_EIO;
  int rc = MORPH_OK, nodes = morph__history_is_slurm(j);
  while (rc == MORPH_OK && sqlite3_step(st) == SQLITE_ROW)
    rc = add_row(db, st, rep, *t0, nodes, err, errsize);
  sqlite3_finalize(st);
  return rc;
}

int morph__history_sizes(morph__journal *j, double t0, FILE *human, FILE *csv)
{
  sqlite3_stmt *st;
  const char *sql = "SELECT s.job, IFNULL(j.name, ''), s.t, s.size FROM sizes s"
                    " LEFT JOIN jobs j ON j.id = s.job ORDER BY s.job, s.t, s.rowid";
  if (sqlite3_prepare_v2(morph__journal_db(j), sql, -1, &st, NULL) != SQLITE_OK)
    return MORPH_EIO;
  sqlite3_int64 last = -1;
  if (csv)
    fprintf(csv, "job,name,time,size\n");
  while (sqlite3_step(st) == SQLITE_ROW) {
    sqlite3_int64 id = sqlite3_column_int64(st, 0);
    const char *name = (const char *)sqlite3_column_text(st, 1);
    double t = sqlite3_column_double(st, 2) - t0;
    int size = sqlite3_column_int(st, 3);
    if (human && id != last)
      fprintf(human, "%s%6lld %-14.14s", last >= 0 ? "\n" : "", (long long)id, name ? name : "");
    if (human)
      fprintf(human, " %d@%.1f", size, t);
    if (csv)
      fprintf(csv, "%lld,%s,%.3f,%d\n", (long long)id, name ? name : "", t, size);
    last = id;
  }
  if (human && last >= 0)
    fputc('\n', human);
  sqlite3_finalize(st);
  return MORPH_OK;
}

int morph__history_failures(morph__journal *j, double t0, FILE *out)
{
  sqlite3_stmt *st;
  const char *sql = "SELECT r.job, IFNULL(j.name, ''), r.op, r.from_size, r.to_size,"
                    " IFNULL(r.done, r.decided), r.outcome, IFNULL(r.text, '') FROM resizes r"
                    " LEFT JOIN jobs j ON j.id = r.job WHERE r.state = 'failed' ORDER BY r.id";
  if (sqlite3_prepare_v2(morph__journal_db(j), sql, -1, &st, NULL) != SQLITE_OK)
    return MORPH_EIO;
  int n = 0;
  while (sqlite3_step(st) == SQLITE_ROW) {
    const char *text = (const char *)sqlite3_column_text(st, 7);
    fprintf(out, "%6lld %-14.14s %s %d -> %d at %.1f: %s%s%s\n",
            (long long)sqlite3_column_int64(st, 0), (const char *)sqlite3_column_text(st, 1),
            (const char *)sqlite3_column_text(st, 2), sqlite3_column_int(st, 3),
            sqlite3_column_int(st, 4), sqlite3_column_double(st, 5) - t0,
            morph_err_name(sqlite3_column_int(st, 6)), text && *text ? ": " : "",
            text ? text : "");
    n++;
  }
  if (n == 0)
    fprintf(out, "       none\n");
  sqlite3_finalize(st);
  return MORPH_OK;
}
