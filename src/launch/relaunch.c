#include "relaunch.h"

#include <stdio.h>
#include <unistd.h>

#include "child.h"
#include "decision.h"
#include "hosts.h"
#include "morph/error.h"
#include "mpirun.h"
#include "state.h"

/* Seconds the old mpirun gets to end after the checkpoint when a live
 * grow of it failed. */
#define SPAWN_FAILED_EXIT 2.0

static void remember_checkpoint(struct morph__launch *r, const char *path)
{
  if (path[0] && r->n_old_checkpoints < 8)
    snprintf(r->old_checkpoints[r->n_old_checkpoints++], sizeof r->old_checkpoints[0], "%s", path);
}

void morph__launch_relaunch_begin(struct morph__launch *r)
{
  const morph__msg *a = &r->dec.ack;
  snprintf(r->checkpoint, sizeof r->checkpoint, "%s", a->checkpoint);
  remember_checkpoint(r, a->checkpoint);
  r->restart_size = a->new_size > 0 ? a->new_size : r->dec.size;
  morph__say(&r->log, 1, "job checkpointed to %s for a relaunch at %d; waiting for mpirun to end",
             a->checkpoint, r->restart_size);
  /* After a failed live grow this mpirun never ends by itself, and joiners
   * the spawn left hanging may still count as the job's processes
   * (monitor.c): once the checkpoint is acknowledged, the old processes
   * have nothing left to do that the relaunch needs. */
  double limit = r->opt->exit_timeout;
  if (r->spawn_failed && limit > SPAWN_FAILED_EXIT)
    limit = SPAWN_FAILED_EXIT;
  morph__launch_phase_set(r, MORPH__LAUNCH_PH_RELAUNCH_EXIT, limit);
}

/* Last resort: neither size could be started again. */
static void give_up(struct morph__launch *r, const char *why)
{
  char note[384];
  snprintf(note, sizeof note, "%.200s; rollback at %d failed too (%.120s)", r->rollback_note,
           r->dec.ack.old_size, why);
  morph__launch_decision_done(r, r->rollback_outcome, r->dec.ack.old_size, note);
  morph__say(&r->log, 0, "cannot restart the job from %s; giving up", r->checkpoint);
  r->phase = MORPH__LAUNCH_PH_DONE;
  r->exit_code = r->mpirun_code ? r->mpirun_code : 1;
}

static void rollback(struct morph__launch *r, int outcome, const char *why)
{
  morph__launch_child_kill_leftovers(r->opt->grace);
  r->rollback_outcome = outcome;
  snprintf(r->rollback_note, sizeof r->rollback_note, "relaunch at %d failed (%s)",
           r->restart_size, why);
  morph__say(&r->log, 0, "%s; restarting at %d from %s", r->rollback_note, r->dec.ack.old_size,
             r->checkpoint);
  /* The RESIZE's hosts, applied backwards: where the job was. */
  if (morph__launch_hosts_relaunch(r, r->dec.ack.old_size, r->dec.hosts) != MORPH_OK ||
      morph__launch_mpirun_start(r, r->dec.ack.old_size, r->checkpoint) != MORPH_OK) {
    give_up(r, "mpirun did not start");
    return;
  }
  morph__launch_phase_set(r, MORPH__LAUNCH_PH_ROLLBACK, r->opt->start_timeout);
}

static void restart(struct morph__launch *r)
{
  morph__launch_child_kill_leftovers(r->opt->grace);
  if (morph__launch_hosts_relaunch(r, r->restart_size, r->dec.hosts) != MORPH_OK ||
      morph__launch_mpirun_start(r, r->restart_size, r->checkpoint) != MORPH_OK) {
    rollback(r, MORPH_ESPAWN, "mpirun did not start");
    return;
  }
  morph__launch_phase_set(r, MORPH__LAUNCH_PH_RESTART, r->opt->start_timeout);
}

