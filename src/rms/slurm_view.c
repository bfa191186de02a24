/*
 * rms/slurm: Slurm's picture (nodes, jobs, reservations), loaded with
 * libslurm and turned into morphd's view in node units, and the queue of
 * events the backend has not delivered yet. Jobs that are not
 * morphd's are shown as rigid: running ones with the nodes they hold,
 * pending ones that wait only for nodes (not held, not waiting for a
 * dependency or a reservation) in Slurm's priority order.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "common/clock.h"
#include "morph/error.h"
#include "rms/slurm.h"

const char *morph__sl_strerror(void)
{
  return slurm_strerror(slurm_get_errno());
}

const slurm_job_info_t *morph__sl_job(const morph__sl *s, uint32_t id)
{
  for (uint32_t i = 0; s->jobs && i < s->jobs->record_count; i++)
    if (s->jobs->job_array[i].job_id == id)
      return &s->jobs->job_array[i];
  return NULL;
}

int morph__sl_job_holds(const slurm_job_info_t *j)
{
  uint32_t base = j->job_state & JOB_STATE_BASE;
  return j->node_inx && (base == JOB_RUNNING || base == JOB_SUSPENDED ||
                         (j->job_state & JOB_COMPLETING));
}

int morph__sl_job_runs(const slurm_job_info_t *j)
{
  uint32_t base = j->job_state & JOB_STATE_BASE;
  return (base == JOB_RUNNING || base == JOB_SUSPENDED) && !(j->job_state & JOB_COMPLETING);
}

int morph__sl_node_index(const morph__sl *s, const char *host)
{
  for (int i = 0; host && i < s->nnodes; i++)
    if (!strcmp(s->nodes[i].host, host))
      return i;
  return -1;
}

morph__sl_claim *morph__sl_claim_of(const morph__sl *s, int64_t id)
{
  for (int i = 0; i < s->nclaims; i++)
    if (s->claims[i].id == id)
      return &s->claims[i];
  return NULL;
}

int morph__sl_job_nodes(const morph__sl *s, const slurm_job_info_t *j, morph__alloc *out)
{
  morph__alloc_clear(out);
  int batch = morph__sl_node_index(s, j->batch_host);
  int rc = batch >= 0 ? morph__alloc_add(out, batch, s->nodes[batch].slots) : MORPH_OK;
  for (int k = 0; rc == MORPH_OK && j->node_inx && j->node_inx[k] >= 0; k += 2)
    for (int n = j->node_inx[k]; rc == MORPH_OK && n <= j->node_inx[k + 1]; n++)
      if (n != batch)
        rc = n < s->nnodes ? morph__alloc_add(out, n, s->nodes[n].slots) : MORPH_ENOENT;
  return rc;
}

void morph__sl_hostlist(const morph__sl *s, const morph__alloc *a, char *buf, size_t size)
{
  size_t len = 0;
  buf[0] = '\0';
  for (int k = 0; k < a->n && len < size; k++) {
    const char *h = a->v[k].node < s->nnodes ? s->nodes[a->v[k].node].host : "?";
    int w = snprintf(buf + len, size - len, "%s%s", k ? "," : "", h);
    len += w > 0 ? (size_t)w : size;
  }
}

int morph__sl_is_expander(const morph__sl *s, const slurm_job_info_t *j)
{
  for (int c = 0; c < s->nclaims; c++)
    if (s->claims[c].expander && s->claims[c].expander == j->job_id)
      return 1;
  return 0;
}

morph__backend_event morph__sl_event(morph__backend_event_kind kind, int64_t job, int req)
{
  morph__backend_event ev;
  memset(&ev, 0, sizeof ev);
  ev.kind = kind, ev.job = job, ev.req = req;
  ev.status = -1;
  return ev;
}

int morph__sl_enqueue(morph__sl *s, const morph__backend_event *ev, const morph__alloc *unhold)
{
  if (s->nq == s->capq) {
    int cap = s->capq ? 2 * s->capq : 16;
    morph__sl_queued *q = realloc(s->q, (size_t)cap * sizeof *q);
    if (!q)
      return MORPH_ENOMEM;
    s->q = q, s->capq = cap;
  }
  morph__sl_queued *e = &s->q[s->nq++];
  e->ev = *ev;
  morph__alloc_init(&e->unhold);
  return unhold ? morph__alloc_copy(&e->unhold, unhold) : MORPH_OK;
}

/* Loads one of Slurm's tables unless it has not changed since the copy we
 * have (libslurm answers SLURM_NO_CHANGE_IN_DATA then). */
