/*
 * Writing to the journal: failures in words, transactions, and what
 * happens when the file cannot be written (disk full, I/O error).
 *
 * Every write is noted as SQL text with its values written in. A
 * transaction of things that happened already (morph__journal_commit)
 * that the file does not take is kept in memory, in order, and so is
 * every later write until the kept ones are in the file: tried again at
 * most once every MORPH__JOURNAL_RETRY_S, by the next transaction or by
 * morph__journal_writable. A transaction that records a decision
 * (morph__journal_commit_first) is never kept: its caller undoes it.
 * The journal says once that it cannot be written and once that it can
 * again.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "morph/error.h"
#include "rms/journal_priv.h"

/* SQLite's result in words a user acts on, with errno's when there is one. */
static void reason(sqlite3 *db, char *buf, size_t size)
{
  int code = sqlite3_extended_errcode(db) & 0xff, sys = sqlite3_system_errno(db);
  const char *w = code == SQLITE_FULL       ? "disk full"
                  : code == SQLITE_IOERR    ? "I/O error"
                  : code == SQLITE_READONLY ? "read-only"
                  : code == SQLITE_PERM     ? "permission denied"
                  : code == SQLITE_CANTOPEN ? "cannot open the file"
                  : code == SQLITE_NOTADB   ? "not an SQLite database"
                  : code == SQLITE_CORRUPT  ? "damaged (database disk image is malformed)"
                  : code == SQLITE_BUSY     ? "locked by another process"
                                            : sqlite3_errmsg(db);
  if (sys && code != SQLITE_NOTADB && code != SQLITE_CORRUPT)
    snprintf(buf, size, "%s (%s)", w, strerror(sys));
  else
    snprintf(buf, size, "%s", w);
}

int morph__journal_fail(morph__journal *j, const char *what)
{
  char why[200];
  reason(j->db, why, sizeof why);
  snprintf(j->errmsg, sizeof j->errmsg, "journal %.200s: %.80s: %.160s", j->path, what, why);
  return MORPH_EIO;
}

int morph__journal_exec(morph__journal *j, const char *sql, const char *what)
{
  return sqlite3_exec(j->db, sql, NULL, NULL, NULL) == SQLITE_OK ? MORPH_OK
                                                                  : morph__journal_fail(j, what);
}

/* At most this much SQL text is kept; writes past it are lost (and
 * counted), so that a journal that stays full cannot use up the memory. */
#define KEPT_MAX_BYTES ((size_t)64 << 20)

static int sqlv_push(morph__sqlv *s, char *sql)
{
  if (s->n == s->cap) {
    int cap = s->cap ? 2 * s->cap : 16;
    char **v = realloc(s->v, (size_t)cap * sizeof *v);
    if (!v)
      return MORPH_ENOMEM;
    s->v = v, s->cap = cap;
  }
  s->v[s->n++] = sql;
  s->bytes += strlen(sql);
  return MORPH_OK;
}

static void sqlv_clear(morph__sqlv *s)
{
  for (int i = 0; i < s->n; i++)
    sqlite3_free(s->v[i]);
  s->n = 0, s->bytes = 0;
}


/* Appends one write to the kept ones (owned from here on). */
static void keep(morph__journal *j, char *sql)
{
  if (sql && j->kept.bytes + strlen(sql) <= KEPT_MAX_BYTES && sqlv_push(&j->kept, sql) == MORPH_OK)
    return;
  sqlite3_free(sql);
  if (j->dropped++ == 0 && j->log)
    morph__say(j->log, 0, "journal %s: too much kept in memory (%zu bytes): later writes are "
               "lost until it can be written", j->path, j->kept.bytes);
}

/* A write failed just now (the message is in errmsg). */
static void went_wrong(morph__journal *j)
{
  if (!j->broken && j->log)
    morph__say(j->log, 0, "%s. New jobs are refused and nothing is started or resized; running "
               "jobs go on, and what they do is kept in memory until the journal can be written "
               "(tried again at most every %g s)", j->errmsg, MORPH__JOURNAL_RETRY_S);
  j->broken = 1;
  j->next_try = morph__now() + MORPH__JOURNAL_RETRY_S;
}

/* A write reached the file; n kept writes with it. */
static void went_right(morph__journal *j, int n)
{
  if (j->broken && j->log)
    morph__say(j->log, 0, "journal %s can be written again: %d writes kept in memory are in it%s",
               j->path, n, j->dropped ? " (some were lost: see above)" : "");
  j->broken = 0;
}

static void rollback_open(morph__journal *j)
{
  if (!sqlite3_get_autocommit(j->db))
    sqlite3_exec(j->db, "ROLLBACK", NULL, NULL, NULL);
}

