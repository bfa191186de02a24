/*
 * The journal's insides, shared by journal.c (the file, its schema, its
 * rows) and journal_tx.c (transactions, and the writes kept in memory
 * while the file cannot take them). Nothing else includes this.
 */
#ifndef MORPH_RMS_JOURNAL_PRIV_H
#define MORPH_RMS_JOURNAL_PRIV_H

#include <limits.h>
#include <sqlite3.h>
#include <stddef.h>

#include "common/log.h"
#include "rms/journal.h"

/* Writes as SQL text with their values written in (sqlite3_expanded_sql),
 * oldest first; each text is sqlite3_malloc'd. */
typedef struct morph__sqlv {
  char **v;
  int n, cap;
  size_t bytes;
} morph__sqlv;

struct morph__journal {
  sqlite3 *db;
  char path[PATH_MAX];
  int depth;        /* nested morph__journal_begin calls */
  int tx_live;      /* the open transaction runs in the file (BEGIN done) */
  int tx_failed;    /* a write of it failed: the others are only noted */
  morph__sqlv tx;   /* the open transaction's writes */
  morph__sqlv kept; /* writes the file could not take yet */
  long dropped;     /* writes lost because `kept` was full */
  int broken;       /* the last attempt to write failed */
  double next_try;  /* morph__now() of the next attempt while broken */
  const morph__sayer *log;
  char errmsg[512];
};

/* Sets errmsg to "journal PATH: WHAT: REASON" (the reason in words, from
 * SQLite's last error and errno) and returns MORPH_EIO. */
int morph__journal_fail(morph__journal *j, const char *what);
/* Runs SQL without values; on failure morph__journal_fail(what). */
int morph__journal_exec(morph__journal *j, const char *sql, const char *what);
/* At close: one last try at the kept writes (what is lost is said), then
 * frees them. */
void morph__journal_tx_close(morph__journal *j);

#endif
