/*
 * Expand and shrink, each a small state machine kept in the job record
 * (rz_id, rz_op, rz_phase, plan) so that a restarted morphd can go on:
 *
 *   EXPAND  GROW     the backend is asked for the new pieces (held in
 *                    extra from then on);
 *           SENT     granted: RESIZE tells the job; a good ACK adds the
 *                    pieces to its allocation;
 *           RELEASE  the job refused (or could not be told): the backend
 *                    takes the pieces back.
 *   SHRINK  SENT     RESIZE tells the job; morph run ACKs once the
 *                    leavers' processes are gone;
 *           RELEASE  the backend takes the released pieces back; only
 *                    then may a START that waited for them use them.
 *
 * A job that does not answer a RESIZE within opt.resize_timeout (its
 * morph run or its rank 0 hung) gets the same end as one that refused:
 * the resize fails with MORPH_ETIMEDOUT, the job keeps its old size, a
 * grow's pieces are released. An ACK that comes later is only written
 * down.
 *
 * Journal first: a phase is written and committed before what it starts
 * is done (the RESIZE sent, the backend asked), so a restarted morphd
 * never finds a job told or a backend asked something the journal does
 * not hold. What the job and the backend answer is written down after.
 *
 * The job counts as resizing until the last phase ends, so the policy
 * engine leaves it alone. The journal's resize record closes with the
 * job's answer (or the failure before it). A resize the job itself failed
 * counts in failed_resizes, which the engine reads to stop retrying; one
 * the backend or the connection failed does not.
 */
#include <stdio.h>
#include <string.h>

#include "morph/error.h"
#include "proto/hosts.h"
#include "rms/morphd.h"

static int idle(const morph__job *job)
{
  return job->state == MORPH__J_RUNNING && job->conn >= 0 && !job->rz_id;
}

/* Records the resize as in flight: the job's fields and the journal. */
static int begin(morph__daemon *d, morph__job *job, morph__rop op, int to,
                 const morph__alloc *pieces, morph__rphase phase)
{
  morph__alloc_copy(&job->plan, pieces);
  job->rz_id = d->next_resize++;
  job->rz_op = op, job->rz_to = to, job->rz_phase = phase;
  morph__journal_resize_begin(d->journal, job->rz_id, job->id, op, job->size, to, pieces, -1,
                              morph__wall());
  morph__job_save(d, job);
  morph__say(&d->log, 0, "job %lld: %s %d -> %d (resize %d)", (long long)job->id,
             morph__rop_name(op), job->size, to, job->rz_id);
  return job->rz_id;
}

static double resize_timeout(const morph__daemon *d)
{
  return d->opt.resize_timeout > 0 ? d->opt.resize_timeout : MORPH__RESIZE_TIMEOUT;
}

/* The RESIZE is out: the clock of its answer starts. */
static void mark_sent(morph__daemon *d, morph__job *job)
{
  job->rz_phase = MORPH__P_SENT;
  job->rz_deadline = morph__wall() + resize_timeout(d);
}

static int send_resize(morph__daemon *d, morph__job *job, int id, int to, const char *hosts,
                       int mechanism)
{
  if (job->conn < 0)
    return MORPH_ECONN;
  morph__msg m;
  morph__msg_init(&m, MORPH__MSG_RESIZE);
  m.id = id;
  m.size = to;
  m.iteration = -1;
  m.mechanism = mechanism;
  snprintf(m.hosts, sizeof m.hosts, "%s", hosts);
  return morph__wire_msg(d, job->conn, &m);
}

int morph__resize_expand_plan(morph__daemon *d, morph__job *job, int to,
                              const morph__alloc *pieces)
{
  if (!idle(job) || morph__alloc_add_all(&job->extra, pieces) != MORPH_OK)
    return 0;
  return begin(d, job, MORPH__R_EXPAND, to, pieces, MORPH__P_GROW);
}

/* "node3:2": the hosts of the pieces a shrink gives back, so that the
 * job's leavers are the processes there and those hosts empty whole; ""
 * on this machine alone ("localhost"), where any leavers do, or without
 * the backend's view (v NULL). */
static void leaver_hosts(const morph__backend_view *v, const morph__job *job,
                         const morph__alloc *pieces, char *buf, size_t size)
{
  morph__hostlist l;
  morph__hostlist_init(&l);
  int rc = v ? MORPH_OK : MORPH_ENOSYS;
  for (int k = 0; rc == MORPH_OK && k < pieces->n; k++) {
    int node = pieces->v[k].node;
    /* A whole node (Slurm) holds the job's processes per node, not its CPUs. */
    int procs = v->unit == MORPH_POLICY_UNIT_NODE ? job->ppu : pieces->v[k].slots;
    if (node >= 0 && node < v->nnodes && strcmp(v->nodes[node].host, "localhost") != 0)
      rc = morph__hostlist_add(&l, v->nodes[node].host, procs);
  }
  if (rc != MORPH_OK || morph__hostlist_format(&l, buf, size) != MORPH_OK)
    buf[0] = '\0';
  morph__hostlist_free(&l);
}

