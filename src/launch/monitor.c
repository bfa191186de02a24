/*
 * The crash monitor. Under Open MPI, mpirun runs with --enable-recovery so
 * that a joiner or leaver lost inside an adaptation window does not take
 * the whole job down: libmorph rolls back and carries on. The price is that
 * mpirun no longer stops a job one of whose processes died. morph run
 * restores "one dies, all stop" wherever no reconfiguration can explain a
 * disappearance: it counts the application's processes in /proc (or, when
 * the job's hostfile names other hosts, on each of them: watch.h) and
 * compares them with the fewest the job can have at that moment. A host
 * that dies or drops off the network takes its processes with it: its
 * count becomes 0 and the job is stopped, naming the host. Without
 * recovery (MPICH, --no-recovery) the launcher does this itself and its
 * own report is better, so only the end-of-job part below applies.
 */
#include "monitor.h"

#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "morph/error.h"
#include "procs.h"
#include "state.h"

#define LOOK_PERIOD 0.25 /* seconds between two looks at /proc */
#define CONFIRM 1.0      /* too few processes for this long is a loss */
#define END_GRACE 2.0    /* mpirun's time to end once the job's processes are gone */

static int min_int(int a, int b)
{
  return a < b ? a : b;
}

/* The fewest application processes the job can have now if none died, or
 * -1 when nothing can be judged: before HELLO not every process may be up;
 * after BYE they end on purpose; during a relaunch they are replaced. With
 * a decision sent and not yet acknowledged the job may be inside its
 * window, where leavers (down to the requested size) and the joiners of a
 * rolled-back expansion (back to the old size) end on purpose: only fewer
 * than both is a loss there; anything else is judged after the ACK, against
 * the size the job then has. */
static int floor_now(const struct morph__launch *r)
{
  int live =
    r->phase == MORPH__LAUNCH_PH_RUNNING || (r->phase == MORPH__LAUNCH_PH_ENDING && !r->job_bye);
  if (!live || !r->connected || !r->app_exe[0] || !morph__launch_mpi_recovers(&r->opt->cmd))
    return -1;
  const struct morph__launch_decision *d = &r->dec;
  int floor = r->size;
  if (d->active && d->acked > 0)
    floor = d->ack.new_size; /* a live shrink whose leavers are still leaving */
  else if (d->active)
    floor = min_int(r->size, d->size);
  if (r->early.active) /* the job may apply it before d is done */
    floor = min_int(floor, r->early.size);
  return floor;
}

static int contains(const pid_t *pids, int n, pid_t pid)
{
  for (int i = 0; i < n; i++)
    if (pids[i] == pid)
      return 1;
  return 0;
}

/* Lists the application's processes and remembers which one went last, so
 * a crash can be reported by pid. */
static void look_here(struct morph__launch *r)
{
  struct morph__launch_monitor *m = &r->mon;
  pid_t *now = NULL;
  int cap = 0;
  int n = morph__launch_procs_list(getpid(), r->app_exe, &now, &cap);
  if (n < 0) {
    free(now);
    m->count = -1;
    return;
  }
  for (int i = 0; i < m->n; i++)
    if (!contains(now, n, m->pids[i]))
      m->last_gone = m->pids[i];
  free(m->pids);
  m->pids = now, m->n = n, m->cap = cap, m->count = n;
}

static void look(struct morph__launch *r, double now)
{
  struct morph__launch_monitor *m = &r->mon;
  if (m->watch.n == 0) {
    look_here(r);
    return;
  }
  morph__launch_watch_poll(&m->watch, now);
  m->count = morph__launch_watch_count(&m->watch, now, m->where, sizeof m->where);
}

/* Too few processes must last CONFIRM seconds before it counts: the BYE
 * or ACK that explains a disappearance may still be on its way (a process
 * can end a moment after rank 0 wrote it, before morph run has read it). */
static void judge(struct morph__launch *r, double now)
{
  struct morph__launch_monitor *m = &r->mon;
  int floor = floor_now(r);
  if (floor < 0 || m->count < 0 || m->count >= floor) {
    m->short_since = 0;
    return;
  }
  if (m->short_since == 0)
    m->short_since = now;
  else if (now - m->short_since >= CONFIRM)
    m->crashed = 1;
}

/* After a failed MPI_Comm_spawn, Open MPI's mpirun never ends by itself:
 * once the job is over and none of its processes is left, waiting the
 * full --exit-timeout would only waste time. When this mpirun saw a live
 * grow fail, waiting at all would (the relaunch that follows a failed
 * spawn must not cost more than a normal one, issue 23). */
static void end_grace(struct morph__launch *r, double now)
{
  struct morph__launch_monitor *m = &r->mon;
  int over = r->phase == MORPH__LAUNCH_PH_ENDING || r->phase == MORPH__LAUNCH_PH_RELAUNCH_EXIT;
  if (!over || m->all_gone || m->count != 0 || !r->app_exe[0] || !r->mpirun)
    return;
  m->all_gone = 1;
  double grace = r->spawn_failed ? 0 : END_GRACE;
  if (r->spawn_failed)
    morph__say(&r->log, 1, "no process of the job is left and a spawn of this mpirun failed: "
               "it will not end by itself");
  else
    morph__say(&r->log, 1, "no process of the job is left; mpirun gets %g s more to end", grace);
  if (r->phase_deadline > now + grace)
    r->phase_deadline = now + grace;
}

