/*
 * The SQLite journal. WAL mode with synchronous=NORMAL: a killed morphd
 * loses nothing that was committed (only a power cut could lose the last
 * transactions), and readers such as `morph report` never block it.
 */
#include "rms/journal.h"

#include <jansson.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "morph/error.h"

struct morph__journal {
  sqlite3 *db;
  int depth; /* nested morph__journal_begin calls */
  char errmsg[512];
};

static const char schema[] =
  "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT);"
  "CREATE TABLE IF NOT EXISTS jobs(id INTEGER PRIMARY KEY, name TEXT, kind TEXT,"
  " req_min INT, req_max INT, min INT, max INT, pref INT, argv TEXT, cwd TEXT, out TEXT,"
  " err TEXT, submit REAL, start REAL, end REAL, state TEXT, exit_status INT, pid INT,"
  " size INT, alloc TEXT, extra TEXT, plan TEXT, failed_resizes INT, resizes INT, rz_id INT,"
  " rz_op TEXT, rz_to INT, last_change REAL, cancel INT, iter_time REAL, mpi_time REAL,"
  " note TEXT, rz_phase TEXT NOT NULL DEFAULT '', traffic TEXT NOT NULL DEFAULT '',"
  " ppu INT NOT NULL DEFAULT 0, owner_uid INT NOT NULL DEFAULT -1,"
  " owner_gid INT NOT NULL DEFAULT -1, secret TEXT NOT NULL DEFAULT '');"
  "CREATE TABLE IF NOT EXISTS resizes(id INTEGER PRIMARY KEY, job INT, op TEXT,"
  " from_size INT, to_size INT, alloc TEXT, depends INT, decided REAL, done REAL,"
  " outcome INT, new_size INT, state TEXT, text TEXT);"
  "CREATE TABLE IF NOT EXISTS sizes(job INT, t REAL, size INT);"
  "CREATE INDEX IF NOT EXISTS sizes_job ON sizes(job, t);"
  "CREATE TABLE IF NOT EXISTS events(id INTEGER PRIMARY KEY, t REAL, job INT, kind TEXT,"
  " text TEXT);"
  "CREATE TABLE IF NOT EXISTS nodes(host TEXT PRIMARY KEY, t REAL, beats TEXT, p REAL);";

static int fail(morph__journal *j, const char *what)
{
  snprintf(j->errmsg, sizeof j->errmsg, "journal: %.200s: %.200s", what, sqlite3_errmsg(j->db));
  return MORPH_EIO;
}

static int exec(morph__journal *j, const char *sql)
{
  return sqlite3_exec(j->db, sql, NULL, NULL, NULL) == SQLITE_OK ? MORPH_OK : fail(j, sql);
}

/* Adds column `name` (with its declaration) to jobs if a file from an
 * older morph lacks it. */
static int add_column(morph__journal *j, const char *name, const char *decl)
{
  char sql[256];
  sqlite3_stmt *st = NULL;
  snprintf(sql, sizeof sql, "SELECT %s FROM jobs LIMIT 0", name);
  int has = sqlite3_prepare_v2(j->db, sql, -1, &st, NULL) == SQLITE_OK;
  sqlite3_finalize(st);
  snprintf(sql, sizeof sql, "ALTER TABLE jobs ADD COLUMN %s %s", name, decl);
  return has ? MORPH_OK : exec(j, sql);
}

/* Columns added since version 1: the resize phase (before the backend
 * seam; its empty value is what version 1 meant, see
 * morph__journal_jobs_load), a job's communication matrix (none), a Slurm
 * job's processes per node (0, unknown) and the job's owner and relay
 * secret (-1 and "": a job of a morph that had no owners, which only an
 * administrator may act on). */
