/*
 * The SQLite journal: the file, its schema and its rows. WAL mode with
 * synchronous=FULL: a commit is on the disk before morphd answers or acts
 * on it, so neither a killed morphd nor a power cut loses an answer given
 * (docs/morphd.md, "Journal"); readers such as `morph report` never block
 * it. Transactions and failing writes: journal_tx.c.
 */
#include <jansson.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "morph/error.h"
#include "rms/journal_priv.h"

static const char schema[] =
  "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT);"
  "CREATE TABLE IF NOT EXISTS jobs(id INTEGER PRIMARY KEY, name TEXT, kind TEXT,"
  " req_min INT, req_max INT, min INT, max INT, pref INT, argv TEXT, cwd TEXT, out TEXT,"
  " err TEXT, submit REAL, start REAL, end REAL, state TEXT, exit_status INT, pid INT,"
  " size INT, alloc TEXT, extra TEXT, plan TEXT, failed_resizes INT, resizes INT, rz_id INT,"
  " rz_op TEXT, rz_to INT, last_change REAL, cancel INT, iter_time REAL, mpi_time REAL,"
  " note TEXT, rz_phase TEXT NOT NULL DEFAULT '', traffic TEXT NOT NULL DEFAULT '',"
  " ppu INT NOT NULL DEFAULT 0, owner_uid INT NOT NULL DEFAULT -1,"
  " owner_gid INT NOT NULL DEFAULT -1, secret TEXT NOT NULL DEFAULT '',"
  " walltime REAL NOT NULL DEFAULT 0, limit_end REAL NOT NULL DEFAULT 0,"
  " limit_size INT NOT NULL DEFAULT 0);"
  "CREATE TABLE IF NOT EXISTS resizes(id INTEGER PRIMARY KEY, job INT, op TEXT,"
  " from_size INT, to_size INT, alloc TEXT, depends INT, decided REAL, done REAL,"
  " outcome INT, new_size INT, state TEXT, text TEXT);"
  "CREATE TABLE IF NOT EXISTS sizes(job INT, t REAL, size INT);"
  "CREATE INDEX IF NOT EXISTS sizes_job ON sizes(job, t);"
  "CREATE TABLE IF NOT EXISTS events(id INTEGER PRIMARY KEY, t REAL, job INT, kind TEXT,"
  " text TEXT);"
  "CREATE TABLE IF NOT EXISTS nodes(host TEXT PRIMARY KEY, t REAL, beats TEXT, p REAL);";

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
  return has ? MORPH_OK : morph__journal_exec(j, sql, "cannot add a column to an older journal");
}

/* Columns added since version 1: the resize phase (before the backend
 * seam; its empty value is what version 1 meant, see
 * morph__journal_jobs_load), a job's communication matrix (none), a Slurm
 * job's processes per node (0, unknown), the job's owner and relay secret
 * (-1 and "": a job of a morph that had no owners, which only an
 * administrator may act on) and its time limit (0: none). */
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
  if (rc == MORPH_OK)
    rc = add_column(j, "walltime", "REAL NOT NULL DEFAULT 0");
  if (rc == MORPH_OK)
    rc = add_column(j, "limit_end", "REAL NOT NULL DEFAULT 0");
  if (rc == MORPH_OK)
    rc = add_column(j, "limit_size", "INT NOT NULL DEFAULT 0");
  char version[16];
  snprintf(version, sizeof version, "%d", MORPH__JOURNAL_VERSION);
  return rc == MORPH_OK ? morph__journal_meta_set(j, "version", version) : rc;
}

/* One value of a one-row query into *n (text into buf if given). */
static int query_one(morph__journal *j, const char *sql, long long *n, char *buf, size_t size)
{
  sqlite3_stmt *st = NULL;
  int rc = sqlite3_prepare_v2(j->db, sql, -1, &st, NULL) == SQLITE_OK &&
                   sqlite3_step(st) == SQLITE_ROW
               ? MORPH_OK
               : MORPH_EIO;
  if (rc == MORPH_OK && n)
    *n = sqlite3_column_int64(st, 0);
  if (rc == MORPH_OK && buf)
    snprintf(buf, size, "%s", sqlite3_column_text(st, 0) ? (const char *)sqlite3_column_text(st, 0) : "");
  sqlite3_finalize(st);
  return rc;
}

/* A file that exists and is not empty starts with SQLite's header (SQLite
 * itself would take a short text file for an empty database and write
 * over it). */