/* 1 if a node the pieces are on is going away: failing for the placement,
 * or not UP in the backend's view v (if any: drained by the administrator,
 * reserved, not responding; Slurm's DRAIN, for maintenance, is followed by
 * a reboot). */
static int going_away(const morph__daemon *d, const morph__backend_view *v,
                      const morph__alloc *pieces)
{
  for (int k = 0; k < pieces->n; k++) {
    int n = pieces->v[k].node;
    if (morph_place_failing(d->place, n) ||
        (v && n >= 0 && n < v->nnodes && v->nodes[n].state != MORPH_POLICY_NODE_UP))
      return 1;
  }
  return 0;
}

/* How a shrink is carried out: a move off a node that is going away is a
 * relaunch (the job checkpoints and morph run starts a new mpirun on a
 * hostfile without the hosts it left) when the job can and its launcher
 * said at HELLO that its checkpoint folder is one every host reads (morph
 * run --checkpoint-dir: morphd's own on the embedded backend, the submit
 * folder under `morph submit --slurm`). A live shrink would leave mpirun's
 * daemon on the node, and Open MPI 4.1's mpirun aborts every job when one
 * of its daemons dies, idle or not (docs/cluster.md): that is said in the
 * log when it cannot be helped. Else 0: the job chooses. */
static int shrink_mechanism(morph__daemon *d, const morph__job *job,
                            const morph__backend_view *v, const morph__alloc *pieces)
{
  if (!going_away(d, v, pieces))
    return 0;
  if ((job->mechanisms & MORPH__MECH_BIT_RELAUNCH) && job->shared_checkpoints)
    return MORPH__MECH_RELAUNCH;
  morph__say(&d->log, 0, "job %lld: leaves a failing or draining node by a live shrink (%s): "
             "mpirun's daemon stays there, and its loss ends the job", (long long)job->id,
             !(job->mechanisms & MORPH__MECH_BIT_RELAUNCH)
                 ? "it cannot relaunch"
                 : "its morph run has no --checkpoint-dir that every host reads");
  return 0;
}

int morph__resize_shrink_plan(morph__daemon *d, morph__job *job, int to,
                              const morph__alloc *pieces)
{
  if (!idle(job))
    return 0;
  job->rz_deadline = morph__wall() + resize_timeout(d);
  return begin(d, job, MORPH__R_SHRINK, to, pieces, MORPH__P_SENT);
}

/* Closes the journal's record of the resize in flight with the job's
 * current size; `ok`: the job has resized (outcome MORPH_OK, or
 * MORPH_EBUSY: leavers still seen). */
static void record(morph__daemon *d, morph__job *job, int ok, int outcome, const char *text)
{
  double now = morph__wall();
  const char *t = text ? text : "";
  morph__journal_resize_end(d->journal, job->rz_id, now, outcome, job->size, t);
  morph__journal_event(d->journal, now, job->id, morph__rop_name(job->rz_op),
                       "resize %d %s: size %d%s%s", job->rz_id, ok ? "done" : "failed", job->size,
                       *t ? "; " : "", t);
  morph__say(&d->log, 0, "job %lld: resize %d %s, size %d%s%s", (long long)job->id, job->rz_id,
             ok ? "done" : "failed", job->size, *t ? ": " : "", t);
}

/* Nothing of the resize is in flight any more. */
static void settle(morph__daemon *d, morph__job *job)
{
  job->rz_id = 0, job->rz_op = MORPH__R_NONE, job->rz_phase = MORPH__P_NONE, job->rz_to = 0;
  job->rz_deadline = 0;
  morph__alloc_clear(&job->plan);
  job->last_change = morph__wall();
  morph__job_save(d, job);
  d->dirty = 1;
}

/* The plan's pieces are to go back: written down here, asked of the
 * backend by ask_release once that is committed. */
static void mark_release(morph__daemon *d, morph__job *job)
{
  job->rz_phase = MORPH__P_RELEASE;
  morph__job_save(d, job);
}

/* Asks the backend for the plan's pieces back (journaled as RELEASE); if it
 * will not take them, they stay held with the job until it ends (nobody
 * is placed on them) and the starts that waited for them go back to the
 * queue. */
