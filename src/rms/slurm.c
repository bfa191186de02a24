/*
 * rms/slurm: the backend ops on top of Slurm (slurm.h says what is where).
 * Slurm is read in next(); read() answers from that picture and refuses
 * (MORPH_EIO) while slurmctld does not answer, so no decision is taken on
 * an old picture and nothing is booked or let go meanwhile.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/clock.h"
#include "morph/error.h"
#include "rms/slurm.h"

#define REFRESH_S 1.0
#define REFRESH_GROW_S 0.1 /* while an expander waits */

static morph__sl *self(morph__backend *b)
{
  return (morph__sl *)b;
}

static int sl_open(const morph__backend_conf *conf, morph__backend **out, char *err,
                   size_t errsize)
{
  *out = NULL;
  const char *cf = getenv("SLURM_CONF");
  if (!cf || !*cf)
    return snprintf(err, errsize, "the slurm backend needs SLURM_CONF (the path of slurm.conf): "
                                  "without it Slurm looks for its controller in DNS"),
           MORPH_EINVAL;
  morph__sl *s = calloc(1, sizeof *s);
  if (!s)
    return snprintf(err, errsize, "out of memory"), MORPH_ENOMEM;
  s->base.ops = &morph__slurm_ops;
  s->log = conf->log;
  slurm_init(cf);
  int rc = morph__sl_refresh(s, err, errsize);
  if (rc != MORPH_OK) {
    size_t len = strlen(err);
    snprintf(err + len, errsize - len, " (slurmctld of %s)", cf);
    morph__slurm_ops.close(&s->base);
    return rc;
  }
  *out = &s->base;
  return MORPH_OK;
}

static void claim_free(morph__sl_claim *c)
{
  morph__alloc_free(&c->holds);
  morph__alloc_free(&c->grow);
  morph__alloc_free(&c->last);
}

static void sl_close(morph__backend *b)
{
  morph__sl *s = self(b);
  if (s->probe > 0)
    kill(s->probe, SIGKILL), waitpid(s->probe, NULL, 0);
  for (int i = 0; i < s->nclaims; i++)
    claim_free(&s->claims[i]);
  for (int i = 0; i < s->nq; i++)
    morph__alloc_free(&s->q[i].unhold);
  slurm_free_job_info_msg(s->jobs);
  slurm_free_node_info_msg(s->nodes_msg);
  slurm_free_reservation_info_msg(s->resv);
  free(s->nodes), free(s->prev_state), free(s->prev_pending), free(s->refused_until);
  free(s->running), free(s->pending), free(s->pieces);
  free(s->claims), free(s->q);
  free(s);
  slurm_fini();
}

static int sl_read(morph__backend *b, morph__backend_view *v)
{
  morph__sl *s = self(b);
  memset(v, 0, sizeof *v);
  v->unit = MORPH_POLICY_UNIT_NODE;
  if (s->stale)
    return MORPH_EIO;
  v->nodes = s->nodes, v->nnodes = s->nnodes;
  v->running = s->running, v->nrunning = s->nrunning;
  v->pending = s->pending, v->npending = s->npending;
  v->grow_above_master = 1; /* the batch host is a claimed job's first node */
  return MORPH_OK;
}

/* Rebuilds the view after the claims changed (no new load if Slurm has
 * not changed). A failure leaves the picture stale: logged. Nothing while
 * it is stale: a call to a dead slurmctld blocks for its MessageTimeout
 * (10 s), and the probe below finds out when it is back. */
static void rebuild(morph__sl *s)
{
  char err[256];
  if (!s->stale && morph__sl_refresh(s, err, sizeof err) != MORPH_OK)
    morph__say(s->log, 0, "%s", err);
  s->next_refresh = morph__wall() + REFRESH_S;
}