void morph__launch_relaunch_exited(struct morph__launch *r)
{
  char why[128];
  snprintf(why, sizeof why, "mpirun ended with status %d before the job connected",
           r->mpirun_code);
  if (r->phase == MORPH__LAUNCH_PH_RELAUNCH_EXIT) {
    /* The leaving processes end with whatever the application returns for
     * them (examples/minimal.c: 1, its sum is not there), and MPICH's
     * mpiexec passes that on: routine. Only a signal or the launcher's own
     * failure (128 and above) is news. */
    if (r->mpirun_code != 0)
      morph__say(&r->log, r->mpirun_code >= 128 ? 0 : 1,
                 "mpirun ended with status %d after the checkpoint%s; relaunching", r->mpirun_code,
                 r->mpirun_code >= 128 ? " (a signal, or the launcher failed)" : "");
    restart(r);
  } else if (r->phase == MORPH__LAUNCH_PH_RESTART) {
    rollback(r, MORPH_ESPAWN, why);
  } else {
    give_up(r, why);
  }
}

void morph__launch_relaunch_hello(struct morph__launch *r)
{
  int size = r->hello.size > 0 ? r->hello.size : r->size;
  enum morph__launch_phase ph = r->phase;
  r->phase = MORPH__LAUNCH_PH_RUNNING;
  r->phase_deadline = 0;
  if (ph == MORPH__LAUNCH_PH_RESTART) {
    if (size != r->restart_size)
      morph__say(&r->log, 0, "the relaunched job has %d processes, not %d", size, r->restart_size);
    morph__launch_decision_done(r, MORPH_OK, size, NULL);
    return;
  }
  char note[384];
  snprintf(note, sizeof note, "%s; restarted at %d from the checkpoint", r->rollback_note, size);
  morph__launch_decision_done(r, r->rollback_outcome, size, note);
}

/* The current phase's time limit has passed: stop mpirun and move on as if
 * it had ended by itself. */
static void phase_expired(struct morph__launch *r)
{
  static const char *const what[] = {
    [MORPH__LAUNCH_PH_RELAUNCH_EXIT] = "mpirun did not end after the checkpoint",
    [MORPH__LAUNCH_PH_RESTART] = "the relaunched job did not connect",
    [MORPH__LAUNCH_PH_ROLLBACK] = "the job restarted at its old size did not connect",
  };
  /* After a failed spawn mpirun never ends by itself: once the job's last
   * process is gone, stopping it is routine, not news. */
  if (r->phase == MORPH__LAUNCH_PH_RELAUNCH_EXIT && r->mon.all_gone)
    morph__say(&r->log, 1, "mpirun still running after the checkpoint and the job's last process; "
                     "stopping it");
  else if (r->phase == MORPH__LAUNCH_PH_RELAUNCH_EXIT && r->spawn_failed)
    morph__say(&r->log, 1, "stopping mpirun after the checkpoint: a live grow of it failed, so "
               "it does not end by itself");
  else
    morph__say(&r->log, 0, "%s within its time limit; stopping mpirun", what[r->phase]);
  r->mpirun_code = morph__launch_mpirun_stop(r);
  if (r->phase == MORPH__LAUNCH_PH_RESTART)
    rollback(r, MORPH_ETIMEDOUT, "no HELLO in time");
  else if (r->phase == MORPH__LAUNCH_PH_ROLLBACK)
    give_up(r, "no HELLO in time");
  else
    restart(r);
}

void morph__launch_relaunch_tick(struct morph__launch *r)
{
  int relaunching = r->phase == MORPH__LAUNCH_PH_RELAUNCH_EXIT ||
                    r->phase == MORPH__LAUNCH_PH_RESTART || r->phase == MORPH__LAUNCH_PH_ROLLBACK;
  if (relaunching && r->mpirun && morph__launch_clock(r) > r->phase_deadline)
    phase_expired(r);
}

void morph__launch_checkpoints_remove(struct morph__launch *r)
{
  /* libmorph removes a checkpoint once restored; these are the leftovers of
   * failed or interrupted relaunches. */
  for (int i = 0; i < r->n_old_checkpoints; i++)
    if (unlink(r->old_checkpoints[i]) == 0)
      morph__say(&r->log, 1, "removed the leftover checkpoint %s", r->old_checkpoints[i]);
}
