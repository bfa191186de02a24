#include "mpirun.h"

#include <stdio.h>
#include <stdlib.h>

#include "child.h"
#include "monitor.h"
#include "session.h"
#include "morph/error.h"

static void say_command(struct morph__launch *r, const struct morph__launch_argv *a)
{
  char line[2048];
  size_t n = 0;
  for (int i = 0; i < a->n && n < sizeof line; i++)
    n += (size_t)snprintf(line + n, sizeof line - n, "%s%s", i ? " " : "", a->v[i]);
  morph__say(&r->log, 1, "starting: %s", line);
}

int morph__launch_mpirun_start(struct morph__launch *r, int np, const char *checkpoint)
{
  if (checkpoint)
    setenv("MORPH_RESTART", checkpoint, 1);
  else
    unsetenv("MORPH_RESTART");
  struct morph__launch_argv a;
  int rc = morph__launch_mpi_command(&r->opt->cmd, np, &a);
  if (rc == MORPH_EINVAL && r->opt->cmd.rankfile)
    morph__say(&r->log, 0, "--rankfile needs Open MPI: MPICH's hydra has no rankfile (give it "
                           "an ordered --hostfile)");
  else if (rc == MORPH_EINVAL || rc == MORPH_EIO)
    morph__say(&r->log, 0, "--hostfile %s: %s", r->opt->cmd.hostfile,
               rc == MORPH_EIO ? "cannot be read" : "names no host");
  if (rc != MORPH_OK)
    return rc;
  say_command(r, &a);
  char err[512];
  morph__launch_errscan_reset(&r->err);
  rc = morph__launch_child_start(a.v, morph__launch_errscan_fd(&r->err), &r->mpirun, err,
                                 sizeof err);
  morph__launch_argv_free(&a);
  if (rc != MORPH_OK) {
    morph__say(&r->log, 0, "%s", err);
    r->mpirun = 0;
    return rc;
  }
  r->size = np;
  r->job_bye = 0;
  r->connected = 0;
  morph__launch_monitor_reset(r);
  return MORPH_OK;
}

int morph__launch_mpirun_stop(struct morph__launch *r)
{
  pid_t pid = r->mpirun;
  int code = morph__launch_child_terminate(pid, r->opt->grace);
  r->mpirun = 0;
  /* What a launcher killed with SIGKILL leaves here; the next mpirun of a
   * relaunch makes its folders anew. */
  morph__launch_session_remove_here(morph__launch_mpi_session_base(&r->opt->cmd));
  morph__launch_session_remove_segments(&r->shm);
  return code;
}
