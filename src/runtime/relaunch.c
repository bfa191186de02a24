/*
 * The relaunch mechanism: every process writes its registered data to one
 * checkpoint in global order (checkpoint.c), the job ends, the launcher
 * starts it again at the new size (MORPH_RESTART=<checkpoint>), and each
 * new process reads its part. Works with any MPI.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"
#include "runtime/checkpoint.h"
#include "runtime/wait.h"
#include "runtime/window.h"

static int relaunch_prepare(morph_ctx *ctx, morph__window *w)
{
  const char *job = getenv("MORPH_JOB_ID");
  char name[64];
  snprintf(name, sizeof name, "%s", job && *job ? job : "job");
  /* Rank 0's pid makes the name unique among jobs sharing the folder.
   * Polled, not a blocking broadcast: an abandoned spawn may own Open
   * MPI's progress engine (checkpoint.c, gather_sizes); after a timeout
   * the buffer belongs to MPI and is leaked. */
  long *pid = malloc(sizeof *pid);
  if (!pid)
    return MORPH_ENOMEM;
  *pid = (long)getpid();
  MPI_Request req;
  int rc = MPI_Ibcast(pid, 1, MPI_LONG, 0, ctx->comm, &req) == MPI_SUCCESS
             ? morph__wait_all(1, &req, morph__now() + w->step_timeout)
             : MORPH_EMPI;
  if (rc == MORPH_OK)
    snprintf(w->checkpoint, sizeof w->checkpoint, "%.400s/morph-%.40s-%ld-%d.ckpt",
             ctx->checkpoint_dir, name, *pid, w->seq);
  else
    snprintf(w->why, sizeof w->why, "a process did not take part in the relaunch");
  if (rc != MORPH_ETIMEDOUT)
    free(pid);
  w->newcomm = w->staycomm = ctx->comm;
  w->nonstay_lo = w->nonstay_hi = 0;
  /* The folder and its space, while nothing is given up yet. */
  return rc == MORPH_OK ? morph__ckpt_reserve(ctx, w) : rc;
}

static int relaunch_move(morph_ctx *ctx, morph__window *w)
{
  int rc = morph__ckpt_write(ctx, w);
  if (rc != MORPH_OK && !w->why[0])
    snprintf(w->why, sizeof w->why, "writing the checkpoint %.200s failed", w->checkpoint);
  return rc;
}

static int relaunch_commit(morph_ctx *ctx, morph__window *w)
{
  (void)w;
  ctx->status = MORPH_LEAVING;
  ctx->relaunching = 1;
  return MORPH_OK;
}

static void relaunch_rollback(morph_ctx *ctx, morph__window *w)
{
  if (ctx->rank == 0 && w->checkpoint[0])
    unlink(w->checkpoint);
}

const morph__mech_ops morph__mech_relaunch = {
  "relaunch", relaunch_prepare, relaunch_move, relaunch_commit, relaunch_rollback,
};

int morph__relaunch_open(morph_ctx *ctx, const char *checkpoint)
{
  snprintf(ctx->restart_path, sizeof ctx->restart_path, "%s", checkpoint);
  morph__ckpt_info info;
  int rc = morph__ckpt_peek(ctx, checkpoint, &info);
  if (rc != MORPH_OK)
    return rc;
  ctx->iteration = info.iteration;
  ctx->reconf_seq = (int)info.seq;
  ctx->status = MORPH_JOINING;
  ctx->restore_pending = 1;
  return MORPH_OK;
}

/* The relaunched job's view of the reconfiguration that restarted it; the
 * phases before the restart were reported by the job that ended. */
static void report_restart(morph_ctx *ctx, const morph__ckpt_info *h, double t_restore)
{
  morph_reconf_report *r = &ctx->report;
  memset(r, 0, sizeof *r);
  r->seq = (int)h->seq;
  r->old_size = (int)h->old_size;
  r->new_size = r->requested_size = ctx->size;
  r->mechanism = MORPH_MECH_RELAUNCH;
  r->iteration = h->iteration;
  r->t_redist = t_restore;
  snprintf(r->message, sizeof r->message, "%d -> %d relaunch, restored in %.3f s", r->old_size,
           r->new_size, t_restore);
}

int morph__relaunch_restore(morph_ctx *ctx)
{
  double t0 = morph__now();
  ctx->restore_pending = 0;
  morph__ckpt_info h;
  int rc = morph__ckpt_restore(ctx, ctx->restart_path, &h);
  MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MIN, ctx->comm);
  /* The checkpoint is gone only once everyone has read it. */
  if (rc == MORPH_OK && ctx->rank == 0)
    unlink(ctx->restart_path);
  if (rc == MORPH_OK)
    report_restart(ctx, &h, morph__now() - t0);
  return rc;
}
