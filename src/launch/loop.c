/*
 * The event loop of a run: one poll() over the listening socket, the job's
 * connection and morphd's, woken at least every TICK seconds to look at
 * mpirun, the leavers, the schedule's clock and the time limits.
 */
#include "launch.h"

#include <poll.h>
#include <string.h>

#include "child.h"
#include "decision.h"
#include "dispatch.h"
#include "monitor.h"
#include "mpirun.h"
#include "relaunch.h"
#include "relay.h"
#include "resize.h"
#include "server.h"
#include "common/signals.h"
#include "state.h"

#define TICK_MS 100
/* While leavers are on their way out, look more often: their slots are
 * handed on as soon as they are gone. */
#define SETTLE_TICK_MS 10

static void poll_once(struct morph__launch *r)
{
  struct pollfd p[2 + MORPH__PENDING_MAX + 1] = {
    {.fd = r->job.fd, .events = POLLIN},
    {.fd = r->relay.conn.fd, .events = POLLIN},
  };
  int n = 2 + morph__listener_fds(&r->listener, p + 2, MORPH__PENDING_MAX + 1);
  /* Negative fds are ignored by poll(), so absent peers need no care. */
  int ready = poll(p, (nfds_t)n, r->settling ? SETTLE_TICK_MS : TICK_MS);
  morph__launch_server_accept(r); /* also ends handshakes past their deadline */
  if (ready > 0 && p[0].revents && r->job.fd >= 0)
    morph__launch_server_read(r);
  if (ready > 0 && p[1].revents && r->relay.conn.fd >= 0)
    morph__launch_relay_read(r);
}

/* What morph run exits with once the job is over. `code` is mpirun's exit
 * status and `ours` says morph run stopped it. Under Open MPI mpirun runs
 * with --enable-recovery and then exits 0 whatever the processes returned,
 * so the job's BYE (the largest status of all its processes) comes first;
 * mpirun's own status counts only when it ended by itself. Without BYE a
 * job that connected failed, and so did any job under recovery (its
 * processes may have returned anything: morph_open failing, say). */
static int job_outcome(const struct morph__launch *r, int code, int ours)
{
  if (r->job_bye)
    return r->bye_status ? r->bye_status : ours ? 0 : code;
  if (ours || code)
    return code ? code : 1;
  return r->connected || morph__launch_mpi_recovers(&r->opt->cmd) ? 1 : 0;
}

/* After the job's BYE 0 (every process ended with 0), an error of mpirun
 * is mpirun's own. Open MPI 4.1's mpirun keeps a daemon on every host the
 * job ever used and exits 255 when one dies, even one the job had left (a
 * node drained and powered off after a shrink): that job completed. The
 * host is named in the log and in the text morphd records. */
static int idle_daemon_lost(struct morph__launch *r, int code)
{
  char hosts[160];
  if (!r->job_bye || r->bye_status != 0 || code == 0 ||
      morph__launch_monitor_idle_lost(r, hosts, sizeof hosts) == 0)
    return 0;
  morph__say(&r->log, 0, "mpirun exited %d after the job's BYE 0: it lost its daemon on %s, "
             "where the job had no process left; the job completed", code, hosts);
  size_t used = strlen(r->bye_text);
  snprintf(r->bye_text + used, sizeof r->bye_text - used,
           "%s(mpirun exited %d: lost its idle daemon on %s, which the job had left)",
           used ? " " : "", code, hosts);
  return 1;
}

/* mpirun has ended. Within a relaunch that is expected; otherwise the job
 * is over: read what it still had to say, then finish. */
static void on_mpirun_exit(struct morph__launch *r, int code)
{
  r->mpirun = 0;
  r->mpirun_code = code;
  if (r->job.fd >= 0)
    morph__launch_server_read(r);
  morph__conn_close(&r->job);
  if (r->phase == MORPH__LAUNCH_PH_RELAUNCH_EXIT || r->phase == MORPH__LAUNCH_PH_RESTART ||
      r->phase == MORPH__LAUNCH_PH_ROLLBACK) {
    morph__launch_relaunch_exited(r);
    return;
  }
  morph__launch_decision_abandon(r, "mpirun ended");
  r->exit_code = idle_daemon_lost(r, code) ? 0 : job_outcome(r, code, 0);
  char lost[160];
  if (!r->job_bye && code && morph__launch_monitor_lost_hosts(r, lost, sizeof lost) > 0) {
    snprintf(r->bye_text, sizeof r->bye_text,
             "mpirun ended with status %d; processes of the job were lost with the host(s)"
             " that did not answer for %g s: %.120s", code, MORPH__WATCH_SILENT_S, lost);
    morph__say(&r->log, 0, "%s", r->bye_text);
  }
  if (!r->job_bye && !r->connected && !code && r->exit_code)
    morph__say(&r->log, 0, "the job ended without ever connecting; under --enable-recovery its "
                     "status is unknown: 1 (--no-recovery for programs without libmorph)");
  else if (!r->job_bye)
    morph__say(&r->log, r->exit_code ? 0 : 1, "the job ended without saying goodbye: status %d",
               r->exit_code);
  r->phase = MORPH__LAUNCH_PH_DONE;
}