static morph__sl_claim *claim_new(morph__sl *s, int64_t id)
{
  if (s->nclaims == s->capclaims) {
    int cap = s->capclaims ? 2 * s->capclaims : 8;
    morph__sl_claim *v = realloc(s->claims, (size_t)cap * sizeof *v);
    if (!v)
      return NULL;
    s->claims = v, s->capclaims = cap;
  }
  morph__sl_claim *c = &s->claims[s->nclaims++];
  memset(c, 0, sizeof *c);
  c->id = id;
  c->ppu = 1;
  return c;
}

/* Why Slurm's job j cannot be morphd's ("" if it can). */
static void unfit(const slurm_job_info_t *j, int size, int nodes, char *why, size_t size_why)
{
  *why = '\0';
  if (j->shared != 0)
    snprintf(why, size_why, "Slurm job %u is not --exclusive: with CR_Core an expander could "
             "be given one of its own nodes; submit it with --exclusive", j->job_id);
  else if (nodes < 1 || size % nodes)
    snprintf(why, size_why, "Slurm job %u: %d processes do not spread evenly on its %d nodes",
             j->job_id, size, nodes);
}

static void fill_job(morph__job *job, const slurm_job_info_t *j)
{
  job->uid = (uid_t)j->user_id, job->gid = (gid_t)j->group_id;
  if (!job->name[0] && j->name)
    snprintf(job->name, sizeof job->name, "%s", j->name);
  job->submit = (double)j->submit_time;
  job->start = job->last_change = (double)j->start_time;
  if (!job->cwd && j->work_dir)
    job->cwd = strdup(j->work_dir);
  if (!job->out && j->std_out)
    job->out = strdup(j->std_out);
  if (!job->err && j->std_err)
    job->err = strdup(j->std_err);
}

static int sl_claim(morph__backend *b, morph__job *job, char *err, size_t errsize)
{
  morph__sl *s = self(b);
  if (!s->stale)
    rebuild(s);
  if (s->stale)
    return snprintf(err, errsize, "cannot read Slurm's state: %s", morph__sl_strerror()),
           MORPH_EIO;
  const slurm_job_info_t *j = job->id > 0 ? morph__sl_job(s, (uint32_t)job->id) : NULL;
  if (!j || (j->job_state & JOB_STATE_BASE) != JOB_RUNNING)
    return snprintf(err, errsize, "Slurm has no running job %lld", (long long)job->id),
           MORPH_ENOENT;
  if (morph__sl_claim_of(s, job->id))
    return snprintf(err, errsize, "Slurm job %lld is morphd's already", (long long)job->id),
           MORPH_EINVAL;
  int rc = morph__sl_job_nodes(s, j, &job->alloc);
  unfit(j, job->size, job->alloc.n, err, errsize);
  if (rc != MORPH_OK || *err) {
    morph__alloc_clear(&job->alloc);
    if (!*err)
      snprintf(err, errsize, "Slurm job %u: %s", j->job_id, morph_strerror(rc));
    return rc != MORPH_OK ? rc : MORPH_EINVAL;
  }
  morph__sl_claim *c = claim_new(s, job->id);
  if (!c)
    return snprintf(err, errsize, "out of memory"), MORPH_ENOMEM;
  job->ppu = c->ppu = job->size / job->alloc.n;
  fill_job(job, j);
  rebuild(s);
  return MORPH_OK;
}

/* True if every piece is a whole node that is UP and nobody's. */
static int all_free(const morph__sl *s, const morph__alloc *pieces)
{
  for (int k = 0; k < pieces->n; k++) {
    int n = pieces->v[k].node;
    if (n < 0 || n >= s->nnodes || s->nodes[n].used || s->nodes[n].state != MORPH_POLICY_NODE_UP)
      return 0;
  }
  return pieces->n > 0;
}

/* True if every piece is numbered above job j's batch host. Slurm 22.05
 * refreshes a batch job's "last active" time only from its lowest-numbered
 * node and checks it from its batch host: a job grown onto a node below
 * its batch host ends NODE_FAIL at the next node registration
 * (docs/slurm.md). Placement keeps grows above it (expand_from); this is
 * the backend's own guard. */
