/*
 * rms/slurm: growing a running job J without going around Slurm. An
 * expander allocation is requested for exactly the nodes placement chose
 * (`--dependency=expand:J --nodelist=... --exclusive`, what `salloc
 * --no-shell` sends); once Slurm has granted it, setting its node count to
 * 0 moves its nodes into J (slurmctld's "moving all resources to JobId=J";
 * `scontrol update NumNodes=ALL` on J only prints the resize script and
 * changes nothing). Slurm 22.05 still has this in its code; it needs
 * `SchedulerParameters=permit_job_expansion` (docs/slurm.md).
 *
 * Slurm grants the expander in its answer when the nodes are free (its
 * node list is set): the merge follows at once, two RPCs in all, and the
 * claim's nodes are the job's in the view from then on (pinned, until a
 * table loaded after the merge shows them). Slurm may instead refuse at
 * once (a node outside J's partition, a limit) or leave the expander
 * pending (a reservation, a node still completing): slurm_load.c then
 * polls its record alone, and after GROW_WAIT_S it is cancelled, at once
 * if a node it asks for went to another job. Either way the job stays at
 * its size, morphd is told with a GROWN event carrying Slurm's reason, and
 * the nodes asked for are left out of the view for REFUSED_HOLD_S so that
 * the policy does not ask for them again at once.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "morph/error.h"
#include "rms/slurm.h"

#define GROW_WAIT_S 10.0
#define REFUSED_HOLD_S 30.0

void morph__sl_grow_cancel(morph__sl *s, morph__sl_claim *c)
{
  if (c->expander)
    morph__sl_rpc(s, MORPH__SL_RPC_KILL, 0);
  if (c->expander && slurm_kill_job(c->expander, SIGKILL, 0) != SLURM_SUCCESS &&
      slurm_get_errno() != ESLURM_ALREADY_DONE && slurm_get_errno() != ESLURM_INVALID_JOB_ID)
    morph__say(s->log, 0, "cannot cancel expander %u of job %lld: %s", c->expander,
               (long long)c->id, morph__sl_strerror());
  c->expander = 0;
}

static void forget_expander(morph__sl_claim *c)
{
  slurm_free_job_info_msg(c->exp);
  c->exp = NULL;
  c->grow_req = 0, c->expander = 0;
  morph__alloc_clear(&c->grow);
}

/* Closes claim c's grow: GROWN with `outcome`, the holds let go when it is
 * delivered (granted: the nodes are the job's in Slurm by then). */
static void finish(morph__sl *s, morph__sl_claim *c, int outcome, const char *text)
{
  morph__backend_event ev = morph__sl_event(MORPH__BE_GROWN, c->id, c->grow_req);
  ev.outcome = outcome;
  snprintf(ev.text, sizeof ev.text, "%s", text);
  if (outcome != MORPH_OK) {
    morph__sl_grow_cancel(s, c);
    for (int k = 0; k < c->grow.n; k++)
      if (c->grow.v[k].node < s->nnodes)
        s->refused_until[c->grow.v[k].node] = morph__wall() + REFUSED_HOLD_S;
  }
  morph__sl_enqueue(s, &ev, &c->grow);
  forget_expander(c);
}

/* Setting the expander's node count to 0 hands its nodes to the job. */
static int merge(morph__sl *s, morph__sl_claim *c, char *why, size_t size)
{
  job_desc_msg_t d;
  slurm_init_job_desc_msg(&d);
  d.job_id = c->expander;
  d.min_nodes = 0;
  morph__sl_rpc(s, MORPH__SL_RPC_UPDATE, 0);
  if (slurm_update_job(&d) != SLURM_SUCCESS) {
    snprintf(why, size, "Slurm did not merge expander %u into job %lld: %s", c->expander,
             (long long)c->id, morph__sl_strerror());
    return MORPH_EBUSY;
  }
  morph__say(s->log, 1, "job %lld: expander %u merged, %.3f s after it was asked for",
             (long long)c->id, c->expander, morph__wall() - (c->grow_deadline - GROW_WAIT_S));
  return MORPH_OK;
}

/* "node3,node3,node4": one host per joiner (ppu processes per node). */
static void joiners(const morph__sl *s, const morph__sl_claim *c, int ppu, char *buf,
                    size_t size)
{
  size_t len = 0;
  buf[0] = '\0';
  for (int k = 0; k < c->grow.n && len < size; k++)
    for (int p = 0; p < ppu && len < size; p++) {
      int w = snprintf(buf + len, size - len, "%s%s", len ? "," : "",
                       s->nodes[c->grow.v[k].node].host);
      len += w > 0 ? (size_t)w : size;
    }
}

static void grant(morph__sl *s, morph__sl_claim *c, int ppu)
{
  char why[256];
  if (merge(s, c, why, sizeof why) != MORPH_OK) {
    finish(s, c, MORPH_EBUSY, why);
    return;
  }
  /* The nodes are the job's in Slurm from now on: the view shows them so
   * before a picture does, and if Slurm ends the job before a picture
   * shows them in it, they still count until the drop. */
  if (morph__alloc_add_all(&c->last, &c->grow) != MORPH_OK)
    morph__say(s->log, 0, "job %lld: out of memory", (long long)c->id);
  c->pinned = time(NULL);
  morph__backend_event ev = morph__sl_event(MORPH__BE_GROWN, c->id, c->grow_req);
  joiners(s, c, ppu, ev.hosts, sizeof ev.hosts);
  snprintf(ev.text, sizeof ev.text, "expander %u merged", c->expander);
  morph__sl_enqueue(s, &ev, &c->grow);
  forget_expander(c);
}