static void ask_release(morph__daemon *d, morph__job *job)
{
  if (job->rz_phase != MORPH__P_RELEASE)
    return;
  int rc = morph__backend_release(d->be, job, job->rz_id, &job->plan);
  if (rc == MORPH_OK)
    return;
  morph__say(&d->log, 0, "job %lld: slots of resize %d not given back (%s): held until it ends",
             (long long)job->id, job->rz_id, morph_strerror(rc));
  int id = job->rz_id;
  morph__journal_begin(d->journal);
  settle(d, job);
  morph__jobs_requeue(d, id, "kept its slots");
  morph__journal_commit(d->journal);
}

/* An expansion that will not happen: its pieces are to go back. */
static void give_back(morph__daemon *d, morph__job *job, int outcome, const char *text,
                      int counted)
{
  record(d, job, 0, outcome, text);
  job->failed_resizes += counted;
  mark_release(d, job);
}

int morph__resize_expand_ask(morph__daemon *d, morph__job *job)
{
  int rc = morph__backend_grow(d->be, job, job->rz_id, &job->plan);
  if (rc == MORPH_OK)
    return MORPH_OK;
  char text[160];
  snprintf(text, sizeof text, "the backend refused the slots: %s",
           rc == MORPH_EBUSY ? "they are taken" : morph_strerror(rc));
  morph__journal_begin(d->journal);
  morph__alloc_sub(&job->extra, &job->plan);
  record(d, job, 0, rc, text);
  settle(d, job);
  morph__journal_commit(d->journal);
  return rc;
}

int morph__resize_shrink_send(morph__daemon *d, morph__job *job)
{
  char hosts[512];
  morph__backend_view view;
  const morph__backend_view *v = morph__backend_read(d->be, &view) == MORPH_OK ? &view : NULL;
  leaver_hosts(v, job, &job->plan, hosts, sizeof hosts);
  int mech = shrink_mechanism(d, job, v, &job->plan);
  int rc = send_resize(d, job, job->rz_id, job->rz_to, hosts, mech);
  if (rc == MORPH_OK && mech)
    morph__say(&d->log, 0, "job %lld: leaves a failing or draining node by relaunch (%s)",
               (long long)job->id, hosts);
  if (rc == MORPH_OK) {
    morph__crash_point(d, "shrink", "sent");
    return MORPH_OK;
  }
  int id = job->rz_id;
  morph__journal_begin(d->journal);
  record(d, job, 0, MORPH_ECONN, "the job could not be told");
  settle(d, job);
  morph__jobs_requeue(d, id, "failed");
  morph__journal_commit(d->journal);
  return rc;
}

/* One resize as its own decision: planned, committed, carried out. */
static int resize_one(morph__daemon *d, morph__job *job, morph__rop op, int to,
                      const morph__alloc *pieces)
{
  morph__batch b = {0};
  morph__journal_begin(d->journal);
  int id = 0;
  if (morph__batch_add(&b, job))
    id = op == MORPH__R_EXPAND ? morph__resize_expand_plan(d, job, to, pieces)
                               : morph__resize_shrink_plan(d, job, to, pieces);
  if (morph__batch_commit(d, &b) != MORPH_OK)
    id = 0;
  morph__batch_free(&b);
  if (id && op == MORPH__R_EXPAND && morph__resize_expand_ask(d, job) != MORPH_OK)
    id = 0;
  if (id && op == MORPH__R_SHRINK && morph__resize_shrink_send(d, job) != MORPH_OK)
    id = 0;
  return id;
}

int morph__resize_expand(morph__daemon *d, morph__job *job, int to, const morph__alloc *pieces)
{
  return resize_one(d, job, MORPH__R_EXPAND, to, pieces);
}

int morph__resize_shrink(morph__daemon *d, morph__job *job, int to, const morph__alloc *pieces)
{
  return resize_one(d, job, MORPH__R_SHRINK, to, pieces);
}

/* The grant of a grow: RESIZE names the joiners' hosts once SENT is in
 * the journal; a journal that does not take it, or a job that cannot be
 * told, gives the pieces back. */
static void grant(morph__daemon *d, morph__job *job, const char *hosts)
{
  morph__journal_begin(d->journal);
  mark_sent(d, job);
  morph__job_save(d, job);
  int rc = morph__journal_commit_first(d->journal);
  if (rc == MORPH_OK && send_resize(d, job, job->rz_id, job->rz_to, hosts, 0) == MORPH_OK)
    return;
  morph__journal_begin(d->journal);
  job->rz_phase = MORPH__P_GROW;
  give_back(d, job, MORPH_ECONN, rc == MORPH_OK ? "the job could not be told"
                                                : "the journal cannot be written", 0);
  morph__journal_commit(d->journal);
  ask_release(d, job);
}

