/*
 * morphd's setup, event loop and shutdown. One poll() over the listening
 * socket and the clients, woken at least every TICK_MS to reap children,
 * watch reattached jobs and take the periodic decision.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "morph/error.h"
#include "rms/morphd.h"

#define TICK_MS 200
#define ORPHAN_CHECK_S 2.0
#define STOP_WAIT_S 20.0

/* The one global: set by SIGINT / SIGTERM, read by the loop. A signal
 * handler can do nothing else safely. */
static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
  stop_signal = sig;
}

void morph__daemon_signals(void)
{
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  signal(SIGPIPE, SIG_IGN);
}

static int load_one(void *ctx, morph__job *job)
{
  morph__daemon *d = ctx;
  morph__job *j = malloc(sizeof *j);
  if (!j) {
    morph__job_clear(job);
    return MORPH_ENOMEM;
  }
  *j = *job;
  /* After a restart no job is our child and no relay is connected yet. */
  j->child = 0;
  j->conn = -1;
  j->ready = j->state == MORPH__J_RUNNING;
  return morph__job_add(d, j);
}

int morph__daemon_load(morph__daemon *d)
{
  int64_t max_job;
  int max_resize;
  int rc = morph__journal_jobs_load(d->journal, load_one, d);
  if (rc == MORPH_OK)
    rc = morph__journal_max_ids(d->journal, &max_job, &max_resize);
  if (rc != MORPH_OK) {
    snprintf(d->errmsg, sizeof d->errmsg, "cannot read the journal %.200s: %.280s", d->jpath,
             morph__journal_errmsg(d->journal));
    return rc;
  }
  d->next_job = max_job + 1 > d->next_job ? max_job + 1 : d->next_job;
  d->next_resize = max_resize + 1;
  return morph__jobs_rebook(d);
}

/* Pollable fds: [0] the listening socket, then the clients. */
static int fill_poll(morph__daemon *d, struct pollfd *p, int *who)
{
  int n = 0;
  p[n++] = (struct pollfd){.fd = d->listen_fd, .events = POLLIN};
  for (int i = 0; i < MORPH__MAX_CLIENTS; i++)
    if (d->clients[i].type != MORPH__C_FREE) {
      who[n] = i;
      p[n++] = (struct pollfd){.fd = d->clients[i].fd, .events = POLLIN};
    }
  return n;
}

static void poll_once(morph__daemon *d)
{
  struct pollfd p[MORPH__MAX_CLIENTS + 1];
  int who[MORPH__MAX_CLIENTS + 1];
  int n = fill_poll(d, p, who);
  if (poll(p, (nfds_t)n, TICK_MS) <= 0)
    return;
  if (p[0].revents & POLLIN)
    morph__conn_accept(d);
  for (int k = 1; k < n; k++)
    if (p[k].revents && d->clients[who[k]].fd == p[k].fd)
      morph__conn_read(d, who[k]);
}

static void timers(morph__daemon *d)
{
  double now = morph__wall();
  if (now >= d->next_check) {
    morph__jobs_check_orphans(d);
    d->next_check = now + ORPHAN_CHECK_S;
  }
  if (d->dirty || now >= d->next_decide) {
    d->dirty = 0;
    morph__sched_decide(d);
    d->next_decide = now + d->opt.interval;
  }
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
  while (running_jobs(d) > 0 && morph__wall() < until && stop_signal == 0) {
    poll_once(d);
    morph__jobs_reap(d);
    morph__jobs_check_orphans(d);
  }
}

int morph__daemon_run(morph__daemon *d)
{
  morph__say(&d->log, 0, "listening on %s: %d slots on %d node(s), policy %s, journal %s", d->sock,
              d->pool.total, d->pool.n, morph_policy_name(d->policy), d->jpath);
  d->dirty = 1;
  while (!d->stop && stop_signal == 0) {
    poll_once(d);
    morph__jobs_reap(d);
    timers(d);
  }
  if (d->stop == 2)
    drain(d);
  if (stop_signal)
    morph__say(&d->log, 0, "signal %d: stopping; running jobs keep running", (int)stop_signal);
  return MORPH_OK;
}

void morph__daemon_fini(morph__daemon *d)
{
  for (int i = 0; i < MORPH__MAX_CLIENTS; i++) {
    if (d->clients[i].type != MORPH__C_FREE)
      morph__conn_drop(d, i);
    free(d->clients[i].buf);
  }
  if (d->listen_fd >= 0) {
    close(d->listen_fd);
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
  morph__pool_free(&d->pool);
  morph_policy_destroy(d->policy);
  morph_place_destroy(d->place);
  morph_policy_actions_free(&d->acts);
  memset(d, 0, sizeof *d);
  d->listen_fd = -1;
}