/* Stops the job now (time limit, signal, crash, hung mpirun); `code` is
 * what morph run then exits with (-1: the job's outcome, see job_outcome). */
static void stop_job(struct morph__launch *r, int code)
{
  int st = r->mpirun ? morph__launch_mpirun_stop(r) : 0;
  morph__launch_decision_abandon(r, "the job was stopped");
  r->phase = MORPH__LAUNCH_PH_DONE;
  r->exit_code = code >= 0 ? code : job_outcome(r, st, 1);
}

/* mpirun has outlived the job: the whole --exit-timeout, or a short grace
 * once none of the job's processes was left (monitor.c). */
static void stop_late_mpirun(struct morph__launch *r)
{
  if (r->mon.all_gone)
    morph__say(&r->log, 1, "mpirun still running after the job's last process ended; stopping it");
  else
    morph__say(&r->log, 0, "mpirun still running %g s after the job ended; stopping it",
               r->opt->exit_timeout);
  stop_job(r, -1);
  /* Said as when mpirun ends by itself: under load mpirun can take longer
   * than the grace to report a crashed rank, and the user must not get a
   * different account of the same crash. */
  if (r->mon.all_gone && !r->job_bye)
    morph__say(&r->log, 0, "the job ended without saying goodbye: status %d", r->exit_code);
}

/* The signal that killed the lost process cannot be known (mpirun, its
 * parent, reaps it), hence status 1. The reason goes to morphd too. */
static void stop_crashed(struct morph__launch *r)
{
  if (r->mon.aborted[0])
    snprintf(r->bye_text, sizeof r->bye_text, "%.250s", r->mon.aborted);
  else if (r->mon.watch.n > 0)
    snprintf(r->bye_text, sizeof r->bye_text,
             "processes of the job were lost outside a reconfiguration (%.190s)", r->mon.where);
  else if (r->mon.last_gone > 0)
    snprintf(r->bye_text, sizeof r->bye_text,
             "process %ld died outside a reconfiguration", (long)r->mon.last_gone);
  else
    snprintf(r->bye_text, sizeof r->bye_text,
             "a process of the job died outside a reconfiguration");
  morph__say(&r->log, 0, "%s; stopping the job", r->bye_text);
  stop_job(r, 1);
}

static void check_limits(struct morph__launch *r)
{
  int sig = morph__signal_pending();
  double now = morph__launch_clock(r);
  if (sig) {
    morph__say(&r->log, 0, "got signal %d; stopping the job", sig);
    stop_job(r, 128 + sig);
  } else if (r->opt->timeout > 0 && now > r->opt->timeout) {
    morph__say(&r->log, 0, "time limit of %g s reached; stopping the job", r->opt->timeout);
    stop_job(r, 124);
  } else if (r->mon.crashed) {
    stop_crashed(r);
  } else if (r->phase == MORPH__LAUNCH_PH_ENDING && now > r->phase_deadline) {
    stop_late_mpirun(r);
  } else {
    morph__launch_relaunch_tick(r);
  }
}

void morph__launch_run(struct morph__launch *r)
{
  while (r->phase != MORPH__LAUNCH_PH_DONE) {
    poll_once(r);
    int code;
    if (r->mpirun && morph__launch_child_reap(r->mpirun, &code))
      on_mpirun_exit(r, code);
    if (r->phase == MORPH__LAUNCH_PH_DONE)
      break;
    morph__launch_resize_settle_tick(r);
    morph__launch_monitor_tick(r);
    morph__launch_dispatch_tick(r);
    morph__launch_relay_tick(r);
    check_limits(r);
  }
}
