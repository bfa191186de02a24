/*
 * morphd's journal: every job, every resize, the size history and the
 * events, in one SQLite file (schema in docs/morphd.md). A job row is
 * rewritten whenever the job changes, so the file alone rebuilds the
 * daemon's state after a crash; `morph report` reads it too.
 *
 * Error contract: MORPH_OK or MORPH_EIO (the message, with SQLite's text,
 * in morph__journal_errmsg). A failed write leaves the file as it was
 * (each call is one statement or one transaction).
 */
#ifndef MORPH_RMS_JOURNAL_H
#define MORPH_RMS_JOURNAL_H

#include <stdint.h>

#include "rms/job.h"

/* 3: jobs.owner_uid, owner_gid, secret; 2: jobs.rz_phase (an older file is
 * migrated when opened for writing). */
#define MORPH__JOURNAL_VERSION 3

typedef struct morph__journal morph__journal;

/* Opens (creating if needed) the journal at path; readonly for readers
 * such as `morph report`. Errors: MORPH_EIO (message in err), MORPH_ENOMEM. */
int morph__journal_open(const char *path, int readonly, morph__journal **out, char *err,
                        size_t errsize);
void morph__journal_close(morph__journal *j);
const char *morph__journal_errmsg(const morph__journal *j);

/* Groups writes: one transaction (nesting is counted). */
int morph__journal_begin(morph__journal *j);
int morph__journal_commit(morph__journal *j);

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