void morph__resize_grown(morph__daemon *d, morph__job *job, const morph__backend_event *ev)
{
  if (job->rz_id != ev->req || job->rz_phase != MORPH__P_GROW) {
    morph__say(&d->log, 1, "job %lld: ignored the grant of request %d", (long long)job->id,
               ev->req);
    return;
  }
  if (ev->outcome == MORPH_OK) {
    grant(d, job, ev->hosts);
    return;
  }
  morph__journal_begin(d->journal);
  morph__alloc_sub(&job->extra, &job->plan);
  record(d, job, 0, ev->outcome, ev->text[0] ? ev->text : "the backend did not grant the slots");
  settle(d, job);
  morph__journal_commit(d->journal);
}

/* The job has its new size. */
static void resized(morph__daemon *d, morph__job *job, int outcome, int new_size,
                    const char *text)
{
  job->size = new_size;
  job->resizes++;
  morph__journal_size(d->journal, job->id, morph__wall(), new_size);
  record(d, job, 1, outcome, text);
}

static void expand_done(morph__daemon *d, morph__job *job, int outcome, int new_size,
                        const char *text)
{
  morph__alloc_add_all(&job->alloc, &job->plan);
  morph__alloc_sub(&job->extra, &job->plan);
  resized(d, job, outcome, new_size, text);
  settle(d, job);
}

/* MORPH_EBUSY: the job shrank but morph run still saw leavers, so their
 * slots stay held with the job until it ends. */
static void shrink_done(morph__daemon *d, morph__job *job, int outcome, int new_size,
                        const char *text)
{
  morph__alloc_sub(&job->alloc, &job->plan);
  morph__alloc_add_all(&job->extra, &job->plan);
  resized(d, job, outcome, new_size, text);
  if (outcome == MORPH_OK) {
    mark_release(d, job);
    return;
  }
  int id = job->rz_id;
  settle(d, job);
  morph__jobs_requeue(d, id, "left busy slots");
}

static void shrink_failed(morph__daemon *d, morph__job *job, int outcome, const char *text)
{
  int id = job->rz_id;
  job->failed_resizes++;
  record(d, job, 0, outcome, text);
  settle(d, job);
  morph__jobs_requeue(d, id, "failed");
}

/* The answer to a resize that timed out: the books stay as the timeout
 * left them; what the job says is written down, so that a job that did
 * resize after all is visible in the journal. */
static void late_ack(morph__daemon *d, morph__job *job, const morph__msg *ack)
{
  morph__journal_event(d->journal, morph__wall(), job->id, "late",
                       "ACK of resize %d after its timeout: %s, size %d -> %d%s%s", ack->id,
                       morph_strerror(ack->outcome), ack->old_size, ack->new_size,
                       ack->text[0] ? "; " : "", ack->text);
  morph__say(&d->log, 0, "job %lld: late ACK of resize %d (%s, size %d) ignored",
             (long long)job->id, ack->id, morph_strerror(ack->outcome), ack->new_size);
}

void morph__resize_ack(morph__daemon *d, morph__job *job, const morph__msg *ack)
{
  if (ack->id && ack->id == job->rz_expired && ack->id != job->rz_id) {
    late_ack(d, job, ack);
    return;
  }
  if (!job->rz_id || ack->id != job->rz_id || job->rz_phase != MORPH__P_SENT) {
    morph__say(&d->log, 1, "job %lld: ignored ACK of resize %d (in flight: %d)",
               (long long)job->id, ack->id, job->rz_id);
    return;
  }
  const char *who = job->rz_op == MORPH__R_SHRINK ? "shrink" : "expand";
  morph__crash_point(d, who, "ack-heard");
  int outcome = ack->outcome;
  int new_size = ack->new_size;
  /* Guard against an ACK that claims a size other than the one decided:
   * the booking follows the decision, so anything else is a failure. */
  if ((outcome == MORPH_OK || outcome == MORPH_EBUSY) && new_size != job->rz_to)
    outcome = MORPH_EMISMATCH;
  int ok = outcome == MORPH_OK || outcome == MORPH_EBUSY;
  morph__journal_begin(d->journal);
  if (job->rz_op == MORPH__R_EXPAND && ok)
    expand_done(d, job, outcome, new_size, ack->text);
  else if (job->rz_op == MORPH__R_EXPAND)
    give_back(d, job, outcome, ack->text, 1);
  else if (ok)
    shrink_done(d, job, outcome, new_size, ack->text);
  else
    shrink_failed(d, job, outcome, ack->text);
  morph__journal_commit(d->journal);
  morph__crash_point(d, who, "ack-journaled");
  ask_release(d, job);
}

