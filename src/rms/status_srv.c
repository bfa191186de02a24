/*
 * The reply to "status": the pool, its nodes, and the jobs (active ones and
 * the most recent finished ones, or all with "all": true, or the listed
 * "ids"). Plain numbers and strings, so any client can print them.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "morph/error.h"
#include "rms/morphd.h"

#define RECENT_FINISHED 8

static const char *const state_names[] = {"up", "draining", "down"};

/* Node i as the scheduler sees it: an UP node the placement expects to
 * fail is draining; with heartbeats, its outage probability. */
static json_t *node_json(const morph__daemon *d, const morph__node *n, int i)
{
  json_t *o = json_pack("{s:s, s:i, s:i, s:s}", "host", n->host, "slots", n->slots, "used",
                        n->used, "state", state_names[morph__sched_node_state(d, n, i)]);
  if (o && i < d->beat.nnodes)
    json_object_set_new(o, "outage", json_real(morph__beat_window_p(&d->beat.nodes[i].win)));
  return o;
}

/* "localhost:3,h2:1" */
static void where(const morph__backend_view *v, const morph__alloc *a, char *buf, size_t size)
{
  size_t len = 0;
  buf[0] = '\0';
  for (int k = 0; k < a->n && len < size; k++) {
    const char *h = a->v[k].node < v->nnodes ? v->nodes[a->v[k].node].host : "?";
    int w = snprintf(buf + len, size - len, "%s%s:%d", k ? "," : "", h, a->v[k].slots);
    len += w > 0 ? (size_t)w : 0;
  }
}

/* Node units: the limits the engine uses, by the rule of job.h. */
static void unit_note(const morph__job *j, char *buf, size_t size)
{
  int min, pref, max;
  if (!morph__job_unit_limits(j, &min, &pref, &max))
    snprintf(buf, size, "no whole node of %d in %d..%d: not resized", j->ppu, j->min, j->max);
  else if (min * j->ppu != j->min || max * j->ppu != j->max || pref * j->ppu != j->pref)
    snprintf(buf, size, "in nodes of %d: %d<%d<%d", j->ppu, min, pref, max);
}

static void activity(const morph__job *j, char *buf, size_t size)
{
  buf[0] = '\0';
  if (j->state == MORPH__J_RUNNING && j->rz_id)
    snprintf(buf, size, "%s %d -> %d", morph__rop_name(j->rz_op), j->size, j->rz_to);
  else if (j->state == MORPH__J_STARTING)
    snprintf(buf, size, "waits for resize %d", j->rz_id);
  else if (j->state == MORPH__J_RUNNING && j->conn < 0)
    snprintf(buf, size, "not connected");
  else if (morph_job_kind_malleable(j->kind) && j->ppu > 1)
    unit_note(j, buf, size);
}

/* What only the job's owner and the administrators see. */
static void hide_details(json_t *o)
{
  const char *keys[] = {"name", "program", "out", "err", "note"};
  for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
    json_object_set_new(o, keys[k], json_string(""));
  json_object_set_new(o, "hidden", json_true());
}

static json_t *job_json(const morph__backend_view *v, const morph__job *j)
{
  char at[256], act[96];
  where(v, &j->alloc, at, sizeof at);
  activity(j, act, sizeof act);
  const char *prog = j->argc ? strrchr(j->argv[0], '/') : NULL;
  prog = prog ? prog + 1 : j->argc ? j->argv[0] : "";
  json_t *o = json_pack("{s:I, s:s, s:s, s:s, s:s, s:i, s:i, s:i, s:i, s:i, s:i}", "id",
                        (json_int_t)j->id, "name", j->name, "state", morph__jstate_name(j->state),
                        "kind", morph_job_kind_name(j->kind), "program", prog, "size", j->size,
                        "req_min", j->req_min, "req_max", j->req_max, "min", j->min, "max", j->max,
                        "pref", j->pref);
  json_object_update_new(
      o, json_pack("{s:f, s:f, s:f, s:s, s:s, s:i, s:i, s:I, s:f, s:f, s:i, s:s, s:s, s:s}",
                   "submit", j->submit, "start", j->start, "end", j->end, "slots", at, "activity",
                   act, "resizes", j->resizes, "failed_resizes", j->failed_resizes, "iteration",
                   (json_int_t)j->iteration, "iter_time", j->iter_time, "mpi_time", j->mpi_time,
                   "exit_status", j->exit_status, "note", j->note, "out", j->out ? j->out : "",
                   "err", j->err ? j->err : ""));
  json_object_set_new(o, "uid", json_integer(j->uid == (uid_t)-1 ? -1 : (json_int_t)j->uid));
  return o;
}

static int wanted(const morph__daemon *d, int k, json_t *ids, int all)
{
  const morph__job *j = d->jobs[k];
  if (json_array_size(ids)) {
    for (size_t x = 0; x < json_array_size(ids); x++)
      if (json_integer_value(json_array_get(ids, x)) == j->id)
        return 1;
    return 0;
  }
  if (all || !morph__jstate_final(j->state))
    return 1;
  int later = 0; /* finished jobs after this one */
  for (int m = k + 1; m < d->njobs; m++)
    later += morph__jstate_final(d->jobs[m]->state);
  return later < RECENT_FINISHED;
}

json_t *morph__cli_status(morph__daemon *d, int i, json_t *req)
{
  int all = json_is_true(json_object_get(req, "all"));
  json_t *ids = json_object_get(req, "ids");
  json_t *nodes = json_array(), *jobs = json_array();
  int counts[MORPH__J_STATE_COUNT] = {0}, free = 0;
  morph__backend_view v;
  morph__backend_read(d->be, &v);
  /* In the view's units: Slurm's whole nodes are free or not. */
  int by_node = v.unit == MORPH_POLICY_UNIT_NODE;
  for (int n = 0; n < v.nnodes; n++) {
    const morph__node *nd = &v.nodes[n];
    json_array_append_new(nodes, node_json(d, nd, n));
    if (nd->state == MORPH_POLICY_NODE_UP)
      free += by_node ? nd->used == 0 : nd->slots - nd->used;
  }
  for (int k = 0; k < d->njobs; k++) {
    counts[d->jobs[k]->state]++;
    if (!wanted(d, k, ids, all))
      continue;
    json_t *o = job_json(&v, d->jobs[k]);
    if (!morph__access_job(d, i, d->jobs[k]))
      hide_details(o);
    json_array_append_new(jobs, o);
  }
  json_t *c = json_object();
  for (int s = 0; s < MORPH__J_STATE_COUNT; s++)
    json_object_set_new(c, morph__jstate_name((morph__jstate)s), json_integer(counts[s]));
  return json_pack("{s:b, s:f, s:s, s:s, s:I, s:i, s:s, s:i, s:i, s:o, s:o, s:o, s:s}", "ok", 1,
                   "now", morph__wall(), "policy", morph_policy_name(d->policy), "backend",
                   morph__backend_name(d->be), "pid", (json_int_t)getpid(), "slots",
                   morph__backend_view_units(&v), "unit", by_node ? "nodes" : "slots", "free",
                   free, "decisions", d->decisions, "nodes", nodes, "jobs", jobs, "counts", c,
                   "journal", d->jpath);
}
