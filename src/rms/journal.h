/*
 * morphd's journal: every job, every resize, the size history and the
 * events, in one SQLite file (schema in docs/morphd.md). A job row is
 * rewritten whenever the job changes, so the file alone rebuilds the
 * daemon's state after a crash; `morph report` reads it too.
 *
 * Error contract: MORPH_OK or MORPH_EIO (the message, naming the file and
 * the reason in words, in morph__journal_errmsg). A failed write leaves
 * the file as it was (each call is one statement or one transaction).
 *
 * A file that cannot be written (disk full, I/O error) does not lose what
 * morphd saw happen: writes that fail are kept in memory, in order, and
 * written with the next write that succeeds (tried at most once every
 * MORPH__JOURNAL_RETRY_S). Decisions instead use
 * morph__journal_commit_first: journal first, then act.
 */
#ifndef MORPH_RMS_JOURNAL_H
#define MORPH_RMS_JOURNAL_H

#include <stdint.h>

#include "common/log.h"
#include "rms/job.h"

/* 3: jobs.owner_uid, owner_gid, secret; 2: jobs.rz_phase (an older file is
 * migrated when opened for writing). */
#define MORPH__JOURNAL_VERSION 3
/* Seconds between two attempts to write to a journal that failed. */
#define MORPH__JOURNAL_RETRY_S 1.0

typedef struct morph__journal morph__journal;
struct sqlite3;
struct sqlite3_stmt;

/* Opens (creating if needed) the journal at path; readonly for readers
 * such as `morph report`. A file that is not an SQLite database, another
 * program's database, or a damaged journal (PRAGMA quick_check) is
 * refused. Errors: MORPH_EIO (err names the file and what is wrong),
 * MORPH_ENOMEM. */
int morph__journal_open(const char *path, int readonly, morph__journal **out, char *err,
                        size_t errsize);
void morph__journal_close(morph__journal *j);
const char *morph__journal_errmsg(const morph__journal *j);

/* Where the journal says that it cannot be written and that it can again
 * (one line each time it changes); NULL: nowhere. */
void morph__journal_set_log(morph__journal *j, const morph__sayer *log);

/* Groups writes: one transaction (nesting is counted; only the outermost
 * commit counts). */
int morph__journal_begin(morph__journal *j);
/* Ends a transaction of things that happened already (a job ended, a
 * resize was answered): MORPH_OK, they are in the file; or MORPH_EIO, the
 * file cannot take them now and they are kept in memory, written later. */
int morph__journal_commit(morph__journal *j);
/* Ends a transaction that must be in the file before what it records is
 * done (a job accepted, started, resized): MORPH_OK, it is; MORPH_EIO,
 * nothing of it is written or kept (the caller undoes its changes and
 * tells its client no); MORPH_ESTATE, called inside another transaction
 * (which may still fail): nothing may be done yet. */
int morph__journal_commit_first(morph__journal *j);
/* 1 if writes reach the file now; 0 while they fail. A failing journal
 * is tried again (its kept writes written, or a small write) at most once
 * every MORPH__JOURNAL_RETRY_S. Not inside a transaction. */
int morph__journal_writable(morph__journal *j);
/* Runs a prepared write (bound, and finalized here) as part of the open
 * transaction, or on its own; kept in memory when the file cannot take
 * it. Errors: MORPH_EIO (failed now: `what` in the message). */
int morph__journal_write(morph__journal *j, struct sqlite3_stmt *st, const char *what);

int morph__journal_meta_set(morph__journal *j, const char *key, const char *value);
/* Copies the value into buf ("" when missing). */
int morph__journal_meta_get(morph__journal *j, const char *key, char *buf, size_t size);

/* A node's heartbeats (rms/beat.h): its window as text ('0' answered,
 * '1' missed, oldest first) and the outage probability estimated from it,
 * at time t; one row per host, replaced. */
int morph__journal_node_save(morph__journal *j, const char *host, double t, const char *beats,
                             double p);
/* The window last saved for host into beats. Errors: MORPH_ENOENT (none;
 * beats is ""), MORPH_EIO. */
int morph__journal_node_load(morph__journal *j, const char *host, char *beats, size_t size);

/* Highest job id and resize id in the file (0 when none). */
int morph__journal_max_ids(morph__journal *j, int64_t *job, int *resize);

/* Writes the whole job row (insert or replace). */
int morph__journal_job_save(morph__journal *j, const morph__job *job);

/* Calls cb for every job in id order; cb owns the job (morph__job_clear
 * it) and returns MORPH_OK to go on. */
int morph__journal_jobs_load(morph__journal *j, int (*cb)(void *ctx, morph__job *job),
                             void *ctx);

/* A resize record: written when decided, closed when done. */
int morph__journal_resize_begin(morph__journal *j, int id, int64_t job, morph__rop op, int from,
                                int to, const morph__alloc *pieces, int depends, double t);
int morph__journal_resize_end(morph__journal *j, int id, double t, int outcome, int new_size,
                              const char *text);

/* The job has `size` processes from time t on. */
int morph__journal_size(morph__journal *j, int64_t job, double t, int size);

/* A line of history ("submit", "start", "expand", "end", "error", ...). */
int morph__journal_event(morph__journal *j, double t, int64_t job, const char *kind,
                         const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* The raw handle, for readers that run their own queries (report, tests). */
struct sqlite3 *morph__journal_db(morph__journal *j);

#endif