static int load_jobs(morph__sl *s)
{
  job_info_msg_t *m = NULL;
  int rc = slurm_load_jobs(s->jobs ? s->jobs->last_update : 0, &m, SHOW_ALL);
  int same = rc != SLURM_SUCCESS && slurm_get_errno() == SLURM_NO_CHANGE_IN_DATA;
  morph__sl_rpc(s, MORPH__SL_RPC_JOBS, same);
  if (rc != SLURM_SUCCESS)
    return same ? MORPH_OK : MORPH_EIO;
  slurm_free_job_info_msg(s->jobs);
  s->jobs = m;
  return MORPH_OK;
}

static int load_nodes(morph__sl *s)
{
  node_info_msg_t *m = NULL;
  int rc = slurm_load_node(s->nodes_msg ? s->nodes_msg->last_update : 0, &m, SHOW_ALL);
  int same = rc != SLURM_SUCCESS && slurm_get_errno() == SLURM_NO_CHANGE_IN_DATA;
  morph__sl_rpc(s, MORPH__SL_RPC_NODES, same);
  if (rc != SLURM_SUCCESS)
    return same ? MORPH_OK : MORPH_EIO;
  slurm_free_node_info_msg(s->nodes_msg);
  s->nodes_msg = m;
  return MORPH_OK;
}

static int load_resv(morph__sl *s)
{
  reserve_info_msg_t *m = NULL;
  int rc = slurm_load_reservations(s->resv ? s->resv->last_update : 0, &m);
  int same = rc != SLURM_SUCCESS && slurm_get_errno() == SLURM_NO_CHANGE_IN_DATA;
  morph__sl_rpc(s, MORPH__SL_RPC_RESV, same);
  if (rc != SLURM_SUCCESS)
    return same ? MORPH_OK : MORPH_EIO;
  slurm_free_reservation_info_msg(s->resv);
  s->resv = m;
  return MORPH_OK;
}

/* True if node n is in a reservation active now: Slurm gives it only to
 * the reservation's jobs, so morphd must not plan with it. */
static int reserved(const morph__sl *s, int n, time_t now)
{
  for (uint32_t r = 0; s->resv && r < s->resv->record_count; r++) {
    const reserve_info_t *v = &s->resv->reservation_array[r];
    if (v->start_time > now || v->end_time <= now || !v->node_inx)
      continue;
    for (int k = 0; v->node_inx[k] >= 0; k += 2)
      if (n >= v->node_inx[k] && n <= v->node_inx[k + 1])
        return 1;
  }
  return 0;
}

/* 1 if a running job of morphd's (a claim) holds node n. */
static int claimed(const morph__sl *s, int n)
{
  for (int c = 0; c < s->nclaims; c++) {
    const slurm_job_info_t *j = morph__sl_job(s, (uint32_t)s->claims[c].id);
    for (int k = 0; j && morph__sl_job_runs(j) && j->node_inx[k] >= 0; k += 2)
      if (n >= j->node_inx[k] && n <= j->node_inx[k + 1])
        return 1;
  }
  return 0;
}

/* UP, DRAINING (no new work: drained, failing, not responding, still
 * completing a job unless a job of morphd's runs there, reserved, or
 * recently refused to an expander) or DOWN. */
