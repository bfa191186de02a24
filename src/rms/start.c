/*
 * Decisions, journal first: nothing is started, sent to a job or asked of
 * the backend before the journal holds it. A batch notes each job's state
 * before a decision changes it; the decision's writes are one transaction,
 * committed with morph__journal_commit_first; if the journal does not take
 * it, the jobs are put back as they were and nothing is done.
 *
 * Starting a job is two writes around the fork: the start (running, its
 * size and pieces, no pid) before, the pid after. A crash between them
 * leaves a running job without a pid, which the restarted morphd starts
 * again: the backend's start marker (launch.c) tells it whether the first
 * start got as far as forking, and then the job is that process, taken on,
 * not started twice.
 */
#include <stdio.h>
#include <stdlib.h>

#include "morph/error.h"
#include "rms/morphd.h"

morph__step *morph__batch_add(morph__batch *b, morph__job *job)
{
  if (b->n == b->cap) {
    int cap = b->cap ? 2 * b->cap : 8;
    morph__step *v = realloc(b->v, (size_t)cap * sizeof *v);
    if (!v)
      return NULL;
    b->v = v, b->cap = cap;
  }
  morph__step *s = &b->v[b->n];
  *s = (morph__step){.job = job};
  if (morph__job_mark_take(&s->mark, job) != MORPH_OK)
    return NULL;
  b->n++;
  return s;
}

void morph__batch_free(morph__batch *b)
{
  for (int i = 0; i < b->n; i++)
    morph__job_mark_free(&b->v[i].mark);
  free(b->v);
  *b = (morph__batch){0};
}

int morph__batch_commit(morph__daemon *d, morph__batch *b)
{
  int rc = morph__journal_commit_first(d->journal);
  if (rc == MORPH_OK)
    return MORPH_OK;
  for (int i = b->n - 1; i >= 0; i--) {
    morph__step *s = &b->v[i];
    /* A start that was to wait for a shrink holds its free pieces. */
    if (s->job->state == MORPH__J_STARTING && s->mark.state == MORPH__J_PENDING)
      morph__backend_drop(d->be, s->job);
    morph__job_mark_restore(&s->mark, s->job);
    morph__job_mark_free(&s->mark);
  }
  morph__say(&d->log, 1, "decision not carried out: %s", morph__journal_errmsg(d->journal));
  b->n = 0;
  return rc;
}

int morph__start_plan(morph__daemon *d, morph__job *job, const morph__alloc *pieces, int size)
{
  if (morph__alloc_copy(&job->alloc, pieces) != MORPH_OK)
    return MORPH_ENOMEM;
  double now = morph__wall();
  job->size = size;
  job->state = MORPH__J_RUNNING;
  job->start = job->last_change = now;
  job->pid = 0;
  job->adopted = 0;
  int id = morph__job_journal_start(d, job, now);
  morph__journal_size(d->journal, job->id, now, size);
  morph__journal_event(d->journal, now, job->id, "start", "%d slots", size);
  morph__job_save(d, job);
  return id;
}

/* The planned job did not start: a start the backend found no room for
 * goes back to the queue, one whose processes could not be started has
 * failed. */
static void not_started(morph__daemon *d, morph__job *job, int rz, int rc)
{
  double now = morph__wall();
  if (rz)
    morph__journal_resize_end(d->journal, rz, now, rc, 0, morph_strerror(rc));
  morph__alloc_clear(&job->alloc);
  if (rc != MORPH_EBUSY && rc != MORPH_ENOMEM) {
    morph__job_record_end(d, job, MORPH__J_FAILED, -1, "morph run could not be started");
    return;
  }
  morph__say(&d->log, 0, "job %lld not started: its slots are taken (%s)", (long long)job->id,
             morph_strerror(rc));
  morph__journal_size(d->journal, job->id, now, 0);
  morph__journal_event(d->journal, now, job->id, "requeue", "not started (%s): back in the queue",
                       morph_strerror(rc));
  job->size = 0;
  job->start = 0;
  job->state = MORPH__J_PENDING;
  morph__job_save(d, job);
  d->dirty = 1;
}

int morph__start_act(morph__daemon *d, morph__job *job, int rz, const char *who)
{
  int rc = morph__backend_start(d->be, job);
  if (rc != MORPH_OK) {
    not_started(d, job, rz, rc);
    return rc;
  }
  morph__crash_point(d, who, "forked");
  if (job->adopted)
    morph__journal_event(d->journal, morph__wall(), job->id, "start", "its morph run (pid %ld) "
                         "had started before morphd restarted: taken on", (long)job->pid);
  morph__job_save(d, job);
  morph__say(&d->log, 0, "job %lld %s with %d slots", (long long)job->id,
             job->adopted ? "taken on (it had started)" : "started", job->size);
  return MORPH_OK;
}

void morph__batch_start(morph__daemon *d, morph__batch *b, const char *who)
{
  int starts = 0;
  for (int i = 0; i < b->n; i++)
    starts += b->v[i].act == MORPH__ACT_START;
  if (!starts)
    return;
  morph__crash_point(d, who, "journaled");
  morph__journal_begin(d->journal);
  for (int i = 0; i < b->n; i++)
    if (b->v[i].act == MORPH__ACT_START)
      morph__start_act(d, b->v[i].job, b->v[i].rz, who);
  morph__journal_commit(d->journal);
  morph__crash_point(d, who, "pid-journaled");
}

int morph__job_start(morph__daemon *d, morph__job *job, const morph__alloc *pieces, int size)
{
  if (!morph__backend_starts_jobs(d->be))
    return MORPH_ENOSYS;
  morph__batch b = {0};
  morph__journal_begin(d->journal);
  morph__step *s = morph__batch_add(&b, job);
  int rc = s ? morph__start_plan(d, job, pieces, size) : MORPH_ENOMEM;
  if (s && rc > 0)
    s->act = MORPH__ACT_START, s->rz = rc;
  int committed = morph__batch_commit(d, &b);
  if (rc > 0 && committed != MORPH_OK)
    rc = committed;
  if (rc > 0)
    morph__batch_start(d, &b, "start");
  morph__batch_free(&b);
  if (rc <= 0)
    return rc;
  return job->state == MORPH__J_RUNNING   ? MORPH_OK
         : job->state == MORPH__J_PENDING ? MORPH_EBUSY
                                          : MORPH_ESPAWN;
}
