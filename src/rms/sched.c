/*
 * The policy adapter: builds the policy engine's snapshot from the
 * backend's view of the nodes and from the daemon's jobs, asks for a
 * decision and hands each action to the part that carries it out (a start
 * to start.c, a resize to resize.c), journal first; all of them act on
 * resources only through the backend.
 *
 * Pieces a job holds without processes (an expansion in flight, the free
 * part of a START waiting for a shrink, pieces being released) count as
 * `used` on their nodes but belong to no job's allocation in the
 * snapshot, so the engine can neither hand them out again nor release
 * them. Jobs the backend shows that are not morphd's (Slurm's other jobs)
 * are in the snapshot too; actions on them are their resource manager's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "morph/error.h"
#include "rms/morphd.h"

typedef struct snap_buf {
  morph_policy_snapshot s;
  morph__job **run, **pend; /* the job behind each entry; NULL: not ours */
} snap_buf;

static void free_snap(snap_buf *b)
{
  free(b->s.nodes);
  free(b->s.running);
  free(b->s.pending);
  free(b->run);
  free(b->pend);
}

/* Processes in the view's units: a job's processes per unit (ppu) is 1
 * in slot units, its processes per node under Slurm's node units. */
static int units(const morph__job *job, int procs)
{
  return job->ppu > 1 ? procs / job->ppu : procs;
}

static void fill_limits(morph_policy_job *p, const morph__job *job)
{
  p->id = job->id;
  p->kind = (morph_policy_kind)job->kind; /* same order as paper 000 Table 3 */
  p->req_min = units(job, job->req_min), p->req_max = units(job, job->req_max);
  /* Limits that hold no whole node are no limits the engine can use: the
   * job stays at its size (status says why). */
  int fit = morph__job_unit_limits(job, &p->min, &p->pref, &p->max);
  if (!morph_job_kind_malleable(job->kind))
    p->min = p->pref = p->max = p->req_max;
  else if (!fit)
    p->min = p->pref = p->max = job->size > 0 ? units(job, job->size) : p->req_max;
  p->submit_time = job->submit;
  p->walltime = morph__limit_estimate(job); /* 0: the policy's default_walltime */
  p->traffic = job->traffic, p->traffic_n = job->traffic_n;
  /* What libmorph measures (PROGRESS: seconds per iteration, MPI seconds
   * per iteration): MTCT's trend is the last ratio; its running average
   * mixes sizes once the job has been resized, so from then on the last
   * ratio stands for both. Efficiency is the share of a loop not in MPI. */
  p->mtct_trend = job->mtct_trend;
  p->mtct_avg = job->resizes > 0 ? job->mtct_trend : job->mtct_avg;
  p->efficiency = job->iter_time > 0 && job->mpi_time >= 0 && job->mpi_time <= job->iter_time
                      ? 1.0 - job->mpi_time / job->iter_time
                      : -1;
}

static void fill_running(morph_policy_job *p, const morph__job *job,
                         const morph__backend_view *v)
{
  fill_limits(p, job);
  p->size = units(job, job->size);
  p->alloc = job->alloc.v, p->nalloc = job->alloc.n;
  p->expand_from = v->grow_above_master && job->alloc.n > 0 ? job->alloc.v[0].node + 1 : 0;
  p->start_time = job->start;
  p->last_change = job->last_change;
  /* Not yet connected, not yet malleable (no HELLO of its own) or busy:
   * the engine must leave it alone. */
  p->resizing = job->rz_id != 0 || job->conn < 0 ||
                (morph_job_kind_malleable(job->kind) && !job->ready);
  /* A shrink in flight will free its slots: rdmr counts them as coming. */
  p->resize_to = job->rz_id != 0 ? units(job, job->rz_to) : 0;
  p->failed_resizes = job->failed_resizes;
}

/* Our running and pending jobs, then those of the view. */
static void add_jobs(morph__daemon *d, const morph__backend_view *v, snap_buf *b)
{
  for (int i = 0; i < d->njobs; i++) {
    morph__job *job = d->jobs[i];
    if (job->state == MORPH__J_RUNNING) {
      b->run[b->s.nrunning] = job;
      fill_running(&b->s.running[b->s.nrunning++], job, v);
    } else if (job->state == MORPH__J_PENDING) {
      b->pend[b->s.npending] = job;
      fill_limits(&b->s.pending[b->s.npending++], job);
    }
  }
  for (int k = 0; k < v->nrunning; k++)
    b->s.running[b->s.nrunning++] = v->running[k];
  for (int k = 0; k < v->npending; k++)
    b->s.pending[b->s.npending++] = v->pending[k];
}