static morph_policy_node_state node_state(const morph__sl *s, int n, time_t now)
{
  uint32_t st = s->nodes_msg->node_array[n].node_state;
  uint32_t base = st & NODE_STATE_BASE;
  /* UNKNOWN is a node not registered yet since slurmctld started (its
   * jobs run on): no new work, but not lost either. */
  if (base == NODE_STATE_DOWN || base == NODE_STATE_FUTURE)
    return MORPH_POLICY_NODE_DOWN;
  if (base == NODE_STATE_UNKNOWN)
    return MORPH_POLICY_NODE_DRAINING;
  uint32_t bad = NODE_STATE_DRAIN | NODE_STATE_FAIL | NODE_STATE_NO_RESPOND | NODE_STATE_MAINT |
                 NODE_STATE_POWERED_DOWN | NODE_STATE_REBOOT_REQUESTED | NODE_STATE_POWERING_DOWN;
  /* An expander waits ~30 s for a node still completing a job (a foreign
   * job's node shows ALLOCATED+COMPLETING while it ends). A node just
   * merged into a job of morphd's completes its expander: the job is not
   * leaving it, and DRAINING made granularity shrink the job off it at
   * once and grow it back. */
  if (!claimed(s, n))
    bad |= NODE_STATE_COMPLETING;
  if ((st & bad) || reserved(s, n, now) || s->refused_until[n] > morph__wall())
    return MORPH_POLICY_NODE_DRAINING;
  return MORPH_POLICY_NODE_UP;
}

/* The node table. Its size is Slurm's configuration and does not change
 * while slurmctld runs; if it does, the arrays follow. */
static int build_nodes(morph__sl *s)
{
  int n = (int)s->nodes_msg->record_count;
  if (n != s->nnodes) {
    morph__node *v = realloc(s->nodes, (size_t)(n ? n : 1) * sizeof *v);
    double *r = realloc(s->refused_until, (size_t)(n ? n : 1) * sizeof *r);
    if (v)
      s->nodes = v;
    if (r)
      s->refused_until = r;
    if (!v || !r)
      return MORPH_ENOMEM;
    memset(s->refused_until, 0, (size_t)n * sizeof *r);
    free(s->prev_state);
    s->prev_state = NULL;
    s->nnodes = n;
  }
  time_t now = time(NULL);
  for (int i = 0; i < n; i++) {
    const node_info_t *ni = &s->nodes_msg->node_array[i];
    /* Whole, so that every field the embedded backend adds is 0 here
     * (`settling` was garbage from realloc and broke the books check). */
    s->nodes[i] = (morph__node){.slots = ni->cpus > 0 ? ni->cpus : 1,
                                .state = node_state(s, i, now)};
    snprintf(s->nodes[i].host, sizeof s->nodes[i].host, "%s", ni->name ? ni->name : "?");
  }
  return MORPH_OK;
}

static void mark_used(morph__sl *s, const morph__alloc *a)
{
  for (int k = 0; k < a->n; k++)
    if (a->v[k].node < s->nnodes)
      s->nodes[a->v[k].node].used = s->nodes[a->v[k].node].slots;
}

/* Marks the nodes of the claimed jobs used: Slurm's while it shows the job
 * running, else the ones it held last (until morphd, told of the end,
 * drops the claim: its books still count them), and the holds. A job
 * Slurm is ending shows only the nodes still completing, fewer than
 * morphd's books hold until they hear of the end: its last running
 * picture stays. */
static int mark_claims(morph__sl *s)
{
  for (int c = 0; c < s->nclaims; c++) {
    morph__sl_claim *cl = &s->claims[c];
    const slurm_job_info_t *j = morph__sl_job(s, (uint32_t)cl->id);
    if (j && morph__sl_job_runs(j)) {
      int rc = morph__sl_job_nodes(s, j, &cl->last);
      if (rc == MORPH_ENOMEM)
        return rc;
    }
    mark_used(s, &cl->last);
    mark_used(s, &cl->holds);
  }
  return MORPH_OK;
}

static void fill_other(morph_policy_job *p, const slurm_job_info_t *j)
{
  memset(p, 0, sizeof *p);
  p->id = j->job_id;
  p->kind = MORPH_POLICY_JOB_RIGID;
  p->submit_time = (double)j->submit_time;
  p->walltime = j->time_limit == INFINITE || j->time_limit == NO_VAL ? 0 : 60.0 * j->time_limit;
  p->efficiency = p->mtct_avg = p->mtct_trend = -1;
}

/* A running job that is not morphd's, on the nodes nobody was given yet
 * (a node shared by several such jobs counts for the first). */