static int sqlite_header(morph__journal *j)
{
  static const char magic[16] = "SQLite format 3";
  char head[16];
  FILE *f = fopen(j->path, "rb");
  size_t n = f ? fread(head, 1, sizeof head, f) : 0;
  if (f)
    fclose(f);
  if (n == 0 || (n == sizeof head && !memcmp(head, magic, sizeof magic)))
    return MORPH_OK;
  snprintf(j->errmsg, sizeof j->errmsg, "journal %.200s: not an SQLite database (no SQLite "
           "header): name another file", j->path);
  return MORPH_EIO;
}

/* The file is an SQLite database, is empty or morph's (it has the meta
 * table), and is not damaged. */
static int check_file(morph__journal *j)
{
  long long tables = 0, meta = 0;
  if (sqlite_header(j) != MORPH_OK)
    return MORPH_EIO;
  if (query_one(j, "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table'", &tables, NULL, 0) ||
      query_one(j, "SELECT COUNT(*) FROM sqlite_master WHERE name = 'meta'", &meta, NULL, 0))
    return morph__journal_fail(j, "cannot be read");
  if (tables > 0 && meta == 0) {
    snprintf(j->errmsg, sizeof j->errmsg, "journal %.200s: an SQLite database, but not a morph "
             "journal (no meta table): name another file", j->path);
    return MORPH_EIO;
  }
  char ok[200];
  if (query_one(j, "PRAGMA quick_check(1)", NULL, ok, sizeof ok))
    return morph__journal_fail(j, "cannot be checked");
  if (strcmp(ok, "ok") == 0)
    return MORPH_OK;
  for (char *c = ok; *c; c++)
    *c = *c == '\n' ? ' ' : *c;
  snprintf(j->errmsg, sizeof j->errmsg, "journal %.200s: damaged (PRAGMA quick_check: %.150s): move "
           "it aside to start a new one, or restore a copy", j->path, ok);
  return MORPH_EIO;
}

/* Journal mode, tables, migration: what a writer needs. */
static int set_up(morph__journal *j)
{
  int rc = morph__journal_exec(j, "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;", "cannot be set up");
  if (rc == MORPH_OK)
    rc = morph__journal_exec(j, schema, "cannot create its tables");
  return rc == MORPH_OK ? migrate(j) : rc;
}

int morph__journal_open(const char *path, int readonly, morph__journal **out, char *err,
                        size_t errsize)
{
  *out = NULL;
  morph__journal *j = calloc(1, sizeof *j);
  if (!j)
    return MORPH_ENOMEM;
  snprintf(j->path, sizeof j->path, "%s", path);
  /* A writer never follows a symbolic link to its file (nor SQLite to the
   * -wal and -shm beside it): setup.c refuses one, this holds the line. */
  int flags = readonly ? SQLITE_OPEN_READONLY
                       : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOFOLLOW;
  int rc = sqlite3_open_v2(path, &j->db, flags, NULL) == SQLITE_OK
               ? MORPH_OK
               : morph__journal_fail(j, "cannot be opened");
  /* A second writer (an old morphd) waits a little instead of failing. */
  sqlite3_busy_timeout(j->db, 5000);
  if (rc == MORPH_OK)
    rc = check_file(j);
  if (rc == MORPH_OK && !readonly)
    rc = set_up(j);
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
  morph__journal_tx_close(j);
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

void morph__journal_set_log(morph__journal *j, const morph__sayer *log)
{
  j->log = log;
}

/* Prepares sql; on failure records the message and returns NULL. */
static sqlite3_stmt *prep(morph__journal *j, const char *sql)
{
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(j->db, sql, -1, &st, NULL) != SQLITE_OK) {
    morph__journal_fail(j, "cannot prepare a statement");
    return NULL;
  }
  return st;
}

static int run(morph__journal *j, sqlite3_stmt *st, const char *what)
{
  return morph__journal_write(j, st, what);
}

int morph__journal_meta_set(morph__journal *j, const char *key, const char *value)
{
  sqlite3_stmt *st = prep(j, "INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)");
  if (st) {
    sqlite3_bind_text(st, 1, key, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 2, value, -1, SQLITE_TRANSIENT);
  }
  return run(j, st, "cannot write a setting");
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
  return run(j, st, "cannot write a node's heartbeats");
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
  return run(j, st, "cannot write a resize");
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
  return run(j, st, "cannot write the end of a resize");
}

int morph__journal_size(morph__journal *j, int64_t job, double t, int size)
{
  sqlite3_stmt *st = prep(j, "INSERT INTO sizes(job, t, size) VALUES(?,?,?)");
  if (st) {
    sqlite3_bind_int64(st, 1, job);
    sqlite3_bind_double(st, 2, t);
    sqlite3_bind_int(st, 3, size);
  }
  return run(j, st, "cannot write a size");
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
  return run(j, st, "cannot write an event");
}
