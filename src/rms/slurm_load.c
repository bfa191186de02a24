/*
 * rms/slurm: reading Slurm, and how often. What slurmctld pays for a
 * companion is its RPCs, and a full table costs it the packing of every
 * record under its job or node lock, so:
 *
 *  - every load says which copy morphd has (last_update): slurmctld
 *    answers "no change since" (SLURM_NO_CHANGE_IN_DATA) without packing;
 *  - a picture loads the job table, and the node table only when the jobs
 *    changed (a job started, ended or was resized: nodes changed with it)
 *    or its copy is NODES_MAX_AGE_S old (a node drained or failing); no
 *    reservation table: slurmctld marks the nodes of active reservations
 *    (NODE_STATE_RES) in the node table itself;
 *  - pictures come at most every PICTURE_S, and only while the RPC budget
 *    (slurm_stat.c: 0.9 RPC a second on average, every RPC of the backend
 *    counted, its grows and shrinks too) has a token left; a picture
 *    waits besides LOAD_FACTOR times the last changed job table's load (a
 *    table that takes 1 s to load is loaded at most every 10 s);
 *  - without a claimed job nothing is decided on Slurm: a picture every
 *    IDLE_S; while an expander is pending, its record alone every
 *    GROW_POLL_S (and the nodes every PICTURE_S: was one given to another
 *    job?).
 */
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "morph/error.h"
#include "rms/slurm.h"

#define PICTURE_S 1.0
#define IDLE_S 10.0
#define GROW_POLL_S 0.3
#define NODES_MAX_AGE_S 10.0
#define LOAD_FACTOR 10.0

/* Loads the job table unless Slurm has not changed it since our copy.
 * *changed: 1 if a new table came. */
static int load_jobs(morph__sl *s, int *changed)
{
  job_info_msg_t *m = NULL;
  double t0 = morph__now();
  int rc = slurm_load_jobs(s->jobs ? s->jobs->last_update : 0, &m, SHOW_ALL);
  int same = rc != SLURM_SUCCESS && slurm_get_errno() == SLURM_NO_CHANGE_IN_DATA;
  morph__sl_rpc(s, MORPH__SL_RPC_JOBS, same);
  *changed = rc == SLURM_SUCCESS;
  if (rc != SLURM_SUCCESS)
    return same ? MORPH_OK : MORPH_EIO;
  s->load_s = morph__now() - t0;
  slurm_free_job_info_msg(s->jobs);
  s->jobs = m;
  return morph__sl_index_jobs(s);
}

static int load_nodes(morph__sl *s, int *changed)
{
  node_info_msg_t *m = NULL;
  s->nodes_at = morph__now();
  int rc = slurm_load_node(s->nodes_msg ? s->nodes_msg->last_update : 0, &m, SHOW_ALL);
  int same = rc != SLURM_SUCCESS && slurm_get_errno() == SLURM_NO_CHANGE_IN_DATA;
  morph__sl_rpc(s, MORPH__SL_RPC_NODES, same);
  *changed = rc == SLURM_SUCCESS;
  if (rc != SLURM_SUCCESS)
    return same ? MORPH_OK : MORPH_EIO;
  slurm_free_node_info_msg(s->nodes_msg);
  s->nodes_msg = m;
  return MORPH_OK;
}

/* Claim c's pending expander, its record alone (c->exp), one RPC: a
 * picture of the whole job table would cost slurmctld every record. */
static int load_expander(morph__sl *s, morph__sl_claim *c)
{
  job_info_msg_t *m = NULL;
  morph__sl_rpc(s, MORPH__SL_RPC_JOB, 0);
  if (slurm_load_job(&m, c->expander, SHOW_ALL) != SLURM_SUCCESS || !m)
    return slurm_get_errno() == ESLURM_INVALID_JOB_ID ? MORPH_OK : MORPH_EIO;
  slurm_free_job_info_msg(c->exp);
  c->exp = m;
  return MORPH_OK;
}

int morph__sl_refresh(morph__sl *s, int nodes, char *err, size_t errsize)
{
  double t0 = morph__now();
  int jobs_new = 0, nodes_new = 0;
  int rc = load_jobs(s, &jobs_new);
  if (rc == MORPH_OK && (nodes || jobs_new || !s->nodes_msg ||
                         t0 - s->nodes_at >= NODES_MAX_AGE_S))
    rc = load_nodes(s, &nodes_new);
  double t1 = morph__now();
  if (rc != MORPH_OK || !s->jobs || !s->nodes_msg) {
    snprintf(err, errsize, "cannot read Slurm's state: %s", morph__sl_strerror());
    s->stale = 1;
    return rc == MORPH_ENOMEM ? rc : MORPH_EIO;
  }
  s->stale = 0;
  if (jobs_new || nodes_new || s->built == 0 || morph__wall() >= s->refused_next)
    rc = morph__sl_build(s);
  if (rc != MORPH_OK)
    snprintf(err, errsize, "out of memory");
  morph__sl_stat_picture(s, !jobs_new && !nodes_new, 1e3 * (t1 - t0), 1e3 * (morph__now() - t1));
  return rc;
}

/* The expanders still pending get their own record again (one RPC each),
 * and the nodes every PICTURE_S. */
static int poll_expanders(morph__sl *s, char *err, size_t errsize)
{
  int rc = MORPH_OK;
  for (int i = 0; rc == MORPH_OK && i < s->nclaims; i++)
    if (s->claims[i].grow_req && s->claims[i].expander)
      rc = load_expander(s, &s->claims[i]);
  int nodes_new = 0;
  if (rc == MORPH_OK && morph__now() - s->nodes_at >= PICTURE_S)
    rc = load_nodes(s, &nodes_new);
  if (rc != MORPH_OK) {
    snprintf(err, errsize, "cannot read Slurm's state: %s", morph__sl_strerror());
    s->stale = 1;
    return MORPH_EIO;
  }
  if (morph__sl_build(s) != MORPH_OK)
    return snprintf(err, errsize, "out of memory"), MORPH_ENOMEM;
  return MORPH_OK;
}

static int expander_pending(const morph__sl *s)
{
  for (int i = 0; i < s->nclaims; i++)
    if (s->claims[i].grow_req && s->claims[i].expander)
      return 1;
  return 0;
}

/* True when a picture is due: its period since the last one (longer
 * without claims, and after a long load) has passed, or a claim asked for
 * one soon, and the budget has the job table's RPC. */
static int due(morph__sl *s, double now)
{
  if (s->picture_at == 0)
    return 1;
  double p = s->nclaims == 0 ? IDLE_S : PICTURE_S;
  if (LOAD_FACTOR * s->load_s > p)
    p = LOAD_FACTOR * s->load_s;
  return (s->picture_soon || now - s->picture_at >= p) && morph__sl_budget(s) >= 1;
}

int morph__sl_picture(morph__sl *s, int *took, char *err, size_t errsize)
{
  double now = morph__now();
  *took = 0;
  if (expander_pending(s)) {
    if (now < s->grow_poll_at)
      return MORPH_OK;
    s->grow_poll_at = now + GROW_POLL_S;
    *took = 1;
    return poll_expanders(s, err, errsize);
  }
  if (!due(s, now))
    return MORPH_OK;
  s->picture_at = now;
  s->picture_soon = 0;
  *took = 1;
  return morph__sl_refresh(s, 0, err, errsize);
}