/* Writes the kept writes, all or none. */
static int flush(morph__journal *j)
{
  int rc = morph__journal_exec(j, "BEGIN", "cannot begin a transaction");
  for (int i = 0; rc == MORPH_OK && i < j->kept.n; i++)
    rc = morph__journal_exec(j, j->kept.v[i], "cannot write what was kept in memory");
  if (rc == MORPH_OK)
    rc = morph__journal_exec(j, "COMMIT", "cannot commit");
  if (rc != MORPH_OK) {
    rollback_open(j);
    went_wrong(j);
    return rc;
  }
  int n = j->kept.n;
  sqlv_clear(&j->kept);
  went_right(j, n);
  return MORPH_OK;
}

/* A small real write, to learn whether the file takes writes again. */
static int probe(morph__journal *j)
{
  char sql[128];
  snprintf(sql, sizeof sql, "INSERT OR REPLACE INTO meta(key, value) VALUES('written', '%.3f')",
           morph__wall());
  if (morph__journal_exec(j, sql, "cannot write") != MORPH_OK) {
    went_wrong(j);
    return MORPH_EIO;
  }
  went_right(j, 0);
  return MORPH_OK;
}

void morph__journal_tx_close(morph__journal *j)
{
  if (j->kept.n > 0 && flush(j) != MORPH_OK && j->log)
    morph__say(j->log, 0, "journal %s: %d writes kept in memory are lost: %s", j->path, j->kept.n,
               j->errmsg);
  sqlv_clear(&j->tx);
  sqlv_clear(&j->kept);
  free(j->tx.v);
  free(j->kept.v);
  j->tx = j->kept = (morph__sqlv){0};
}

int morph__journal_writable(morph__journal *j)
{
  if (!j->broken && j->kept.n == 0)
    return 1;
  if (j->depth > 0 || morph__now() < j->next_try)
    return 0;
  j->next_try = morph__now() + MORPH__JOURNAL_RETRY_S;
  return (j->kept.n > 0 ? flush(j) : probe(j)) == MORPH_OK;
}

int morph__journal_begin(morph__journal *j)
{
  if (j->depth++ > 0)
    return MORPH_OK;
  if (j->kept.n > 0 && morph__now() >= j->next_try) {
    j->next_try = morph__now() + MORPH__JOURNAL_RETRY_S;
    flush(j);
  }
  j->tx_failed = 0;
  j->tx_live = 0;
  if (j->kept.n > 0)
    return MORPH_OK; /* noted only: it goes after the kept ones */
  if (morph__journal_exec(j, "BEGIN", "cannot begin a transaction") != MORPH_OK) {
    j->tx_failed = 1;
    went_wrong(j);
    return MORPH_EIO;
  }
  j->tx_live = 1;
  return MORPH_OK;
}

int morph__journal_write(morph__journal *j, struct sqlite3_stmt *st, const char *what)
{
  if (!st) {
    j->tx_failed |= j->depth > 0;
    return MORPH_EIO;
  }
  char *sql = sqlite3_expanded_sql(st);
  int in_tx = j->depth > 0;
  int now = in_tx ? j->tx_live && !j->tx_failed : j->kept.n == 0;
  int rc = now && sqlite3_step(st) != SQLITE_DONE ? morph__journal_fail(j, what) : MORPH_OK;
  sqlite3_finalize(st);
  if (in_tx) {
    int noted = sql && sqlv_push(&j->tx, sql) == MORPH_OK;
    if (!noted)
      sqlite3_free(sql);
    j->tx_failed |= rc != MORPH_OK || !noted;
    return rc;
  }
  if (now && rc == MORPH_OK) {
    sqlite3_free(sql);
    went_right(j, 0);
    return MORPH_OK;
  }
  if (rc != MORPH_OK)
    went_wrong(j);
  keep(j, sql);
  return rc;
}

/* Ends the outermost transaction; `keep_it`: what the file did not take
 * is kept for later, else dropped. */
static int end_tx(morph__journal *j, int keep_it)
{
  int rc = j->tx_live && !j->tx_failed
               ? morph__journal_exec(j, "COMMIT", "cannot commit")
               : MORPH_EIO;
  if (rc == MORPH_OK) {
    sqlv_clear(&j->tx);
    went_right(j, 0);
    return MORPH_OK;
  }
  rollback_open(j);
  if (j->tx_live)
    went_wrong(j);
  for (int i = 0; keep_it && i < j->tx.n; i++)
    keep(j, j->tx.v[i]), j->tx.v[i] = NULL;
  sqlv_clear(&j->tx);
  j->tx_live = 0;
  return MORPH_EIO;
}

int morph__journal_commit(morph__journal *j)
{
  if (j->depth == 0 || --j->depth > 0)
    return MORPH_OK;
  return end_tx(j, 1);
}

int morph__journal_commit_first(morph__journal *j)
{
  if (j->depth == 0)
    return MORPH_OK;
  if (--j->depth > 0)
    return MORPH_ESTATE;
  return end_tx(j, 0);
}