static int above_batch_host(const morph__sl *s, const slurm_job_info_t *j,
                            const morph__alloc *pieces)
{
  int batch = j->batch_host ? morph__sl_node_index(s, j->batch_host) : -1;
  for (int k = 0; k < pieces->n; k++)
    if (pieces->v[k].node <= batch) {
      morph__say(s->log, 0, "job %u: no grow onto %s, numbered below its batch host %s "
                 "(Slurm would end the job NODE_FAIL)", j->job_id,
                 s->nodes[pieces->v[k].node].host, j->batch_host);
      return 0;
    }
  return 1;
}

static int sl_grow(morph__backend *b, const morph__job *job, int req, const morph__alloc *pieces)
{
  morph__sl *s = self(b);
  morph__sl_claim *c = morph__sl_claim_of(s, job->id);
  const slurm_job_info_t *j = morph__sl_job(s, (uint32_t)job->id);
  if (!c || !j || c->grow_req || s->stale)
    return MORPH_EINVAL;
  /* Slurm refuses an expander of a job it is ending ("Job dependency
   * problem"): no request for one. */
  if (!morph__sl_job_runs(j))
    return MORPH_ESTATE;
  if (!all_free(s, pieces))
    return MORPH_EBUSY;
  if (!above_batch_host(s, j, pieces))
    return MORPH_EINVAL;
  if (morph__alloc_copy(&c->grow, pieces) != MORPH_OK ||
      morph__alloc_add_all(&c->holds, pieces) != MORPH_OK)
    return MORPH_ENOMEM;
  c->grow_req = req;
  for (int k = 0; k < pieces->n; k++)
    s->nodes[pieces->v[k].node].used = s->nodes[pieces->v[k].node].slots;
  s->next_refresh = morph__wall() + REFRESH_GROW_S;
  return morph__sl_grow_submit(s, c, j);
}

/* Splits a release of job j: `in`, the pieces of `leave` that Slurm shows
 * in the job (the others are held by the backend since a restart), and
 * the Slurm node list of the job's nodes without them. Errors:
 * MORPH_EINVAL (nothing would be left: Slurm would end the job),
 * MORPH_ENOMEM, MORPH_ENOENT. */
static int keep_list(const morph__sl *s, const slurm_job_info_t *j, const morph__alloc *leave,
                     morph__alloc *in, char *buf, size_t size)
{
  morph__alloc nodes, keep;
  morph__alloc_init(&nodes), morph__alloc_init(&keep);
  morph__alloc_clear(in);
  int rc = morph__sl_job_nodes(s, j, &nodes);
  for (int k = 0; rc == MORPH_OK && k < nodes.n; k++) {
    const morph_policy_alloc *p = &nodes.v[k];
    int slots = morph__alloc_on(leave, p->node);
    rc = slots ? morph__alloc_add(in, p->node, slots) : morph__alloc_add(&keep, p->node, p->slots);
  }
  if (rc == MORPH_OK && keep.n == 0)
    rc = MORPH_EINVAL;
  if (rc == MORPH_OK)
    morph__sl_hostlist(s, &keep, buf, size);
  morph__alloc_free(&nodes), morph__alloc_free(&keep);
  return rc;
}

/* Has Slurm give back `in` (the job keeps the nodes in `keep`); a refusal
 * is queued as RELEASED with Slurm's reason, and `in` stays held until the
 * job is dropped: morphd keeps those slots with the job until it ends, so
 * the view must not offer them meanwhile (it did, while Slurm showed the
 * ending job on fewer nodes, and morphd planned a grow onto them).
 * Errors: MORPH_ENOMEM. */