int morph__sl_grow_submit(morph__sl *s, morph__sl_claim *c, const slurm_job_info_t *job)
{
  char name[64], dep[64], nodes[1024], host[256] = "";
  job_desc_msg_t d;
  slurm_init_job_desc_msg(&d);
  snprintf(name, sizeof name, "%s-%lld", MORPH__SL_NAME_GROW, (long long)c->id);
  snprintf(dep, sizeof dep, "expand:%lld", (long long)c->id);
  morph__sl_hostlist(s, &c->grow, nodes, sizeof nodes);
  gethostname(host, sizeof host - 1);
  d.name = name;
  d.dependency = dep;
  d.req_nodes = nodes;
  d.min_nodes = d.max_nodes = (uint32_t)c->grow.n;
  d.shared = 0; /* whole nodes: with CR_Core an expander could get one of J's own */
  d.partition = job->partition;
  d.user_id = job->user_id;
  d.group_id = job->group_id;
  d.alloc_node = host;
  resource_allocation_response_msg_t *r = NULL;
  double t0 = morph__wall();
  c->grow_deadline = t0 + GROW_WAIT_S;
  morph__sl_rpc(s, MORPH__SL_RPC_ALLOC, 0);
  if (slurm_allocate_resources(&d, &r) != SLURM_SUCCESS || !r) {
    char text[256];
    snprintf(text, sizeof text, "Slurm refused an expander on %.120s: %s", nodes,
             morph__sl_strerror());
    finish(s, c, MORPH_EBUSY, text);
    return MORPH_OK;
  }
  c->expander = r->job_id;
  int now = r->node_cnt > 0 && r->node_list;
  morph__say(s->log, 1, "job %lld: expander %u asks for %s: %s (%.3f s)", (long long)c->id,
             c->expander, nodes, now ? "granted" : "pending", morph__wall() - t0);
  slurm_free_resource_allocation_response_msg(r);
  if (now) /* granted in the answer: no poll, merged at once */
    grant(s, c, c->ppu);
  return MORPH_OK;
}

/* The first node asked for that Slurm has allocated meanwhile (to another
 * job: the expander is pending); -1 if none. */
static int node_taken(const morph__sl *s, const morph__sl_claim *c)
{
  for (int k = 0; s->nodes_msg && k < c->grow.n; k++) {
    int n = c->grow.v[k].node;
    uint32_t st = n < (int)s->nodes_msg->record_count
                    ? s->nodes_msg->node_array[n].node_state & NODE_STATE_BASE
                    : NODE_STATE_IDLE;
    if (st == NODE_STATE_ALLOCATED || st == NODE_STATE_MIXED)
      return n;
  }
  return -1;
}

/* A pending expander whose node Slurm gave to another job (a job submitted
 * as the policy decided, measured in bench/slurm.sh) is cancelled at once:
 * that node stays taken for the other job's whole run, and until then the
 * expander, older than the jobs queued after it, kept its other nodes from
 * them (a job waited 9 s for GROW_WAIT_S). */
static void poll_one(morph__sl *s, morph__sl_claim *c, int ppu)
{
  char text[256];
  /* Its own record, polled alone while it is pending; else the table's. */
  const slurm_job_info_t *e = c->exp && c->exp->record_count == 1 &&
                                      c->exp->job_array[0].job_id == c->expander
                                  ? &c->exp->job_array[0]
                                  : morph__sl_job(s, c->expander);
  uint32_t st = e ? e->job_state & JOB_STATE_BASE : JOB_END;
  int taken = e && st == JOB_PENDING ? node_taken(s, c) : -1;
  if (e && st == JOB_RUNNING) {
    grant(s, c, ppu);
  } else if (taken >= 0) {
    snprintf(text, sizeof text, "Slurm gave %s to another job while expander %u waited (%s)",
             s->nodes[taken].host, c->expander, slurm_job_reason_string(e->state_reason));
    finish(s, c, MORPH_EBUSY, text);
  } else if (e && st == JOB_PENDING && morph__wall() < c->grow_deadline) {
    return;
  } else if (e && st == JOB_PENDING) {
    snprintf(text, sizeof text, "Slurm did not grant expander %u within %.0f s (%s)", c->expander,
             GROW_WAIT_S, slurm_job_reason_string(e->state_reason));
    finish(s, c, MORPH_ETIMEDOUT, text);
  } else if (e || morph__wall() > c->grow_deadline) {
    snprintf(text, sizeof text, "expander %u ended without being granted (%s)", c->expander,
             e ? slurm_job_state_string(e->job_state) : "gone");
    finish(s, c, MORPH_EBUSY, text);
  }
}

void morph__sl_grow_poll(morph__sl *s)
{
  for (int i = 0; i < s->nclaims; i++) {
    morph__sl_claim *c = &s->claims[i];
    if (c->grow_req && c->expander)
      poll_one(s, c, c->ppu);
  }
}
