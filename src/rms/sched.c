/*
 * The policy adapter: builds the policy engine's snapshot from the daemon's
 * jobs and pool (slot units), asks for a decision and carries it out.
 *
 * Slots booked ahead (an expansion in flight, the free part of a START
 * waiting for a shrink, slots of a shrink whose leavers were not seen to
 * exit) count as `used` on their nodes but belong to no job's allocation
 * in the snapshot, so the engine can neither hand them out again nor
 * release them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "morph/error.h"
#include "rms/morphd.h"

typedef struct snap_buf {
  morph_policy_snapshot s;
  morph__job **run, **pend; /* the job behind each snapshot entry */
} snap_buf;

static void free_snap(snap_buf *b)
{
  free(b->s.nodes);
  free(b->s.running);
  free(b->s.pending);
  free(b->run);
  free(b->pend);
}

static void fill_limits(morph_policy_job *p, const morph__job *job)
{
  p->id = job->id;
  p->kind = (morph_policy_kind)job->kind; /* same order as paper 000 Table 3 */
  p->req_min = job->req_min, p->req_max = job->req_max;
  p->min = job->min, p->max = job->max, p->pref = job->pref;
  if (!morph_job_kind_malleable(job->kind))
    p->min = p->pref = p->max = job->req_max;
  p->submit_time = job->submit;
  p->mtct_avg = job->mtct_avg, p->mtct_trend = job->mtct_trend;
  p->efficiency = -1;
}

static void fill_running(morph_policy_job *p, const morph__job *job)
{
  fill_limits(p, job);
  p->size = job->size;
  p->alloc = job->alloc.v, p->nalloc = job->alloc.n;
  p->start_time = job->start;
  p->last_change = job->last_change;
  /* Not yet connected, not yet malleable (no HELLO of its own) or busy:
   * the engine must leave it alone. */
  p->resizing = job->rz_id != 0 || job->conn < 0 ||
                (morph_job_kind_malleable(job->kind) && !job->ready);
  /* A shrink in flight will free its slots: rdmr counts them as coming. */
  p->resize_to = job->rz_id != 0 ? job->rz_to : 0;
  p->failed_resizes = job->failed_resizes;
}

static int build(morph__daemon *d, snap_buf *b)
{
  memset(b, 0, sizeof *b);
  int n = d->njobs ? d->njobs : 1;
  b->s.nodes = calloc((size_t)d->pool.n, sizeof *b->s.nodes);
  b->s.running = calloc((size_t)n, sizeof *b->s.running);
  b->s.pending = calloc((size_t)n, sizeof *b->s.pending);
  b->run = calloc((size_t)n, sizeof *b->run);
  b->pend = calloc((size_t)n, sizeof *b->pend);
  if (!b->s.nodes || !b->s.running || !b->s.pending || !b->run || !b->pend)
    return MORPH_ENOMEM;
  b->s.now = morph__wall();
  b->s.unit = MORPH_POLICY_UNIT_SLOT;
  for (int i = 0; i < d->pool.n; i++)
    b->s.nodes[i] = (morph_policy_node){.id = i, .slots = d->pool.nodes[i].slots,
                                        .used = d->pool.nodes[i].used};
  b->s.nnodes = d->pool.n;
  for (int i = 0; i < d->njobs; i++) {
    morph__job *job = d->jobs[i];
    if (job->state == MORPH__J_RUNNING) {
      b->run[b->s.nrunning] = job;
      fill_running(&b->s.running[b->s.nrunning++], job);
    } else if (job->state == MORPH__J_PENDING) {
      b->pend[b->s.npending] = job;
      fill_limits(&b->s.pending[b->s.npending++], job);
    }
  }
  return MORPH_OK;
}

static void pieces_of(const morph_policy_actions *acts, const morph_policy_action *a,
                      morph__alloc *out)
{
  morph__alloc_clear(out);
  for (int k = 0; k < a->alloc_count; k++)
    morph__alloc_add(out, acts->allocs[a->alloc_first + k].node,
                     acts->allocs[a->alloc_first + k].slots);
}