static int update_nodes(morph__sl *s, morph__sl_claim *c, morph__backend_event *ev, char *keep,
                        const morph__alloc *in)
{
  job_desc_msg_t d;
  slurm_init_job_desc_msg(&d);
  d.job_id = (uint32_t)c->id;
  d.req_nodes = keep;
  double t0 = morph__wall();
  if (slurm_update_job(&d) != SLURM_SUCCESS) {
    ev->outcome = MORPH_EBUSY;
    snprintf(ev->text, sizeof ev->text, "Slurm did not shrink job %lld to %.120s: %s",
             (long long)c->id, keep, morph__sl_strerror());
    int rc = morph__alloc_add_all(&c->holds, in);
    return rc != MORPH_OK ? rc : morph__sl_enqueue(s, ev, NULL);
  }
  snprintf(ev->text, sizeof ev->text, "Slurm job %lld now on %.200s (update %.3f s)",
           (long long)c->id, keep, morph__wall() - t0);
  morph__say(s->log, 1, "job %lld: %s", (long long)c->id, ev->text);
  /* Held until RELEASED is delivered: morphd's books let go then. */
  return morph__alloc_add_all(&c->holds, in);
}

static int sl_release(morph__backend *b, const morph__job *job, int req,
                      const morph__alloc *pieces)
{
  morph__sl *s = self(b);
  morph__sl_claim *c = morph__sl_claim_of(s, job->id);
  const slurm_job_info_t *j = morph__sl_job(s, (uint32_t)job->id);
  char keep[1024];
  morph__alloc in;
  morph__alloc_init(&in);
  if (!c || !j || s->stale || keep_list(s, j, pieces, &in, keep, sizeof keep) != MORPH_OK) {
    morph__alloc_free(&in);
    return MORPH_EINVAL;
  }
  morph__backend_event ev = morph__sl_event(MORPH__BE_RELEASED, job->id, req);
  int rc = MORPH_OK;
  if (in.n == 0) /* a grow Slurm never merged (restart): nothing to ask */
    snprintf(ev.text, sizeof ev.text, "not in Slurm's job %lld: let go", (long long)job->id);
  else
    rc = update_nodes(s, c, &ev, keep, &in);
  morph__alloc_free(&in);
  if (rc != MORPH_OK || ev.outcome != MORPH_OK) {
    rebuild(s); /* a refusal may be Slurm ending the job: see it now */
    return rc;
  }
  rc = morph__sl_enqueue(s, &ev, pieces);
  rebuild(s);
  return rc;
}

static void sl_drop(morph__backend *b, const morph__job *job)
{
  morph__sl *s = self(b);
  morph__sl_claim *c = morph__sl_claim_of(s, job->id);
  if (!c)
    return;
  morph__sl_grow_cancel(s, c);
  for (int i = 0; i < s->nq; i++)
    if (s->q[i].ev.job == job->id && s->q[i].ev.kind != MORPH__BE_NODE)
      s->q[i].ev.kind = 0; /* forgotten: never delivered */
  claim_free(c);
  *c = s->claims[--s->nclaims];
  rebuild(s);
}

static int sl_stop(morph__backend *b, const morph__job *job)
{
  morph__sl *s = self(b);
  if (!morph__sl_claim_of(s, job->id))
    return MORPH_ESTATE;
  /* Every process of the job, the batch step's too: morph run stops its
   * mpirun and says BYE. */
  if (slurm_kill_job((uint32_t)job->id, SIGTERM, KILL_FULL_JOB) != SLURM_SUCCESS) {
    morph__say(s->log, 0, "cannot signal Slurm job %lld: %s", (long long)job->id,
               morph__sl_strerror());
    return slurm_get_errno() == ESLURM_ALREADY_DONE ? MORPH_ESTATE : MORPH_EIO;
  }
  return MORPH_OK;
}

/* job->extra's pieces that Slurm does not show in job j (none if j is
 * not running): what the backend must hold for them itself. */
static int extra_outside(const morph__sl *s, const slurm_job_info_t *j, const morph__alloc *extra,
                         morph__alloc *out)
{
  morph__alloc in;
  morph__alloc_init(&in);
  int rc = j && morph__sl_job_holds(j) ? morph__sl_job_nodes(s, j, &in) : MORPH_OK;
  morph__alloc_clear(out);
  for (int k = 0; rc == MORPH_OK && k < extra->n; k++)
    if (!morph__alloc_on(&in, extra->v[k].node))
      rc = morph__alloc_add(out, extra->v[k].node, extra->v[k].slots);
  morph__alloc_free(&in);
  return rc;
}

