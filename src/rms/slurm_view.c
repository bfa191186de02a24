/*
 * rms/slurm: Slurm's picture (the node and job tables slurm_load.c read)
 * turned into morphd's view in node units, and the queue of events the
 * backend has not delivered yet. Jobs that are not morphd's are shown as
 * rigid: running ones with the nodes they hold, pending ones that wait
 * only for nodes (not held, not waiting for a dependency or a
 * reservation) in Slurm's priority order, a pending job array as one
 * entry per task that could start. Building it sends no RPC, and costs
 * O(nodes + jobs log jobs) whatever the number of claims.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "morph/error.h"
#include "rms/slurm.h"

const char *morph__sl_strerror(void)
{
  return slurm_strerror(slurm_get_errno());
}

static int by_job_id(const void *a, const void *b, void *arg)
{
  const slurm_job_info_t *v = arg;
  uint32_t x = v[*(const uint32_t *)a].job_id, y = v[*(const uint32_t *)b].job_id;
  return (x > y) - (x < y);
}

/* s->by_id: the job table's records by job id, for lookups in O(log n)
 * (Slurm lists them by id already, mostly: then no sort). */
int morph__sl_index_jobs(morph__sl *s)
{
  uint32_t n = s->jobs->record_count;
  uint32_t *v = realloc(s->by_id, (n ? n : 1) * sizeof *v);
  if (!v)
    return MORPH_ENOMEM;
  s->by_id = v;
  int sorted = 1;
  for (uint32_t i = 0; i < n; i++) {
    v[i] = i;
    sorted &= i == 0 || s->jobs->job_array[i - 1].job_id < s->jobs->job_array[i].job_id;
  }
  if (!sorted)
    qsort_r(v, n, sizeof *v, by_job_id, s->jobs->job_array);
  return MORPH_OK;
}

const slurm_job_info_t *morph__sl_job(const morph__sl *s, uint32_t id)
{
  if (!s->jobs)
    return NULL;
  uint32_t lo = 0, hi = s->jobs->record_count;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    const slurm_job_info_t *j = &s->jobs->job_array[s->by_id[mid]];
    if (j->job_id == id)
      return j;
    if (j->job_id < id)
      lo = mid + 1;
    else
      hi = mid;
  }
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

/* Index of job j's batch host: searched among the job's own nodes first
 * (a few), the whole table only if it is not there. */