int morph__sched_start(morph__daemon *d, morph__job *job, const morph__alloc *pieces, int size)
{
  int rc = morph__pool_book(&d->pool, pieces);
  if (rc != MORPH_OK) {
    morph__say(&d->log, 0, "job %lld not started: its slots are taken (%s)", (long long)job->id,
                morph_strerror(rc));
    return rc;
  }
  double now = morph__wall();
  morph__alloc_copy(&job->alloc, pieces);
  job->size = size;
  job->state = MORPH__J_RUNNING;
  job->start = job->last_change = now;
  rc = morph__job_launch(d, job);
  morph__journal_resize_begin(d->journal, d->next_resize, job->id, MORPH__R_START, 0, size,
                              pieces, -1, now);
  morph__journal_resize_end(d->journal, d->next_resize++, now, rc, rc ? 0 : size, NULL);
  if (rc != MORPH_OK) {
    morph__job_end(d, job, -1, "morph run could not be started");
    return rc;
  }
  morph__journal_size(d->journal, job->id, now, size);
  morph__journal_event(d->journal, now, job->id, "start", "%d slots, pid %ld", size,
                       (long)job->pid);
  morph__job_save(d, job);
  morph__say(&d->log, 0, "job %lld started with %d slots", (long long)job->id, size);
  return MORPH_OK;
}

/* A START that must wait for shrink `rz_id`: book the free part now. */
static void start_later(morph__daemon *d, morph__job *job, const morph__alloc *pieces, int size,
                        int rz_id)
{
  morph__alloc_clear(&job->extra);
  for (int k = 0; k < pieces->n; k++) {
    const morph__node *n = &d->pool.nodes[pieces->v[k].node];
    int take = n->slots - n->used < pieces->v[k].slots ? n->slots - n->used : pieces->v[k].slots;
    morph__alloc_add(&job->extra, pieces->v[k].node, take > 0 ? take : 0);
  }
  if (morph__pool_book(&d->pool, &job->extra) != MORPH_OK) {
    morph__alloc_clear(&job->extra);
    return;
  }
  morph__alloc_copy(&job->plan, pieces);
  job->state = MORPH__J_STARTING;
  job->rz_id = rz_id;
  job->rz_to = size;
  morph__journal_event(d->journal, morph__wall(), job->id, "wait",
                       "starts with %d slots once resize %d has freed its slots", size, rz_id);
  morph__job_save(d, job);
}

static void carry_out(morph__daemon *d, snap_buf *b, int *issued)
{
  morph__alloc pieces;
  morph__alloc_init(&pieces);
  for (int i = 0; i < d->acts.n; i++) {
    const morph_policy_action *a = &d->acts.v[i];
    pieces_of(&d->acts, a, &pieces);
    issued[i] = 0;
    if (a->op == MORPH_POLICY_START && a->depends < 0)
      issued[i] = morph__sched_start(d, b->pend[a->job_index], &pieces, a->to) == MORPH_OK;
    else if (a->op == MORPH_POLICY_START && issued[a->depends] > 0)
      start_later(d, b->pend[a->job_index], &pieces, a->to, issued[a->depends]);
    else if (a->op == MORPH_POLICY_EXPAND)
      issued[i] = morph__resize_send(d, b->run[a->job_index], MORPH__R_EXPAND, a->to, &pieces, -1);
    else if (a->op == MORPH_POLICY_SHRINK)
      issued[i] = morph__resize_send(d, b->run[a->job_index], MORPH__R_SHRINK, a->to, &pieces, -1);
  }
  morph__alloc_free(&pieces);
}

int morph__sched_decide(morph__daemon *d)
{
  snap_buf b;
  int rc = build(d, &b);
  if (rc == MORPH_OK && (b.s.npending > 0 || b.s.nrunning > 0))
    rc = morph_policy_decide(d->policy, &b.s, &d->acts);
  else
    d->acts.n = 0;
  /* The policy counts; the placement stage chooses the slots. */
  const char *why = rc != MORPH_OK ? morph_policy_errmsg(d->policy) : NULL;
  if (rc == MORPH_OK && d->acts.n > 0 && (rc = morph_place_actions(d->place, &b.s, &d->acts)))
    why = morph_place_errmsg(d->place);
  if (rc != MORPH_OK) {
    morph__say(&d->log, 0, "decision failed: %s", why);
    morph__journal_event(d->journal, morph__wall(), 0, "error", "decision failed: %s", why);
  } else if (d->acts.n > 0) {
    int *issued = calloc((size_t)d->acts.n, sizeof *issued);
    morph__journal_begin(d->journal);
    if (issued)
      carry_out(d, &b, issued);
    morph__journal_commit(d->journal);
    free(issued);
  }
  d->decisions++;
  free_snap(&b);
  morph__jobs_check_books(d);
  return rc;
}