/* Joiners of a live grow in flight, or left behind by one that failed,
 * are not the job's processes: when their join fails, morph_open returns
 * an error and an application that answers it with MPI_Abort (as the
 * examples do) ends only that joiner. A cable pulled during a grow did
 * that, and stopping the job for it undid the rollback. */
static int joiners_may_abort(const struct morph__launch *r)
{
  const struct morph__launch_decision *d = &r->dec;
  return r->spawn_failed ||
         (d->active && d->size > r->size && d->mechanism != MORPH__LAUNCH_MECH_RELAUNCH);
}

/* A process that called MPI_Abort under --enable-recovery ends alone and
 * mpirun keeps the others waiting for it (errscan.h): the job is stopped
 * as if it had died outside a reconfiguration, naming the abort. While
 * joiners may be the ones aborting, the abort is only said: the count of
 * the job's processes (look, judge) still catches one of its own lost. */
static void aborted(struct morph__launch *r)
{
  struct morph__launch_monitor *m = &r->mon;
  if (m->crashed || !r->mpirun || r->phase == MORPH__LAUNCH_PH_DONE ||
      !morph__launch_errscan_abort(&r->err, m->aborted, sizeof m->aborted))
    return;
  if (!joiners_may_abort(r)) {
    m->crashed = 1;
    return;
  }
  morph__say(&r->log, 0, "%s: taken for a joiner of a live grow, not a process of the job",
             m->aborted);
  morph__launch_errscan_reset(&r->err);
  m->aborted[0] = '\0';
}

void morph__launch_monitor_tick(struct morph__launch *r)
{
  aborted(r);
  double now = morph__launch_clock(r);
  if (!r->app_exe[0] || now < r->mon.next_look)
    return;
  r->mon.next_look = now + LOOK_PERIOD;
  look(r, now);
  judge(r, now);
  end_grace(r, now);
}

void morph__launch_monitor_reset(struct morph__launch *r)
{
  r->mon.short_since = 0;
  r->mon.all_gone = 0;
  r->mon.aborted[0] = '\0';
  r->spawn_failed = 0;
  r->mon.count = -1;
}

int morph__launch_monitor_count(struct morph__launch *r)
{
  if (r->mon.watch.n == 0)
    return morph__launch_procs_count(getpid(), r->app_exe);
  double now = morph__launch_clock(r);
  morph__launch_watch_poll(&r->mon.watch, now);
  return morph__launch_watch_count(&r->mon.watch, now, r->mon.where, sizeof r->mon.where);
}

int morph__launch_monitor_idle_lost(struct morph__launch *r, char *names, size_t size)
{
  names[0] = '\0';
  if (r->mon.watch.n == 0)
    return 0;
  double now = morph__launch_clock(r);
  morph__launch_watch_poll(&r->mon.watch, now);
  return morph__launch_watch_idle_lost(&r->mon.watch, now, names, size);
}

int morph__launch_monitor_lost_hosts(struct morph__launch *r, char *buf, size_t size)
{
  buf[0] = '\0';
  if (r->mon.watch.n == 0)
    return 0;
  /* What the sessions printed before mpirun ended is read first, and an
   * answer must come a print interval (1 s) after that: a count a host
   * printed just before it died, read now, is not an answer (cluster
   * test morphd-host-killed: under load the job was said to have failed
   * without naming the host it died with). */
  double now = morph__launch_clock(r);
  morph__launch_watch_poll(&r->mon.watch, now);
  double t0 = now + 1.0;
  while (now - t0 <= MORPH__WATCH_SILENT_S &&
         morph__launch_watch_silent(&r->mon.watch, t0, buf, size) > 0) {
    usleep(100000);
    while (waitpid(-1, NULL, WNOHANG) > 0) /* ended sessions: mpirun is reaped already */
      ;
    now = morph__launch_clock(r);
    morph__launch_watch_poll(&r->mon.watch, now);
  }
  return morph__launch_watch_silent(&r->mon.watch, t0, buf, size);
}

void morph__launch_monitor_watch(struct morph__launch *r, const char *host)
{
  char err[320];
  if (!r->app_exe[0])
    return; /* the program is not known here: nothing is counted anywhere */
  int n = r->mon.watch.n;
  if (morph__launch_watch_add(&r->mon.watch, host, r->opt->job_id, r->app_exe, r->opt->timeout,
                              err, sizeof err) != MORPH_OK)
    morph__say(&r->log, 0, "%s: crashes and leavers there will not be seen", err);
  else if (r->mon.watch.n > n)
    morph__say(&r->log, 1, "watching the job's processes on %s too (%d hosts)", host,
               r->mon.watch.n);
}

void morph__launch_monitor_free(struct morph__launch *r)
{
  morph__launch_watch_close(&r->mon.watch);
  free(r->mon.pids);
  r->mon.pids = NULL;
  r->mon.n = r->mon.cap = 0;
}