static int batch_index(const morph__sl *s, const slurm_job_info_t *j)
{
  for (int k = 0; j->batch_host && j->node_inx && j->node_inx[k] >= 0; k += 2)
    for (int n = j->node_inx[k]; n <= j->node_inx[k + 1] && n < s->nnodes; n++)
      if (!strcmp(s->nodes[n].host, j->batch_host))
        return n;
  return morph__sl_node_index(s, j->batch_host);
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
  int batch = batch_index(s, j);
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

/* UP, DRAINING (no new work: drained, failing, not responding, still
 * completing a job unless a job of morphd's runs there, in an active
 * reservation, or recently refused to an expander) or DOWN. */
static morph_policy_node_state node_state(const morph__sl *s, int n, double now)
{
  uint32_t st = s->nodes_msg->node_array[n].node_state;
  uint32_t base = st & NODE_STATE_BASE;
  /* UNKNOWN is a node not registered yet since slurmctld started (its
   * jobs run on): no new work, but not lost either. */
  if (base == NODE_STATE_DOWN || base == NODE_STATE_FUTURE)
    return MORPH_POLICY_NODE_DOWN;
  if (base == NODE_STATE_UNKNOWN)
    return MORPH_POLICY_NODE_DRAINING;
  /* NODE_STATE_RES: slurmctld's own mark (every 5 s) of the nodes of the
   * reservations active now; Slurm gives them to those reservations' jobs
   * only. */
  uint32_t bad = NODE_STATE_DRAIN | NODE_STATE_FAIL | NODE_STATE_NO_RESPOND | NODE_STATE_MAINT |
                 NODE_STATE_POWERED_DOWN | NODE_STATE_REBOOT_REQUESTED |
                 NODE_STATE_POWERING_DOWN | NODE_STATE_RES;
  /* An expander waits ~30 s for a node still completing a job (a foreign
   * job's node shows ALLOCATED+COMPLETING while it ends). A node just
   * merged into a job of morphd's completes its expander: the job is not
   * leaving it, and DRAINING made granularity shrink the job off it at
   * once and grow it back. */
  if (!s->mine[n])
    bad |= NODE_STATE_COMPLETING;
  if ((st & bad) || s->refused_until[n] > now)
    return MORPH_POLICY_NODE_DRAINING;
  return MORPH_POLICY_NODE_UP;
}

/* The node table's size, names and slots. Its size is Slurm's
 * configuration and does not change while slurmctld runs; if it does,
 * the arrays follow. */
static int size_nodes(morph__sl *s)
{
  int n = (int)s->nodes_msg->record_count;
  if (n != s->nnodes) {
    size_t k = (size_t)(n ? n : 1);
    morph__node *v = realloc(s->nodes, k * sizeof *v);
    double *r = realloc(s->refused_until, k * sizeof *r);
    unsigned char *m = realloc(s->mine, k);
    s->nodes = v ? v : s->nodes, s->refused_until = r ? r : s->refused_until;
    s->mine = m ? m : s->mine;
    if (!v || !r || !m)
      return MORPH_ENOMEM;
    memset(s->refused_until, 0, (size_t)n * sizeof *r);
    free(s->prev_state);
    s->prev_state = NULL;
    s->nnodes = n;
  }
  for (int i = 0; i < n; i++) {
    const node_info_t *ni = &s->nodes_msg->node_array[i];
    /* Whole, so that every field the embedded backend adds is 0 here
     * (`settling` was garbage from realloc and broke the books check). */
    s->nodes[i] = (morph__node){.slots = ni->cpus > 0 ? ni->cpus : 1};
    snprintf(s->nodes[i].host, sizeof s->nodes[i].host, "%s", ni->name ? ni->name : "?");
  }
  return MORPH_OK;
}

static void node_states(morph__sl *s)
{
  double now = morph__wall();
  s->refused_next = 1e300;
  for (int i = 0; i < s->nnodes; i++) {
    s->nodes[i].state = node_state(s, i, now);
    if (s->refused_until[i] > now && s->refused_until[i] < s->refused_next)
      s->refused_next = s->refused_until[i];
  }
}

static void mark_used(morph__sl *s, const morph__alloc *a)
{
  for (int k = 0; k < a->n; k++)
    if (a->v[k].node < s->nnodes)
      s->nodes[a->v[k].node].used = s->nodes[a->v[k].node].slots;
}

/* True if Slurm's record of the claimed job is newer than morphd's last
 * change of its nodes (a merge, a release): until a table loaded after it
 * shows the change, the claim's own `last` is the truth. */
static int fresh(const morph__sl *s, const morph__sl_claim *c)
{
  return s->jobs && s->jobs->last_update > c->pinned;
}

/* The claimed jobs' nodes (`last`): Slurm's while it shows the job
 * running in a table newer than morphd's last change of them, else the
 * ones known last (until morphd, told of the end, drops the claim: its
 * books still count them). A job Slurm is ending shows only the nodes
 * still completing, fewer than morphd's books hold until they hear of the
 * end: its last running picture stays. `mine` marks them. */
static int claims_nodes(morph__sl *s)
{
  memset(s->mine, 0, (size_t)s->nnodes);
  for (int c = 0; c < s->nclaims; c++) {
    morph__sl_claim *cl = &s->claims[c];
    const slurm_job_info_t *j = morph__sl_job(s, (uint32_t)cl->id);
    if (j && morph__sl_job_runs(j) && fresh(s, cl) &&
        morph__sl_job_nodes(s, j, &cl->last) == MORPH_ENOMEM)
      return MORPH_ENOMEM;
    for (int k = 0; k < cl->last.n; k++)
      if (cl->last.v[k].node < s->nnodes)
        s->mine[cl->last.v[k].node] = 1;
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

static int by_id(const void *a, const void *b)
{
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}

/* s->ours: the claimed jobs' ids and their expanders', sorted, so that
 * each record of the table is checked in O(log claims). */
static int index_ours(morph__sl *s)
{
  uint32_t *v = realloc(s->ours, (2 * (size_t)s->nclaims + 1) * sizeof *v);
  if (!v)
    return MORPH_ENOMEM;
  s->ours = v, s->nours = 0;
  for (int c = 0; c < s->nclaims; c++) {
    v[s->nours++] = (uint32_t)s->claims[c].id;
    if (s->claims[c].expander)
      v[s->nours++] = s->claims[c].expander;
  }
  qsort(v, (size_t)s->nours, sizeof *v, by_id);
  return MORPH_OK;
}

/* True if j is a claimed job or one of their expanders. */
static int ours(const morph__sl *s, const slurm_job_info_t *j)
{
  return bsearch(&j->job_id, s->ours, (size_t)s->nours, sizeof j->job_id, by_id) != NULL;
}

/* Pending jobs that wait only for nodes: Slurm will start them as soon as
 * there are enough, so the policy counts them. A claimed job shows as
 * pending in a table loaded before Slurm started it. */
static int waits_for_nodes(const morph__sl *s, const slurm_job_info_t *j)
{
  if ((j->job_state & JOB_STATE_BASE) != JOB_PENDING || ours(s, j))
    return 0;
  if ((j->resv_name && *j->resv_name) || (j->dependency && strstr(j->dependency, "expand:")))
    return 0;
  return j->state_reason == WAIT_NO_REASON || j->state_reason == WAIT_PRIORITY ||
         j->state_reason == WAIT_RESOURCES;
}

/* Tasks a pending array record stands for ("0-99:2,200%10": 51, at most
 * 10 at once), 1 for any other job. */
static long array_tasks(const slurm_job_info_t *j)
{
  const char *p = j->array_task_str;
  if (!p || !*p || j->array_task_id != NO_VAL)
    return 1;
  long n = 0;
  while (*p && *p != '%') {
    char *e;
    long a = strtol(p, &e, 10), b = a, step = 1;
    if (e == p)
      break;
    if (*e == '-')
      b = strtol(e + 1, &e, 10);
    if (*e == ':')
      step = strtol(e + 1, &e, 10);
    n += b >= a && step > 0 ? (b - a) / step + 1 : 1;
    p = *e == ',' ? e + 1 : e;
  }
  long most = *p == '%' ? strtol(p + 1, NULL, 10) : 0;
  return most > 0 && most < n ? most : n > 0 ? n : 1;
}

/* Entries job j takes in the pending queue: its tasks, but no more than
 * could start on the whole machine at once. */
static long pending_entries(const morph__sl *s, const slurm_job_info_t *j)
{
  long per = j->num_nodes > 0 ? (long)j->num_nodes : 1, cap = s->nnodes / per + 1;
  long n = array_tasks(j);
  return n < cap ? n : cap;
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
static int by_priority(const void *a, const void *b)
{
  const slurm_job_info_t *x = *(const slurm_job_info_t *const *)a;
  const slurm_job_info_t *y = *(const slurm_job_info_t *const *)b;
  if (x->priority != y->priority)
    return x->priority > y->priority ? -1 : 1;
  if (x->submit_time != y->submit_time)
    return x->submit_time < y->submit_time ? -1 : 1;
  return x->job_id < y->job_id ? -1 : x->job_id > y->job_id;
}

static int build_pending(morph__sl *s)
{
  uint32_t n = s->jobs->record_count, k = 0;
  const slurm_job_info_t **order = calloc(n ? n : 1, sizeof *order);
  if (!order)
    return MORPH_ENOMEM;
  size_t entries = 1;
  for (uint32_t i = 0; i < n; i++)
    if (waits_for_nodes(s, &s->jobs->job_array[i])) {
      order[k++] = &s->jobs->job_array[i];
      entries += (size_t)pending_entries(s, &s->jobs->job_array[i]);
    }
  qsort(order, k, sizeof *order, by_priority);
  free(s->pending);
  s->npending = 0;
  s->pending = calloc(entries, sizeof *s->pending);
  for (uint32_t i = 0; s->pending && i < k; i++)
    for (long t = pending_entries(s, order[i]); t > 0; t--)
      add_pending(s, order[i]);
  free(order);
  return s->pending ? MORPH_OK : MORPH_ENOMEM;
}

static int build_jobs(morph__sl *s)
{
  uint32_t n = s->jobs->record_count;
  free(s->running), free(s->pieces);
  s->running = calloc(n + 1, sizeof *s->running);
  s->pieces = calloc((size_t)s->nnodes + 1, sizeof *s->pieces);
  s->nrunning = s->npieces = 0;
  if (!s->running || !s->pieces)
    return MORPH_ENOMEM;
  for (int c = 0; c < s->nclaims; c++)
    mark_used(s, &s->claims[c].last), mark_used(s, &s->claims[c].holds);
  for (uint32_t i = 0; i < n; i++) {
    const slurm_job_info_t *j = &s->jobs->job_array[i];
    /* A claim's nodes are its `last`, an expander's its claim's holds. */
    if (morph__sl_job_holds(j) && !ours(s, j))
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

/* One QUEUE event when jobs that are not morphd's came into the queue
 * since the last picture: morphd's decision would otherwise wait for its
 * interval (5 s by default) while such a job waits for a shrink. The last
 * picture's pending ids are kept sorted: O(n log n) for n pending. */
static void queue_events(morph__sl *s)
{
  int fresh = 0;
  uint32_t first = 0;
  for (int i = 0; i < s->npending; i++) {
    uint32_t id = (uint32_t)s->pending[i].id;
    if (!bsearch(&id, s->prev_pending, (size_t)s->nprev_pending, sizeof id, by_id) &&
        fresh++ == 0)
      first = id;
  }
  uint32_t *ids = malloc(((size_t)s->npending + 1) * sizeof *ids);
  if (!ids)
    return; /* no event: the periodic decision still comes */
  for (int i = 0; i < s->npending; i++)
    ids[i] = (uint32_t)s->pending[i].id;
  qsort(ids, (size_t)s->npending, sizeof *ids, by_id);
  free(s->prev_pending);
  s->prev_pending = ids, s->nprev_pending = s->npending;
  if (fresh == 0)
    return;
  morph__backend_event ev = morph__sl_event(MORPH__BE_QUEUE, 0, 0);
  snprintf(ev.text, sizeof ev.text, "Slurm: job %u%s waits for nodes", first,
           fresh > 1 ? " and others" : "");
  morph__sl_enqueue(s, &ev, NULL);
}

int morph__sl_build(morph__sl *s)
{
  if (!s->jobs || !s->nodes_msg)
    return MORPH_OK; /* nothing loaded yet */
  int rc = size_nodes(s);
  if (rc == MORPH_OK)
    rc = index_ours(s);
  if (rc == MORPH_OK)
    rc = claims_nodes(s);
  if (rc == MORPH_OK) {
    node_states(s);
    rc = build_jobs(s);
  }
  if (rc == MORPH_OK)
    node_events(s), queue_events(s);
  s->built++;
  return rc;
}
