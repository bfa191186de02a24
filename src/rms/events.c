/*
 * What the backend reports, handed to the part that deals with it: the
 * completion of a grow or a release (resize.c), the end of a job's
 * processes and a node's change of state (end.c).
 */
#include <stdio.h>

#include "morph/error.h"
#include "rms/morphd.h"

/* A bound per loop turn, so that a backend with a flood of events cannot
 * keep morphd from its connections. */
#define MAX_EVENTS_PER_TURN 1024

static const char *node_state_name(morph_policy_node_state s)
{
  return s == MORPH_POLICY_NODE_UP ? "up" : s == MORPH_POLICY_NODE_DRAINING ? "draining" : "down";
}

static void on_ended(morph__daemon *d, morph__job *job, const morph__backend_event *ev)
{
  /* Vanished out of the backend's sight while the job's relay still
   * speaks: its BYE (or the connection's end) says more; the backend will
   * say it again. */
  if (!ev->known && job->conn >= 0)
    return;
  if (ev->cancelled) /* by the resource manager (scancel): recorded as cancelled */
    job->cancel = 1;
  morph__job_end(d, job, ev->status, ev->text);
}

static void on_node(morph__daemon *d, const morph__backend_event *ev)
{
  morph__backend_view v;
  char host[80], why[sizeof host + 300];
  if (morph__backend_read(d->be, &v) == MORPH_OK && ev->node >= 0 && ev->node < v.nnodes)
    snprintf(host, sizeof host, "%s", v.nodes[ev->node].host);
  else
    snprintf(host, sizeof host, "node %d", ev->node);
  snprintf(why, sizeof why, "%s is %s%s%s", host, node_state_name(ev->state),
           ev->text[0] ? ": " : "", ev->text);
  morph__journal_event(d->journal, morph__wall(), 0, "node", "%s", why);
  morph__say(&d->log, 0, "%s", why);
  if (ev->state == MORPH_POLICY_NODE_DOWN)
    morph__jobs_node_down(d, ev->node, why);
  d->dirty = 1;
}

static void dispatch(morph__daemon *d, const morph__backend_event *ev)
{
  if (ev->kind == MORPH__BE_NODE) {
    on_node(d, ev);
    return;
  }
  if (ev->kind == MORPH__BE_QUEUE) { /* decide at once: it may wait for a shrink */
    morph__say(&d->log, 1, "%s", ev->text);
    d->dirty = 1;
    return;
  }
  morph__job *job = morph__job_find(d, ev->job);
  if (!job || job->state != MORPH__J_RUNNING) {
    morph__say(&d->log, 1, "backend event %d for job %lld, which is not running: ignored",
               (int)ev->kind, (long long)ev->job);
    return;
  }
  if (ev->kind == MORPH__BE_GROWN)
    morph__resize_grown(d, job, ev);
  else if (ev->kind == MORPH__BE_RELEASED)
    morph__resize_released(d, job, ev);
  else if (ev->kind == MORPH__BE_ENDED)
    on_ended(d, job, ev);
}

void morph__events_drain(morph__daemon *d)
{
  morph__backend_event ev;
  for (int n = 0; n < MAX_EVENTS_PER_TURN && morph__backend_next(d->be, &ev) == 1; n++)
    dispatch(d, &ev);
}