/* The starts that waited for shrink `id`: each hands back what it held
 * ahead and is started on its whole plan, journal first. If the journal
 * does not take the starts, they go back to the queue. */
static void start_waiters(morph__daemon *d, int id)
{
  morph__batch b = {0};
  morph__journal_begin(d->journal);
  for (int i = 0; i < d->njobs; i++) {
    morph__job *job = d->jobs[i];
    morph__step *s = job->state == MORPH__J_STARTING && job->rz_id == id
                         ? morph__batch_add(&b, job)
                         : NULL;
    if (!s)
      continue;
    morph__alloc plan = job->plan;
    morph__alloc_init(&job->plan);
    morph__backend_drop(d->be, job);
    morph__alloc_clear(&job->extra);
    int size = job->rz_to;
    job->state = MORPH__J_PENDING; /* where it stays if it cannot be planned */
    job->rz_id = 0, job->rz_to = 0;
    s->rz = morph__start_plan(d, job, &plan, size);
    s->act = s->rz > 0 ? MORPH__ACT_START : MORPH__ACT_NONE;
    morph__alloc_free(&plan);
  }
  if (morph__batch_commit(d, &b) == MORPH_OK)
    morph__batch_start(d, &b, "waiter");
  else
    morph__jobs_requeue(d, id, "freed its slots, but the journal cannot be written");
  morph__batch_free(&b);
}

void morph__resize_released(morph__daemon *d, morph__job *job, const morph__backend_event *ev)
{
  if (job->rz_id != ev->req || job->rz_phase != MORPH__P_RELEASE) {
    morph__say(&d->log, 1, "job %lld: ignored the release of request %d", (long long)job->id,
               ev->req);
    return;
  }
  morph__crash_point(d, "release", "heard");
  int id = job->rz_id;
  morph__journal_begin(d->journal);
  if (ev->outcome == MORPH_OK)
    morph__alloc_sub(&job->extra, &job->plan);
  else
    morph__say(&d->log, 0, "job %lld: slots of resize %d not given back (%s): held until it ends",
               (long long)job->id, id, ev->text[0] ? ev->text : morph_strerror(ev->outcome));
  settle(d, job);
  if (ev->outcome != MORPH_OK)
    morph__jobs_requeue(d, id, "kept its slots");
  morph__journal_commit(d->journal);
  morph__crash_point(d, "release", "journaled");
  if (ev->outcome == MORPH_OK)
    start_waiters(d, id);
}

void morph__resize_resume(morph__daemon *d, morph__job *job)
{
  if (job->state != MORPH__J_RUNNING || !job->rz_id)
    return;
  if (job->rz_phase == MORPH__P_GROW) {
    morph__journal_begin(d->journal);
    give_back(d, job, MORPH_ECONN, "morphd restarted before the job was told", 0);
    morph__journal_commit(d->journal);
  }
  ask_release(d, job);
}

/* The job did not answer in time: it is taken to be still at its old
 * size. The failure counts against the job, like a refusal, so the
 * policy engine stops asking a job that never answers. */
static void expire(morph__daemon *d, morph__job *job)
{
  char text[128];
  snprintf(text, sizeof text, "the job did not answer within %g s", resize_timeout(d));
  job->rz_expired = job->rz_id;
  morph__journal_begin(d->journal);
  if (job->rz_op == MORPH__R_EXPAND)
    give_back(d, job, MORPH_ETIMEDOUT, text, 1);
  else
    shrink_failed(d, job, MORPH_ETIMEDOUT, text);
  morph__journal_commit(d->journal);
  ask_release(d, job);
}

void morph__resize_expire(morph__daemon *d)
{
  double now = morph__wall();
  for (int i = 0; i < d->njobs; i++) {
    morph__job *job = d->jobs[i];
    if (job->state != MORPH__J_RUNNING || !job->rz_id || job->rz_phase != MORPH__P_SENT)
      continue;
    if (job->rz_deadline <= 0) /* sent by a morphd before a restart */
      job->rz_deadline = now + resize_timeout(d);
    else if (now > job->rz_deadline)
      expire(d, job);
  }
}

void morph__resize_abort(morph__daemon *d, morph__job *job, int outcome, const char *why)
{
  if (job->state != MORPH__J_RUNNING || !job->rz_id)
    return;
  int id = job->rz_id;
  if (job->rz_phase != MORPH__P_RELEASE) /* else closed already */
    record(d, job, 0, outcome, why);
  settle(d, job);
  morph__jobs_requeue(d, id, "failed");
}