static int migrate(morph__journal *j)
{
  int rc = add_column(j, "rz_phase", "TEXT NOT NULL DEFAULT ''");
  if (rc == MORPH_OK)
    rc = add_column(j, "traffic", "TEXT NOT NULL DEFAULT ''");
  if (rc == MORPH_OK)
    rc = add_column(j, "ppu", "INT NOT NULL DEFAULT 0");
  if (rc == MORPH_OK)
    rc = add_column(j, "owner_uid", "INT NOT NULL DEFAULT -1");
  if (rc == MORPH_OK)
    rc = add_column(j, "owner_gid", "INT NOT NULL DEFAULT -1");
  if (rc == MORPH_OK)
    rc = add_column(j, "secret", "TEXT NOT NULL DEFAULT ''");
  char version[16];
  snprintf(version, sizeof version, "%d", MORPH__JOURNAL_VERSION);
  return rc == MORPH_OK ? morph__journal_meta_set(j, "version", version) : rc;
}

int morph__journal_open(const char *path, int readonly, morph__journal **out, char *err,
                        size_t errsize)
{
  *out = NULL;
  morph__journal *j = calloc(1, sizeof *j);
  if (!j)
    return MORPH_ENOMEM;
  int flags = readonly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
  int rc = sqlite3_open_v2(path, &j->db, flags, NULL) == SQLITE_OK ? MORPH_OK : MORPH_EIO;
  if (rc != MORPH_OK)
    fail(j, path);
  /* A second writer (an old morphd) waits a little instead of failing. */
  sqlite3_busy_timeout(j->db, 5000);
  if (rc == MORPH_OK && !readonly)
    rc = exec(j, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;");
  if (rc == MORPH_OK && !readonly)
    rc = exec(j, schema);
  if (rc == MORPH_OK && !readonly)
    rc = migrate(j);
  if (rc != MORPH_OK) {
    snprintf(err, errsize, "%s", j->errmsg);
    morph__journal_close(j);
    return rc;
  }
  *out = j;
  return MORPH_OK;
}

void morph__journal_close(morph__journal *j)
{
  if (!j)
    return;
  sqlite3_close(j->db);
  free(j);
}

const char *morph__journal_errmsg(const morph__journal *j)
{
  return j ? j->errmsg : "";
}

struct sqlite3 *morph__journal_db(morph__journal *j)
{
  return j->db;
}

int morph__journal_begin(morph__journal *j)
{
  if (j->depth++ > 0)
    return MORPH_OK;
  return exec(j, "BEGIN");
}

int morph__journal_commit(morph__journal *j)
{
  if (j->depth == 0 || --j->depth > 0)
    return MORPH_OK;
  return exec(j, "COMMIT");
}

/* Prepares sql; on failure records the message and returns NULL. */
static sqlite3_stmt *prep(morph__journal *j, const char *sql)
{
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(j->db, sql, -1, &st, NULL) != SQLITE_OK) {
    fail(j, sql);
    return NULL;
  }
  return st;
}

/* Steps a write statement to its end and finalizes it. */
static int run(morph__journal *j, sqlite3_stmt *st, const char *what)
{
  if (!st)
    return MORPH_EIO;
  int rc = sqlite3_step(st) == SQLITE_DONE ? MORPH_OK : fail(j, what);
  sqlite3_finalize(st);
  return rc;
}

int morph__journal_meta_set(morph__journal *j, const char *key, const char *value)
{
  sqlite3_stmt *st = prep(j, "INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)");
  if (st) {
    sqlite3_bind_text(st, 1, key, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 2, value, -1, SQLITE_TRANSIENT);
  }
  return run(j, st, "meta");
}

/* The text the one-parameter query `sql` selects for key, into buf ("" if
 * none). Errors: MORPH_ENOENT (no row), MORPH_EIO. */
static int select_text(morph__journal *j, const char *sql, const char *key, char *buf,
                       size_t size)
{
  if (size)
    buf[0] = '\0';
  sqlite3_stmt *st = prep(j, sql);
  if (!st)
    return MORPH_EIO;
  sqlite3_bind_text(st, 1, key, -1, SQLITE_TRANSIENT);
  int rc = MORPH_ENOENT;
  if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0)) {
    snprintf(buf, size, "%s", (const char *)sqlite3_column_text(st, 0));
    rc = MORPH_OK;
  }
  sqlite3_finalize(st);
  return rc;
}

int morph__journal_meta_get(morph__journal *j, const char *key, char *buf, size_t size)
{
  int rc = select_text(j, "SELECT value FROM meta WHERE key = ?", key, buf, size);
  return rc == MORPH_ENOENT ? MORPH_OK : rc;
}