static void add_running(morph__sl *s, const slurm_job_info_t *j)
{
  morph_policy_job *p = &s->running[s->nrunning];
  fill_other(p, j);
  p->alloc = &s->pieces[s->npieces];
  for (int k = 0; j->node_inx[k] >= 0; k += 2)
    for (int n = j->node_inx[k]; n <= j->node_inx[k + 1] && n < s->nnodes; n++) {
      if (s->nodes[n].used)
        continue;
      s->nodes[n].used = s->nodes[n].slots;
      s->pieces[s->npieces++] = (morph_policy_alloc){.node = n, .slots = s->nodes[n].slots};
      p->nalloc++;
    }
  p->size = p->req_min = p->req_max = p->min = p->max = p->pref = p->nalloc;
  p->start_time = p->last_change = (double)j->start_time;
  if (p->nalloc > 0)
    s->nrunning++;
}

/* Pending jobs that wait only for nodes: Slurm will start them as soon as
 * there are enough, so the policy counts them. */
static int waits_for_nodes(const morph__sl *s, const slurm_job_info_t *j)
{
  if ((j->job_state & JOB_STATE_BASE) != JOB_PENDING || morph__sl_is_expander(s, j))
    return 0;
  if ((j->resv_name && *j->resv_name) || (j->dependency && strstr(j->dependency, "expand:")))
    return 0;
  return j->state_reason == WAIT_NO_REASON || j->state_reason == WAIT_PRIORITY ||
         j->state_reason == WAIT_RESOURCES;
}

static void add_pending(morph__sl *s, const slurm_job_info_t *j)
{
  morph_policy_job *p = &s->pending[s->npending++];
  fill_other(p, j);
  int lo = j->num_nodes > 0 ? (int)j->num_nodes : 1;
  int hi = j->max_nodes >= (uint32_t)lo && j->max_nodes != NO_VAL ? (int)j->max_nodes : lo;
  p->kind = hi > lo ? MORPH_POLICY_JOB_MOLDABLE : MORPH_POLICY_JOB_RIGID;
  p->req_min = p->min = lo;
  p->req_max = p->max = p->pref = hi;
}

/* Slurm's queue order: priority, then submission, then id. */
static int by_priority(const void *a, const void *b, void *arg)
{
  const slurm_job_info_t *x = *(const slurm_job_info_t *const *)a;
  const slurm_job_info_t *y = *(const slurm_job_info_t *const *)b;
  (void)arg;
  if (x->priority != y->priority)
    return x->priority > y->priority ? -1 : 1;
  if (x->submit_time != y->submit_time)
    return x->submit_time < y->submit_time ? -1 : 1;
  return x->job_id < y->job_id ? -1 : x->job_id > y->job_id;
}

static int build_pending(morph__sl *s)
{
  uint32_t n = s->jobs->record_count;
  const slurm_job_info_t **order = calloc(n ? n : 1, sizeof *order);
  if (!order)
    return MORPH_ENOMEM;
  uint32_t k = 0;
  for (uint32_t i = 0; i < n; i++)
    if (waits_for_nodes(s, &s->jobs->job_array[i]))
      order[k++] = &s->jobs->job_array[i];
  qsort_r(order, k, sizeof *order, by_priority, NULL);
  for (uint32_t i = 0; i < k; i++)
    add_pending(s, order[i]);
  free(order);
  return MORPH_OK;
}

static int build_jobs(morph__sl *s)
{
  uint32_t n = s->jobs->record_count;
  free(s->running), free(s->pending), free(s->pieces);
  s->running = calloc(n + 1, sizeof *s->running);
  s->pending = calloc(n + 1, sizeof *s->pending);
  s->pieces = calloc((size_t)s->nnodes + 1, sizeof *s->pieces);
  s->nrunning = s->npending = s->npieces = 0;
  if (!s->running || !s->pending || !s->pieces || mark_claims(s) != MORPH_OK)
    return MORPH_ENOMEM;
  for (uint32_t i = 0; i < n; i++) {
    const slurm_job_info_t *j = &s->jobs->job_array[i];
    if (!morph__sl_job_holds(j) || morph__sl_claim_of(s, j->job_id))
      continue;
    if (morph__sl_is_expander(s, j)) /* its nodes are its claim's holds */
      continue;
    add_running(s, j);
  }
  return build_pending(s);
}

/* NODE events for every node whose state changed since the last picture
 * (every node that is not UP after the first one). */