/* A grow of job `id` that a morphd before a restart left: its expander,
 * pending or granted but never merged, would keep its nodes for nothing. */
static void cancel_orphan_expanders(morph__sl *s, int64_t id)
{
  char name[64];
  snprintf(name, sizeof name, "%s-%lld", MORPH__SL_NAME_GROW, (long long)id);
  for (uint32_t i = 0; s->jobs && i < s->jobs->record_count; i++) {
    const slurm_job_info_t *e = &s->jobs->job_array[i];
    uint32_t st = e->job_state & JOB_STATE_BASE;
    if (!e->name || strcmp(e->name, name) || (st != JOB_PENDING && st != JOB_RUNNING))
      continue;
    morph__say(s->log, 0, "job %lld: cancelling expander %u, left by a grow before a restart",
               (long long)id, e->job_id);
    if (slurm_kill_job(e->job_id, SIGKILL, 0) != SLURM_SUCCESS)
      morph__say(s->log, 0, "cannot cancel expander %u: %s", e->job_id, morph__sl_strerror());
  }
}

/* After a restart: the job's Slurm nodes are its alloc; the pieces of
 * job->extra (a grow or release in flight) that Slurm does not show as
 * the job's are held until morphd settles them. (Holding all of extra
 * counted a merged grow twice: the release that gives it back unholds it
 * once, and its nodes stayed used for ever.) A job Slurm no longer runs is
 * claimed too and its end reported by next(). */
static int sl_adopt(morph__backend *b, morph__job *job, char *err, size_t errsize)
{
  morph__sl *s = self(b);
  morph__sl_claim *c = claim_new(s, job->id);
  const slurm_job_info_t *j = morph__sl_job(s, (uint32_t)job->id);
  /* Until Slurm shows the job again, its nodes are the journal's. */
  if (!c || extra_outside(s, j, &job->extra, &c->holds) != MORPH_OK ||
      morph__alloc_copy(&c->last, &job->alloc) != MORPH_OK)
    return snprintf(err, errsize, "out of memory"), MORPH_ENOMEM;
  cancel_orphan_expanders(s, job->id);
  job->ppu = c->ppu = job->alloc.n > 0 && job->size % job->alloc.n == 0
                          ? job->size / job->alloc.n : 1;
  rebuild(s);
  return MORPH_OK;
}

/* ENDED for claimed jobs Slurm shows over (or no longer shows). */
static void watch_ends(morph__sl *s)
{
  for (int i = 0; i < s->nclaims; i++) {
    morph__sl_claim *c = &s->claims[i];
    const slurm_job_info_t *j = morph__sl_job(s, (uint32_t)c->id);
    if (c->ended || (j && morph__sl_job_holds(j) && !(j->job_state & JOB_COMPLETING)))
      continue;
    morph__backend_event ev = morph__sl_event(MORPH__BE_ENDED, c->id, 0);
    ev.known = j != NULL;
    if (j) {
      /* The state without COMPLETING, which Slurm's name would show
       * instead: CANCELLED, TIMEOUT, NODE_FAIL... */
      uint32_t st = j->job_state & JOB_STATE_BASE;
      ev.cancelled = st == JOB_CANCELLED;
      ev.status = WIFSIGNALED(j->exit_code) ? 128 + WTERMSIG(j->exit_code)
                                             : WEXITSTATUS(j->exit_code);
      if (ev.status == 0 && st != JOB_COMPLETE)
        ev.status = -1; /* ended by Slurm, not by itself: not a success */
      snprintf(ev.text, sizeof ev.text, "Slurm: job %s", slurm_job_state_string(st));
    } else {
      snprintf(ev.text, sizeof ev.text, "Slurm no longer lists the job");
    }
    if (morph__sl_enqueue(s, &ev, NULL) == MORPH_OK)
      c->ended = 1;
  }
}

