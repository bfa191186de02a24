/*
 * The event loop of a run: one poll() over the listening socket, the job's
 * connection and morphd's, woken at least every TICK seconds to look at
 * mpirun, the leavers, the schedule's clock and the time limits.
 */
#include <poll.h>
#include <signal.h>

#include "launch.h"
#include "morph/error.h"
#include "run.h"

#define TICK_MS 100

static void poll_once(struct morph__run *r)
{
  struct pollfd p[3] = {
    {.fd = r->listen_fd, .events = POLLIN},
    {.fd = r->job.fd, .events = POLLIN},
    {.fd = r->relay.conn.fd, .events = POLLIN},
  };
  /* Negative fds are ignored by poll(), so absent peers need no care. */
  if (poll(p, 3, TICK_MS) <= 0)
    return;
  if (p[0].revents & POLLIN)
    morph__server_accept(r);
  if (p[1].revents && r->job.fd >= 0)
    morph__server_read(r);
  if (p[2].revents && r->relay.conn.fd >= 0)
    morph__relay_read(r);
}

/* mpirun has ended. Within a relaunch that is expected; otherwise the job
 * is over: read what it still had to say, then finish. */
static void on_mpirun_exit(struct morph__run *r, int code)
{
  r->mpirun = 0;
  r->mpirun_code = code;
  if (r->job.fd >= 0)
    morph__server_read(r);
  morph__conn_close(&r->job);
  if (r->phase == MORPH__PH_RELAUNCH_EXIT || r->phase == MORPH__PH_RESTART ||
      r->phase == MORPH__PH_ROLLBACK) {
    morph__relaunch_exited(r);
    return;
  }
  morph__resize_abandon(r, "mpirun ended");
  if (!r->job_bye && r->phase != MORPH__PH_DONE)
    morph__say(r, code ? 0 : 1, "the job ended without saying goodbye: status %d", code);
  r->phase = MORPH__PH_DONE;
  r->exit_code = code;
}

/* Stops the job now (time limit, signal, hung mpirun); `code` is what
 * morph run then exits with (-1: mpirun's own status). */
static void stop_job(struct morph__run *r, int code)
{
  int st = r->mpirun ? morph__stop_mpirun(r) : 0;
  morph__resize_abandon(r, "the job was stopped");
  r->phase = MORPH__PH_DONE;
  r->exit_code = code >= 0 ? code : st;
}

static void check_limits(struct morph__run *r)
{
  int sig = morph__signal_pending();
  double now = morph__run_clock(r);
  if (sig) {
    morph__say(r, 0, "got signal %d; stopping the job", sig);
    stop_job(r, 128 + sig);
  } else if (r->opt->timeout > 0 && now > r->opt->timeout) {
    morph__say(r, 0, "time limit of %g s reached; stopping the job", r->opt->timeout);
    stop_job(r, 124);
  } else if (r->phase == MORPH__PH_ENDING && now > r->phase_deadline) {
    morph__say(r, 0, "mpirun still running %g s after the job ended; stopping it",
               r->opt->exit_timeout);
    stop_job(r, -1);
  } else {
    morph__relaunch_tick(r);
  }
}

void morph__loop(struct morph__run *r)
{
  while (r->phase != MORPH__PH_DONE) {
    poll_once(r);
    int code;
    if (r->mpirun && morph__reap(r->mpirun, &code))
      on_mpirun_exit(r, code);
    if (r->phase == MORPH__PH_DONE)
      break;
    morph__resize_settle_tick(r);
    morph__dispatch_tick(r);
    morph__relay_tick(r);
    check_limits(r);
  }
}