int morph__journal_node_save(morph__journal *j, const char *host, double t, const char *beats,
                             double p)
{
  sqlite3_stmt *st = prep(j, "INSERT OR REPLACE INTO nodes(host, t, beats, p) VALUES (?, ?, ?, ?)");
  if (st) {
    sqlite3_bind_text(st, 1, host, -1, SQLITE_TRANSIENT);
    sqlite3_bind_double(st, 2, t);
    sqlite3_bind_text(st, 3, beats, -1, SQLITE_TRANSIENT);
    sqlite3_bind_double(st, 4, p);
  }
  return run(j, st, "nodes");
}

int morph__journal_node_load(morph__journal *j, const char *host, char *beats, size_t size)
{
  return select_text(j, "SELECT beats FROM nodes WHERE host = ?", host, beats, size);
}

int morph__journal_max_ids(morph__journal *j, int64_t *job, int *resize)
{
  sqlite3_stmt *st = prep(j, "SELECT (SELECT IFNULL(MAX(id), 0) FROM jobs),"
                             " (SELECT IFNULL(MAX(id), 0) FROM resizes)");
  if (!st)
    return MORPH_EIO;
  *job = 0, *resize = 0;
  if (sqlite3_step(st) == SQLITE_ROW) {
    *job = sqlite3_column_int64(st, 0);
    *resize = sqlite3_column_int(st, 1);
  }
  sqlite3_finalize(st);
  return MORPH_OK;
}

int morph__journal_resize_begin(morph__journal *j, int id, int64_t job, morph__rop op, int from,
                                int to, const morph__alloc *pieces, int depends, double t)
{
  char alloc[1024];
  morph__alloc_format(pieces, alloc, sizeof alloc);
  sqlite3_stmt *st = prep(j, "INSERT OR REPLACE INTO resizes(id, job, op, from_size, to_size,"
                             " alloc, depends, decided, state) VALUES(?,?,?,?,?,?,?,?,'sent')");
  if (st) {
    sqlite3_bind_int(st, 1, id);
    sqlite3_bind_int64(st, 2, job);
    sqlite3_bind_text(st, 3, morph__rop_name(op), -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 4, from);
    sqlite3_bind_int(st, 5, to);
    sqlite3_bind_text(st, 6, alloc, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int(st, 7, depends);
    sqlite3_bind_double(st, 8, t);
  }
  return run(j, st, "resize");
}

int morph__journal_resize_end(morph__journal *j, int id, double t, int outcome, int new_size,
                              const char *text)
{
  sqlite3_stmt *st = prep(j, "UPDATE resizes SET done = ?, outcome = ?, new_size = ?, state = ?,"
                             " text = ? WHERE id = ?");
  if (st) {
    sqlite3_bind_double(st, 1, t);
    sqlite3_bind_int(st, 2, outcome);
    sqlite3_bind_int(st, 3, new_size);
    sqlite3_bind_text(st, 4, outcome == MORPH_OK ? "done" : "failed", -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 5, text ? text : "", -1, SQLITE_TRANSIENT);
    sqlite3_bind_int(st, 6, id);
  }
  return run(j, st, "resize end");
}

int morph__journal_size(morph__journal *j, int64_t job, double t, int size)
{
  sqlite3_stmt *st = prep(j, "INSERT INTO sizes(job, t, size) VALUES(?,?,?)");
  if (st) {
    sqlite3_bind_int64(st, 1, job);
    sqlite3_bind_double(st, 2, t);
    sqlite3_bind_int(st, 3, size);
  }
  return run(j, st, "size");
}

int morph__journal_event(morph__journal *j, double t, int64_t job, const char *kind,
                         const char *fmt, ...)
{
  char text[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  sqlite3_stmt *st = prep(j, "INSERT INTO events(t, job, kind, text) VALUES(?,?,?,?)");
  if (st) {
    sqlite3_bind_double(st, 1, t);
    sqlite3_bind_int64(st, 2, job);
    sqlite3_bind_text(st, 3, kind, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 4, text, -1, SQLITE_TRANSIENT);
  }
  return run(j, st, "event");
}