/* Slurm's state of job id, loaded now (the picture may be a second old:
 * a BYE after a time limit's signal can come before it shows TIMEOUT). */
static int sl_ended_by(morph__backend *b, const morph__job *job, char *text, size_t size,
                       int *cancelled)
{
  morph__sl *s = self(b);
  job_info_msg_t *m = NULL;
  if (s->stale) /* a call to a dead slurmctld waits for its timeout */
    return MORPH_EIO;
  if (slurm_load_job(&m, (uint32_t)job->id, SHOW_ALL) != SLURM_SUCCESS || !m)
    return MORPH_EIO;
  int rc = MORPH_ENOENT;
  for (uint32_t i = 0; i < m->record_count; i++) {
    uint32_t st = m->job_array[i].job_state & JOB_STATE_BASE;
    if (m->job_array[i].job_id != (uint32_t)job->id || st == JOB_RUNNING ||
        st == JOB_COMPLETE || st == JOB_FAILED || st == JOB_PENDING)
      continue;
    snprintf(text, size, "Slurm: job %s", slurm_job_state_string(st));
    *cancelled = st == JOB_CANCELLED;
    rc = MORPH_OK;
  }
  slurm_free_job_info_msg(m);
  return rc;
}

/* While slurmctld does not answer, a child pings it, so that morphd's
 * loop never waits for libslurm's timeouts. Returns 1 once it answered. */
static int probe_answered(morph__sl *s)
{
  int st;
  if (s->probe > 0 && waitpid(s->probe, &st, WNOHANG) == s->probe) {
    s->probe = 0;
    return WIFEXITED(st) && WEXITSTATUS(st) == 0;
  }
  if (s->probe == 0 && (s->probe = fork()) == 0)
    _exit(slurm_ping(0) == SLURM_SUCCESS ? 0 : 1);
  if (s->probe < 0)
    s->probe = 0;
  return 0;
}

/* Loads Slurm again when due; logs when slurmctld stops and starts
 * answering (once each). */
static void poll_slurm(morph__sl *s)
{
  double now = morph__wall();
  if (now < s->next_refresh || (s->stale && !probe_answered(s)))
    return;
  int waits = 0;
  for (int i = 0; i < s->nclaims; i++)
    waits |= s->claims[i].grow_req != 0;
  s->next_refresh = now + (waits ? REFRESH_GROW_S : REFRESH_S);
  int was = s->stale;
  char err[256];
  if (morph__sl_refresh(s, err, sizeof err) != MORPH_OK) {
    if (!was)
      morph__say(s->log, 0, "%s: decisions wait until it answers", err);
    return;
  }
  if (was)
    morph__say(s->log, 0, "Slurm answers again");
  morph__sl_grow_poll(s);
  watch_ends(s);
}

static int sl_next(morph__backend *b, morph__backend_event *ev)
{
  morph__sl *s = self(b);
  if (s->nq == 0)
    poll_slurm(s);
  while (s->nq > 0) {
    morph__sl_queued e = s->q[0];
    memmove(s->q, s->q + 1, (size_t)--s->nq * sizeof *s->q);
    morph__sl_claim *c = morph__sl_claim_of(s, e.ev.job);
    if (c && e.unhold.n)
      morph__alloc_sub(&c->holds, &e.unhold);
    morph__alloc_free(&e.unhold);
    if (e.ev.kind == 0)
      continue;
    *ev = e.ev;
    if (c)
      rebuild(s); /* the view follows the holds it let go */
    return 1;
  }
  return 0;
}

const morph__backend_ops morph__slurm_ops = {
  .name = "slurm",
  .open = sl_open,
  .close = sl_close,
  .read = sl_read,
  .claim = sl_claim,
  .grow = sl_grow,
  .release = sl_release,
  .drop = sl_drop,
  .stop = sl_stop,
  .adopt = sl_adopt,
  .ended_by = sl_ended_by,
  .next = sl_next,
};
