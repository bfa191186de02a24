/*
 * morphd's event loop and shutdown. One poll() over the listening socket
 * and the clients, woken at least every TICK_MS to hear the backend (which
 * reaps children and watches reattached jobs there) and to take the
 * periodic decision.
 */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/signals.h"
#include "morph/error.h"
#include "rms/morphd.h"

#define TICK_MS 200
#define STOP_WAIT_S 20.0

#define POLL_MAX (MORPH__PENDING_MAX + 1 + MORPH__MAX_CLIENTS)

/* Pollable fds: the listener's (its socket and the connections still
 * authenticating), then the clients, writable ones too when output waits
 * for them. who[k] is the client of p[k], -1 for the listener's. */
static int fill_poll(morph__daemon *d, struct pollfd *p, int *who)
{
  int n = morph__listener_fds(&d->listener, p, POLL_MAX);
  for (int k = 0; k < n; k++)
    who[k] = -1;
  for (int i = 0; i < MORPH__MAX_CLIENTS; i++) {
    const morph__client *c = &d->clients[i];
    if (c->type == MORPH__C_FREE)
      continue;
    who[n] = i;
    p[n++] = (struct pollfd){.fd = c->fd, .events = POLLIN | (c->olen ? POLLOUT : 0)};
  }
  return n;
}

/* Clients whose peer went away or stopped reading while they were served. */
static void drop_dead(morph__daemon *d)
{
  for (int i = 0; i < MORPH__MAX_CLIENTS; i++)
    if (d->clients[i].type != MORPH__C_FREE && d->clients[i].dead)
      morph__conn_drop(d, i);
}

static void poll_once(morph__daemon *d)
{
  struct pollfd p[POLL_MAX];
  int who[POLL_MAX];
  int n = fill_poll(d, p, who);
  int ready = poll(p, (nfds_t)n, TICK_MS);
  morph__conn_accept(d); /* also ends handshakes past their deadline */
  for (int k = 0; ready > 0 && k < n; k++) {
    int i = who[k];
    if (i < 0 || !p[k].revents || d->clients[i].fd != p[k].fd)
      continue;
    if ((p[k].revents & POLLOUT) && morph__wire_flush(d, i) != MORPH_OK)
      d->clients[i].dead = 1;
    if (p[k].revents & ~POLLOUT)
      morph__conn_read(d, i);
  }
  drop_dead(d);
  morph__conn_expire(d);
}

/* A decision when something changed or the interval has passed; what
 * it asked of the backend is heard at once (the embedded backend grants
 * at once, and a RESIZE should not wait for the next tick). */
static void decide(morph__daemon *d)
{
  double now = morph__wall();
  if (!d->dirty && now < d->next_decide)
    return;
  d->dirty = 0;
  morph__sched_decide(d);
  d->next_decide = now + d->opt.interval;
  morph__events_drain(d);
}

static int running_jobs(const morph__daemon *d)
{
  int n = 0;
  for (int i = 0; i < d->njobs; i++)
    n += d->jobs[i]->state == MORPH__J_RUNNING;
  return n;
}

/* After "shutdown" with kill_jobs: hear the jobs' BYEs before leaving, so
 * the journal records how they ended. */
static void drain(morph__daemon *d)
{
  double until = morph__wall() + STOP_WAIT_S;
  while (running_jobs(d) > 0 && morph__wall() < until && morph__signal_pending() == 0) {
    poll_once(d);
    morph__events_drain(d);
  }
}

int morph__daemon_run(morph__daemon *d)
{
  morph__backend_view v;
  morph__backend_read(d->be, &v);
  morph__say(&d->log, 0, "listening on %s: %s backend, %d %s on %d node(s), policy %s, journal %s",
             d->sock, morph__backend_name(d->be), morph__backend_view_units(&v),
             v.unit == MORPH_POLICY_UNIT_NODE ? "nodes" : "slots", v.nnodes,
             morph_policy_name(d->policy), d->jpath);
  d->dirty = 1;
  while (!d->stop && morph__signal_pending() == 0) {
    poll_once(d);
    morph__events_drain(d);
    morph__resize_expire(d);
    morph__health_tick(d);
    decide(d);
  }
  if (d->stop == 2)
    drain(d);
  if (morph__signal_pending())
    morph__say(&d->log, 0, "signal %d: stopping; running jobs keep running", morph__signal_pending());
  return MORPH_OK;
}

void morph__daemon_fini(morph__daemon *d)
{
  for (int i = 0; i < MORPH__MAX_CLIENTS; i++) {
    if (d->clients[i].type != MORPH__C_FREE)
      morph__conn_drop(d, i);
    free(d->clients[i].buf);
  }
  if (d->listener.fd >= 0) {
    morph__listener_close(&d->listener);
    if (!morph__addr_is_tcp(d->sock))
      unlink(d->sock);
  }
  if (d->journal) {
    morph__journal_event(d->journal, morph__wall(), 0, "daemon", "stopped");
    morph__journal_close(d->journal);
  }
  for (int i = 0; i < d->njobs; i++) {
    morph__job_clear(d->jobs[i]);
    free(d->jobs[i]);
  }
  free(d->jobs);
  morph__health_fini(d);
  morph__backend_close(d->be);
  morph_policy_destroy(d->policy);
  morph_place_destroy(d->place);
  morph_policy_actions_free(&d->acts);
  memset(d, 0, sizeof *d);
  d->listener.fd = d->listener.reserve = -1;
}
