/*
 * Time limits of morphd's jobs (docs/morphd.md "Time limits"), as the
 * simulator models them (docs/sim.md): a job's `walltime` is for its
 * largest request, its reference size; started below it, the limit
 * stretches by reference / size, and shrunk further below it, what is left
 * stretches by the same ratio of ratios (the most a job that scales no
 * better than linearly slows down); a grow never shortens it, and the time a
 * resize keeps the job paused does not count. A job still running at its
 * limit is stopped and ends failed, "TIMEOUT", like Slurm's. The policy
 * plans backfilling with the limit.
 *
 * The limits live in a table of their own in the journal, limits(job,
 * walltime, limit_end, limit_size), read back for each job at its first
 * decision after a restart.
 */
#include <sqlite3.h>
#include <stdio.h>

#include "morph/error.h"
#include "rms/morphd.h"

static const char table_sql[] =
  "CREATE TABLE IF NOT EXISTS limits(job INTEGER PRIMARY KEY, walltime REAL, limit_end REAL,"
  " limit_size INT)";

/* Writes the job's row; a failure is the journal's to report, once: the
 * limit still holds while morphd runs. */
void morph__limit_save(morph__daemon *d, const morph__job *job)
{
  sqlite3 *db = morph__journal_db(d->journal);
  sqlite3_stmt *st = NULL;
  if (!db || job->walltime <= 0 || sqlite3_exec(db, table_sql, NULL, NULL, NULL) != SQLITE_OK ||
      sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO limits VALUES(?,?,?,?)", -1, &st, NULL) !=
          SQLITE_OK) {
    sqlite3_finalize(st);
    return;
  }
  sqlite3_bind_int64(st, 1, job->id);
  sqlite3_bind_double(st, 2, job->walltime);
  sqlite3_bind_double(st, 3, job->limit_end);
  sqlite3_bind_int(st, 4, job->limit_size);
  if (sqlite3_step(st) != SQLITE_DONE)
    morph__say(&d->log, 0, "journal: cannot save job %lld's time limit: %s", (long long)job->id,
               sqlite3_errmsg(db));
  sqlite3_finalize(st);
}

/* After a restart the job rows come back without their limits. */
static void load(morph__daemon *d, morph__job *job)
{
  sqlite3 *db = morph__journal_db(d->journal);
  sqlite3_stmt *st = NULL;
  job->limit_loaded = 1;
  if (db && sqlite3_prepare_v2(db, "SELECT walltime, limit_end, limit_size FROM limits WHERE job = ?",
                               -1, &st, NULL) == SQLITE_OK) {
    sqlite3_bind_int64(st, 1, job->id);
    if (sqlite3_step(st) == SQLITE_ROW) {
      job->walltime = sqlite3_column_double(st, 0);
      job->limit_end = sqlite3_column_double(st, 1);
      job->limit_size = sqlite3_column_int(st, 2);
    }
  }
  sqlite3_finalize(st); /* no table yet: no job has a limit */
}

static double stretch(const morph__job *job, int size)
{
  return size > 0 && job->req_max > size ? (double)job->req_max / size : 1.0;
}

void morph__limit_pause(morph__job *job, double now)
{
  if (job->walltime > 0 && job->limit_pause <= 0)
    job->limit_pause = now;
}

/* A resize is over (done or not): what was left when it began, stretched
 * if the job went further below its reference size, from when it ended. */
static void resized(morph__job *job, double now)
{
  double from = job->limit_pause > 0 ? job->limit_pause : now;
  double left = job->limit_end - from > 0 ? job->limit_end - from : 0;
  double more = stretch(job, job->size) / stretch(job, job->limit_size);
  left *= more > 1 ? more : 1;
  double ended = job->last_change > from ? job->last_change : now;
  job->limit_end = (job->limit_pause > 0 ? ended : now) + left;
  job->limit_pause = 0;
  job->limit_size = job->size;
}

/* Keeps a running job's limit up to date; returns nonzero if it moved. */
static int follow(morph__job *job, double now)
{
  if (job->limit_end <= 0) {
    job->limit_end = job->start + job->walltime * stretch(job, job->size);
    job->limit_size = job->size;
    return 1;
  }
  if (job->rz_id != 0 || (job->limit_pause <= 0 && job->size == job->limit_size))
    return 0; /* paused, or nothing happened */
  resized(job, now);
  return 1;
}

static void stop(morph__daemon *d, morph__job *job, double now)
{
  snprintf(job->fault, sizeof job->fault, "TIMEOUT: its time limit of %.0f s was reached",
           job->walltime);
  morph__journal_event(d->journal, now, job->id, "timeout", "%s: stopping it", job->fault);
  morph__say(&d->log, 0, "job %lld: %s: stopping it", (long long)job->id, job->fault);
  if (morph__backend_stop(d->be, job) != MORPH_OK)
    morph__job_end(d, job, -1, "its processes could not be reached");
}

void morph__limits_tick(morph__daemon *d)
{
  double now = morph__wall();
  for (int i = 0; i < d->njobs; i++) {
    morph__job *job = d->jobs[i];
    if (morph__jstate_final(job->state))
      continue;
    if (!job->limit_loaded)
      load(d, job);
    if (job->state != MORPH__J_RUNNING || job->walltime <= 0)
      continue;
    if (follow(job, now))
      morph__limit_save(d, job);
    if (now >= job->limit_end && job->rz_id == 0 && !job->cancel && !job->fault[0])
      stop(d, job, now);
  }
}

double morph__limit_estimate(const morph__job *job)
{
  if (job->walltime <= 0)
    return 0;
  if (job->state == MORPH__J_RUNNING && job->limit_end > 0)
    return job->limit_end - job->start;
  return job->walltime * stretch(job, job->req_min);
}
