/*
 * Expand and shrink over the relay. An expansion books its new slots when
 * it is sent (they are the job's from then on, or given back if it fails);
 * a shrink releases slots only when morph run's ACK says the leavers have
 * exited, and only then may a START that waited for them use them.
 * A failed resize leaves the job at its old size and counts in
 * failed_resizes, which the policy engine reads to stop retrying.
 */
#include <stdio.h>
#include <string.h>

#include "morph/error.h"
#include "rms/morphd.h"

int morph__resize_send(morph__daemon *d, morph__job *job, morph__rop op, int to,
                       const morph__alloc *pieces, int depends)
{
  if (job->conn < 0 || job->rz_id)
    return 0;
  if (op == MORPH__R_EXPAND && morph__pool_book(&d->pool, pieces) != MORPH_OK) {
    morph__say(&d->log, 0, "job %lld not expanded: the slots are taken", (long long)job->id);
    return 0;
  }
  morph__msg m;
  morph__msg_init(&m, MORPH__MSG_RESIZE);
  m.id = d->next_resize;
  m.size = to;
  m.iteration = -1;
  if (op == MORPH__R_EXPAND && !d->pool.local)
    morph__alloc_hosts(pieces, &d->pool, m.hosts, sizeof m.hosts);
  if (morph__wire_msg(d, job->conn, &m) != MORPH_OK) {
    if (op == MORPH__R_EXPAND)
      morph__pool_release(&d->pool, pieces);
    return 0;
  }
  morph__alloc_copy(op == MORPH__R_EXPAND ? &job->extra : &job->plan, pieces);
  job->rz_id = d->next_resize++;
  job->rz_op = op;
  job->rz_to = to;
  double now = morph__wall();
  morph__journal_resize_begin(d->journal, job->rz_id, job->id, op, job->size, to, pieces, depends,
                              now);
  morph__job_save(d, job);
  morph__say(&d->log, 0, "job %lld: %s %d -> %d (resize %d)", (long long)job->id, morph__rop_name(op),
              job->size, to, job->rz_id);
  return job->rz_id;
}

/* Slots of a shrink that morph run could not see freed stay booked with
 * the job until it ends, so nobody is placed on a busy slot. */
static void shrink_done(morph__daemon *d, morph__job *job, int outcome)
{
  morph__alloc_sub(&job->alloc, &job->plan);
  if (outcome == MORPH_EBUSY)
    morph__alloc_add_all(&job->extra, &job->plan);
  else
    morph__pool_release(&d->pool, &job->plan);
  morph__alloc_clear(&job->plan);
}

static void commit(morph__daemon *d, morph__job *job, int outcome, int new_size, double now)
{
  if (job->rz_op == MORPH__R_EXPAND) {
    morph__alloc_add_all(&job->alloc, &job->extra);
    morph__alloc_clear(&job->extra);
  } else {
    shrink_done(d, job, outcome);
  }
  job->size = new_size;
  job->resizes++;
  morph__journal_size(d->journal, job->id, now, new_size);
}

static void roll_back(morph__daemon *d, morph__job *job)
{
  if (job->rz_op == MORPH__R_EXPAND) {
    morph__pool_release(&d->pool, &job->extra);
    morph__alloc_clear(&job->extra);
  }
  morph__alloc_clear(&job->plan);
  job->failed_resizes++;
}

/* Ends the resize in flight with `outcome` (EBUSY: done, slots unknown). */
static void finish(morph__daemon *d, morph__job *job, int outcome, int new_size, const char *text)
{
  double now = morph__wall();
  int id = job->rz_id;
  morph__rop op = job->rz_op;
  int ok = outcome == MORPH_OK || outcome == MORPH_EBUSY;
  morph__journal_begin(d->journal);
  if (ok)
    commit(d, job, outcome, new_size, now);
  else
    roll_back(d, job);
  morph__journal_resize_end(d->journal, id, now, outcome, ok ? new_size : job->size, text);
  morph__journal_event(d->journal, now, job->id, morph__rop_name(op), "resize %d %s: size %d%s%s",
                       id, ok ? "done" : "failed", job->size, text && *text ? "; " : "",
                       text ? text : "");
  job->rz_id = 0, job->rz_op = MORPH__R_NONE, job->rz_to = 0;
  job->last_change = now;
  morph__job_save(d, job);
  if (op == MORPH__R_SHRINK)
    morph__resize_release_waiters(d, id, outcome == MORPH_OK);
  morph__journal_commit(d->journal);
  morph__say(&d->log, 0, "job %lld: resize %d %s, size %d%s%s", (long long)job->id, id,
              ok ? "done" : "failed", job->size, text && *text ? ": " : "", text ? text : "");
  d->dirty = 1;
}

void morph__resize_ack(morph__daemon *d, morph__job *job, const morph__msg *ack)
{
  if (!job->rz_id || ack->id != job->rz_id) {
    morph__say(&d->log, 1, "job %lld: ignored ACK of resize %d (in flight: %d)", (long long)job->id,
                ack->id, job->rz_id);
    return;
  }
  int outcome = ack->outcome;
  int new_size = ack->new_size;
  /* Guard against an ACK that claims a size other than the one decided:
   * the booking follows the decision, so anything else is a failure. */
  if ((outcome == MORPH_OK || outcome == MORPH_EBUSY) && new_size != job->rz_to) {
    outcome = MORPH_EMISMATCH;
    new_size = job->size;
  }
  finish(d, job, outcome, new_size, ack->text);
}

void morph__resize_abort(morph__daemon *d, morph__job *job, int outcome, const char *why)
{
  if (job->rz_id)
    finish(d, job, outcome, job->size, why);
}

/* Carries out a waiting START whose shrink freed its slots: the part not
 * booked ahead must be free now; then the whole plan is booked as one. */
static void start_waiter(morph__daemon *d, morph__job *job)
{
  morph__alloc need;
  morph__alloc_init(&need);
  int rc = morph__alloc_copy(&need, &job->plan);
  if (rc == MORPH_OK)
    rc = morph__alloc_sub(&need, &job->extra);
  int size = job->rz_to;
  morph__pool_release(&d->pool, &job->extra);
  morph__alloc_clear(&job->extra);
  job->state = MORPH__J_PENDING;
  job->rz_id = 0, job->rz_to = 0;
  morph__alloc plan = job->plan;
  morph__alloc_init(&job->plan);
  if (rc != MORPH_OK || morph__sched_start(d, job, &plan, size) != MORPH_OK)
    morph__job_save(d, job);
  morph__alloc_free(&plan);
  morph__alloc_free(&need);
}

void morph__resize_release_waiters(morph__daemon *d, int rz_id, int shrink_ok)
{
  for (int i = 0; i < d->njobs; i++) {
    morph__job *job = d->jobs[i];
    if (job->state != MORPH__J_STARTING || job->rz_id != rz_id)
      continue;
    if (shrink_ok) {
      start_waiter(d, job);
      continue;
    }
    morph__pool_release(&d->pool, &job->extra);
    morph__alloc_clear(&job->extra);
    morph__alloc_clear(&job->plan);
    job->state = MORPH__J_PENDING;
    job->rz_id = 0, job->rz_to = 0;
    morph__journal_event(d->journal, morph__wall(), job->id, "requeue",
                         "resize %d failed: back in the queue", rz_id);
    morph__job_save(d, job);
  }
}
