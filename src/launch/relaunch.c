#include "relaunch.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "child.h"
#include "decision.h"
#include "leave.h"
#include "morph/error.h"
#include "mpirun.h"
#include "state.h"

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
  morph__launch_phase_set(r, MORPH__LAUNCH_PH_RELAUNCH_EXIT, r->opt->exit_timeout);
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

/* The private folder of the relaunch hostfiles (mode 0700, like the
 * job's socket folder; morph run may listen on TCP and have none). */
static int host_dir(struct morph__launch *r)
{
  const char *tmp = getenv("TMPDIR");
  snprintf(r->hostdir, sizeof r->hostdir, "%.*s/morph-run-hosts-XXXXXX", PATH_MAX - 32,
           tmp && *tmp ? tmp : "/tmp");
  if (mkdtemp(r->hostdir))
    return MORPH_OK;
  morph__say(&r->log, 0, "cannot create a folder %s: %s; relaunching on the hostfile as it is",
             r->hostdir, strerror(errno));
  r->hostdir[0] = '\0';
  return MORPH_EIO;
}

/* A shrink whose RESIZE names the hosts its processes leave restarts on
 * a hostfile without their slots (leave.h): a host the job leaves whole
 * gets no Open MPI daemon, so its death later cannot end the job. A grow
 * onto hosts left before gets them back. On an error the hostfile stays
 * as it was, with a word in the log. */
static void change_hosts(struct morph__launch *r)
{
  const char *hf = r->opt->cmd.hostfile;
  const struct morph__launch_decision *d = &r->dec;
  r->hostfile_before = hf;
  r->gone[0] = r->added[0] = '\0';
  if (!hf || (!d->leave[0] && !d->join[0]))
    return;
  char path[PATH_MAX], err[512];
  int idx = hf == r->hostfile[0];
  if (!r->hostdir[0] && host_dir(r) != MORPH_OK)
    return;
  snprintf(path, sizeof path, "%.*s/hosts.%d", (int)sizeof path - 16, r->hostdir, idx);
  int rc = d->leave[0] ? morph__launch_hostfile_leave(hf, d->leave, path, r->gone,
                                                     sizeof r->gone, err, sizeof err)
                       : morph__launch_hostfile_join(hf, d->join, path, r->added,
                                                     sizeof r->added, err, sizeof err);
  if (rc != MORPH_OK) {
    morph__say(&r->log, 0, "relaunching on %s as it is: %s", hf, err);
    return;
  }
  if (!r->gone[0] && !r->added[0])
    return;
  char *mine = r->hostfile[idx];
  snprintf(mine, sizeof r->hostfile[0], "%s", path);
  r->opt->cmd.hostfile = mine;
  if (r->gone[0])
    morph__say(&r->log, 0, "relaunching without %s (%s left it): %s", r->gone, d->leave, path);
  else
    morph__say(&r->log, 0, "relaunching with %s again (%s joins): %s", r->added, d->join, path);
}

static void rollback(struct morph__launch *r, int outcome, const char *why)
{
  morph__launch_child_kill_leftovers(r->opt->grace);
  r->opt->cmd.hostfile = r->hostfile_before;
  r->rollback_outcome = outcome;
  snprintf(r->rollback_note, sizeof r->rollback_note, "relaunch at %d failed (%s)",
           r->restart_size, why);
  morph__say(&r->log, 0, "%s; restarting at %d from %s", r->rollback_note, r->dec.ack.old_size,
             r->checkpoint);
  if (morph__launch_mpirun_start(r, r->dec.ack.old_size, r->checkpoint) != MORPH_OK) {
    give_up(r, "mpirun did not start");
    return;
  }
  morph__launch_phase_set(r, MORPH__LAUNCH_PH_ROLLBACK, r->opt->start_timeout);
}

static void restart(struct morph__launch *r)
{
  morph__launch_child_kill_leftovers(r->opt->grace);
  change_hosts(r);
  if (morph__launch_mpirun_start(r, r->restart_size, r->checkpoint) != MORPH_OK) {
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
    if (r->mpirun_code != 0)
      morph__say(&r->log, 0, "mpirun ended with status %d after the checkpoint; relaunching anyway",
                 r->mpirun_code);
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
    /* The restarted job does not run on the hosts it left: their loss
     * is no loss of the job's any more; hosts it came back to are. */
    if (r->gone[0] && morph__launch_watch_drop(&r->mon.watch, r->gone) > 0)
      morph__say(&r->log, 1, "no longer watching %s", r->gone);
    if (r->added[0] && morph__launch_watch_add(&r->mon.watch, r->added) != MORPH_OK)
      morph__say(&r->log, 0, "cannot watch %s: out of memory", r->added);
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
  for (int i = 0; r->hostdir[0] && i < 2; i++)
    if (r->hostfile[i][0])
      unlink(r->hostfile[i]);
  if (r->hostdir[0])
    rmdir(r->hostdir);
}