morph_policy_node_state morph__sched_node_state(const morph__daemon *d, const morph__node *n,
                                                int i)
{
  return n->state == MORPH_POLICY_NODE_UP && morph_place_failing(d->place, i)
             ? MORPH_POLICY_NODE_DRAINING : n->state;
}

static int build(morph__daemon *d, const morph__backend_view *v, snap_buf *b)
{
  memset(b, 0, sizeof *b);
  int n = d->njobs + v->nrunning + v->npending + 1;
  b->s.nodes = calloc((size_t)v->nnodes + 1, sizeof *b->s.nodes);
  b->s.running = calloc((size_t)n, sizeof *b->s.running);
  b->s.pending = calloc((size_t)n, sizeof *b->s.pending);
  b->run = calloc((size_t)n, sizeof *b->run);
  b->pend = calloc((size_t)n, sizeof *b->pend);
  if (!b->s.nodes || !b->s.running || !b->s.pending || !b->run || !b->pend)
    return MORPH_ENOMEM;
  b->s.now = morph__wall();
  b->s.unit = v->unit;
  /* A node the placement expects to fail drains: jobs move off it first. */
  for (int i = 0; i < v->nnodes; i++)
    b->s.nodes[i] = (morph_policy_node){
        .id = i, .slots = v->nodes[i].slots, .used = v->nodes[i].used,
        .state = morph__sched_node_state(d, &v->nodes[i], i)};
  b->s.nnodes = v->nnodes;
  add_jobs(d, v, b);
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

/* A START that must wait for shrink `rz_id`: the part of its pieces that
 * is free now is held for it; the rest comes with the shrink. */
static void start_later(morph__daemon *d, morph__job *job, const morph__alloc *pieces, int size,
                        int rz_id)
{
  morph__backend_view v;
  if (morph__backend_read(d->be, &v) != MORPH_OK)
    return;
  morph__alloc_clear(&job->extra);
  for (int k = 0; k < pieces->n; k++) {
    const morph__node *n = &v.nodes[pieces->v[k].node];
    int take = n->slots - n->used < pieces->v[k].slots ? n->slots - n->used : pieces->v[k].slots;
    morph__alloc_add(&job->extra, pieces->v[k].node, take > 0 ? take : 0);
  }
  if (morph__backend_hold(d->be, job, &job->extra) != MORPH_OK) {
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

/* Changes the job and journals action i (nothing is done yet); issued[i]:
 * the resize id of a resize, 1 for a start, 0 if nothing was planned. */
static void plan(morph__daemon *d, snap_buf *b, morph__batch *batch, int i, int *issued)
{
  const morph_policy_action *a = &d->acts.v[i];
  morph__job *job = a->op == MORPH_POLICY_START ? b->pend[a->job_index] : b->run[a->job_index];
  issued[i] = 0;
  if (!job) /* not our job: its resource manager carries it out */
    return;
  int start = a->op == MORPH_POLICY_START && a->depends < 0;
  if ((start && !morph__backend_starts_jobs(d->be)) ||
      (a->op == MORPH_POLICY_START && !start && issued[a->depends] <= 0))
    return;
  morph__step *s = morph__batch_add(batch, job);
  if (!s)
    return;
  morph__alloc pieces;
  morph__alloc_init(&pieces);
  pieces_of(&d->acts, a, &pieces);
  int to = a->to * job->ppu; /* resizes count processes from here on */
  if (start) {
    s->act = MORPH__ACT_START;
    s->rz = morph__start_plan(d, job, &pieces, a->to);
  } else if (a->op == MORPH_POLICY_START) {
    start_later(d, job, &pieces, a->to, issued[a->depends]);
  } else if (a->op == MORPH_POLICY_EXPAND) {
    s->act = MORPH__ACT_EXPAND;
    s->rz = morph__resize_expand_plan(d, job, to, &pieces);
  } else if (a->op == MORPH_POLICY_SHRINK) {
    s->act = MORPH__ACT_SHRINK;
    s->rz = morph__resize_shrink_plan(d, job, to, &pieces);
  }
  if (s->rz <= 0) /* nothing planned */
    s->act = MORPH__ACT_NONE, s->rz = 0;
  issued[i] = s->act == MORPH__ACT_START ? 1 : s->rz;
  /* The pause a resize costs the job does not count against its limit. */
  if (s->rz > 0 && s->act != MORPH__ACT_START)
    morph__limit_pause(job, morph__wall());
  morph__alloc_free(&pieces);
}

/* Journal first, then act: every action is planned and journaled in one
 * transaction, committed, and only then carried out; a decision the
 * journal does not take is undone whole. */
static void carry_out(morph__daemon *d, snap_buf *b, int *issued)
{
  morph__batch batch = {0};
  morph__journal_begin(d->journal);
  for (int i = 0; i < d->acts.n; i++)
    plan(d, b, &batch, i, issued);
  if (morph__batch_commit(d, &batch) == MORPH_OK) {
    int shrinks = 0;
    for (int i = 0; i < batch.n; i++)
      shrinks += batch.v[i].act == MORPH__ACT_SHRINK;
    if (shrinks)
      morph__crash_point(d, "shrink", "journaled");
    for (int i = 0; i < batch.n; i++) {
      morph__step *s = &batch.v[i];
      if (s->act == MORPH__ACT_EXPAND)
        morph__resize_expand_ask(d, s->job);
      else if (s->act == MORPH__ACT_SHRINK)
        morph__resize_shrink_send(d, s->job);
    }
    morph__batch_start(d, &batch, "start");
  }
  morph__batch_free(&batch);
}

/* Why a decision failed, for the log and the journal: once, and again
 * only when the reason changes (morphd decides every second). */
static void decision_failed(morph__daemon *d, int rc, int read, int placed)
{
  char why[512];
  if (read != MORPH_OK)
    snprintf(why, sizeof why, "cannot read the %s backend (%s)", morph__backend_name(d->be),
             morph_strerror(read));
  else if (placed != MORPH_OK)
    snprintf(why, sizeof why, "placement: %s", morph_place_errmsg(d->place));
  else
    snprintf(why, sizeof why, "%s", rc == MORPH_ENOMEM ? morph_strerror(rc)
                                                       : morph_policy_errmsg(d->policy));
  if (!strcmp(why, d->failed_why))
    return;
  snprintf(d->failed_why, sizeof d->failed_why, "%s", why);
  morph__say(&d->log, 0, "decision failed: %s (said once while it lasts)", why);
  morph__journal_event(d->journal, morph__wall(), 0, "error", "decision failed: %s", why);
}

int morph__sched_decide(morph__daemon *d)
{
  /* Nothing new is decided that the journal cannot hold (it is tried
   * again here, at most every MORPH__JOURNAL_RETRY_S). */
  if (!morph__journal_writable(d->journal))
    return MORPH_EIO;
  morph__backend_view v;
  snap_buf b;
  memset(&b, 0, sizeof b);
  morph__limits_tick(d);
  int read = morph__backend_read(d->be, &v);
  int rc = read == MORPH_OK ? build(d, &v, &b) : read;
  d->acts.n = 0;
  if (rc == MORPH_OK && (b.s.npending > 0 || b.s.nrunning > 0))
    rc = morph_policy_decide(d->policy, &b.s, &d->acts);
  int placed = MORPH_OK;
  /* The policy counts; the placement stage chooses the slots. */
  if (rc == MORPH_OK && d->acts.n > 0)
    rc = placed = morph_place_actions(d->place, &b.s, &d->acts);
  /* A resource manager that cannot be read now (slurmctld down) is the
   * backend's to report, once; no decision is taken until it answers. */
  if (rc != MORPH_OK && read != MORPH_EIO)
    decision_failed(d, rc, read, placed);
  else if (rc == MORPH_OK && d->failed_why[0]) {
    morph__say(&d->log, 0, "decisions are taken again");
    d->failed_why[0] = '\0';
  }
  if (rc == MORPH_OK && d->acts.n > 0) {
    int *issued = calloc((size_t)d->acts.n, sizeof *issued);
    if (issued)
      carry_out(d, &b, issued);
    free(issued);
  }
  d->decisions++;
  free_snap(&b);
  morph__jobs_check_books(d);
  return rc;
}