static void node_events(morph__sl *s)
{
  int first = !s->prev_state;
  if (first && !(s->prev_state = calloc((size_t)s->nnodes + 1, sizeof *s->prev_state)))
    return;
  for (int n = 0; n < s->nnodes; n++) {
    morph_policy_node_state now = s->nodes[n].state;
    if (now == s->prev_state[n] && !(first && now != MORPH_POLICY_NODE_UP))
      continue;
    s->prev_state[n] = now;
    morph__backend_event ev = morph__sl_event(MORPH__BE_NODE, 0, 0);
    ev.node = n, ev.state = now;
    const node_info_t *ni = &s->nodes_msg->node_array[n];
    snprintf(ev.text, sizeof ev.text, "Slurm: %s%s%s%s", slurm_node_state_string(ni->node_state),
             ni->reason ? " (" : "", ni->reason ? ni->reason : "", ni->reason ? ")" : "");
    if (now == MORPH_POLICY_NODE_DRAINING && s->refused_until[n] > morph__wall())
      snprintf(ev.text, sizeof ev.text, "Slurm did not give it to an expander: left alone for a while");
    morph__sl_enqueue(s, &ev, NULL);
  }
}

static int was_pending(const morph__sl *s, uint32_t id)
{
  for (int i = 0; i < s->nprev_pending; i++)
    if (s->prev_pending[i] == id)
      return 1;
  return 0;
}

/* One QUEUE event when jobs that are not morphd's came into the queue
 * since the last picture: morphd's decision would otherwise wait for its
 * interval (5 s by default) while such a job waits for a shrink. */
static void queue_events(morph__sl *s)
{
  int fresh = 0;
  uint32_t first = 0;
  for (int i = 0; i < s->npending; i++)
    if (!was_pending(s, (uint32_t)s->pending[i].id) && fresh++ == 0)
      first = (uint32_t)s->pending[i].id;
  uint32_t *ids = malloc(((size_t)s->npending + 1) * sizeof *ids);
  if (!ids)
    return; /* no event: the periodic decision still comes */
  for (int i = 0; i < s->npending; i++)
    ids[i] = (uint32_t)s->pending[i].id;
  free(s->prev_pending);
  s->prev_pending = ids, s->nprev_pending = s->npending;
  if (fresh == 0)
    return;
  morph__backend_event ev = morph__sl_event(MORPH__BE_QUEUE, 0, 0);
  snprintf(ev.text, sizeof ev.text, "Slurm: job %u%s waits for nodes", first,
           fresh > 1 ? " and others" : "");
  morph__sl_enqueue(s, &ev, NULL);
}

int morph__sl_refresh(morph__sl *s, char *err, size_t errsize)
{
  double t0 = morph__now();
  long before = s->st.rpc[MORPH__SL_RPC_JOBS] - s->st.same[MORPH__SL_RPC_JOBS] +
                s->st.rpc[MORPH__SL_RPC_NODES] - s->st.same[MORPH__SL_RPC_NODES] +
                s->st.rpc[MORPH__SL_RPC_RESV] - s->st.same[MORPH__SL_RPC_RESV];
  int rc = load_nodes(s);
  if (rc == MORPH_OK)
    rc = load_jobs(s);
  if (rc == MORPH_OK)
    rc = load_resv(s);
  double t1 = morph__now();
  if (rc != MORPH_OK || !s->jobs || !s->nodes_msg) {
    snprintf(err, errsize, "cannot read Slurm's state: %s", morph__sl_strerror());
    s->stale = 1;
    return MORPH_EIO;
  }
  s->stale = 0;
  rc = build_nodes(s);
  if (rc == MORPH_OK)
    rc = build_jobs(s);
  if (rc == MORPH_OK)
    node_events(s), queue_events(s);
  else
    snprintf(err, errsize, "out of memory");
  long after = s->st.rpc[MORPH__SL_RPC_JOBS] - s->st.same[MORPH__SL_RPC_JOBS] +
               s->st.rpc[MORPH__SL_RPC_NODES] - s->st.same[MORPH__SL_RPC_NODES] +
               s->st.rpc[MORPH__SL_RPC_RESV] - s->st.same[MORPH__SL_RPC_RESV];
  morph__sl_stat_picture(s, after == before, 1e3 * (t1 - t0), 1e3 * (morph__now() - t1));
  return rc;
}
