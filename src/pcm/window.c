/*
 * The adaptation window of a split or merge over morph.h's split point:
 * morph_begin, morph_commit (the table travels in the callbacks
 * registration), then the route to each entry's rank and the assembly of
 * this process's part. Also the refusal of a change the program's call
 * cannot carry out, a move (PCM_Reconfigure: a grow onto the target
 * hosts, then the shrink off the source hosts), and a new process's side
 * of the same windows.
 */
#include <stdio.h>
#include <stdlib.h>

#include "pcm/internal.h"

int pcm__check_form(const pcm__state *s, pcm__form form, const char *what)
{
  int m = s->change.old_size, n = s->change.new_size;
  int split = form == PCM__SPLIT_ONE || form == PCM__SPLIT_ALL;
  if (split && n <= m)
    return pcm__fail(MORPH_ESIZE, "%s: the pending change %d -> %d would split each process "
                     "into %d (it is a merge: call PCM_Merge)", what, m, n, n / m);
  if (!split && n >= m)
    return pcm__fail(MORPH_ESIZE, "%s: the pending change %d -> %d is a split, not a merge", what,
                     m, n);
  if (form == PCM__SPLIT_ONE && n % m)
    return pcm__fail(MORPH_ESIZE, "%s: %d processes cannot each split into the same number to "
                     "make %d (%d is not a multiple of %d); use PCM_Split_Collective", what, m,
                     n, n, m);
  if (form == PCM__MERGE_ONE && m % n)
    return pcm__fail(MORPH_ESIZE, "%s: %d processes do not merge into %d in equal groups (%d is "
                     "not a multiple of %d); use PCM_Merge_Collective", what, m, n, m, n);
  return MORPH_OK;
}

/* Ends a process that the window left out (merged away, or the whole job
 * under relaunch): morph_finalize releases it. */
static _Noreturn void release(pcm__state *s)
{
  morph_ctx *ctx = s->ctx;
  s->ctx = NULL;
  pcm__store_clear(&s->store);
  exit(morph_finalize(ctx, 0));
}

/* begin + commit with `outcome`; MORPH_OK only if the change happened. */
static int window(pcm__state *s, int outcome, const char *what)
{
  morph_window_info win;
  morph_status st;
  morph_frontend_enter(s->ctx);
  int rc = morph_begin(s->ctx, &win);
  if (rc == MORPH_OK)
    rc = morph_commit(s->ctx, outcome, &st);
  morph_frontend_leave(s->ctx);
  s->announced = 0;
  if (rc == MORPH_OK && st == MORPH_LEAVING)
    release(s);
  return rc == MORPH_OK ? MORPH_OK : pcm__morph_fail(rc, what);
}

int pcm__agree_or_refuse(pcm__state *s, int rc, const char *what)
{
  int all = rc;
  if (MPI_Allreduce(&rc, &all, 1, MPI_INT, MPI_MIN, morph_comm(s->ctx)) != MPI_SUCCESS)
    return pcm__fail(MORPH_EMPI, "%s: MPI_Allreduce failed", what);
  if (all == MORPH_OK)
    return MORPH_OK;
  char msg[sizeof s->errmsg];
  snprintf(msg, sizeof msg, "%s", rc != MORPH_OK ? s->errmsg : "refused by another process");
  window(s, all, what); /* rolls back: old size, nobody leaves */
  pcm__store_drop_pieces(&s->store);
  return pcm__fail(all, "%s (the change was refused; the job keeps %d processes)", msg,
                   morph_size(s->ctx));
}

/* After the commit: every entry to its rank, then (a split or merge)
 * this process's part of the array. */
static int settle(pcm__state *s, int assemble, const char *what)
{
  int rc = pcm__store_route(&s->store, morph_comm(s->ctx));
  if (rc == MORPH_OK && assemble)
    rc = pcm__assemble(&s->store, morph_rank(s->ctx));
  return rc == MORPH_OK ? MORPH_OK
                        : pcm__fail(rc, "%s: the job changed size but this process's part could "
                                    "not be delivered: %s", what, morph_strerror(rc));
}

int pcm__carry(pcm__state *s, const char *what)
{
  int rc = window(s, MORPH_OK, what);
  if (rc != MORPH_OK) {
    pcm__store_drop_pieces(&s->store);
    return rc;
  }
  return settle(s, 1, what);
}

/* The shrink of a move, which morph_probe finds pending at once after its
 * grow: the movers end in it, the joiners take their ranks, and the
 * table goes to the ranks it is for, so a mover's entries reach the
 * process that replaced it. */
static int move_off(pcm__state *s, const char *what)
{
  morph_change ch;
  morph_frontend_enter(s->ctx);
  int rc = morph_probe(s->ctx, &ch);
  morph_frontend_leave(s->ctx);
  if (rc != MORPH_OK)
    return pcm__morph_fail(rc, what);
  if (!ch.pending || !ch.moving)
    return pcm__fail(MORPH_EPROTO, "%s: the second half of the move did not follow its first",
                     what);
  rc = window(s, MORPH_OK, what);
  return rc == MORPH_OK ? settle(s, 0, what) : rc;
}

int pcm__migrate(pcm__state *s, const char *what)
{
  int rc = window(s, MORPH_OK, what);
  if (rc == MORPH_OK)
    rc = settle(s, 0, what);
  return rc == MORPH_OK ? move_off(s, what) : rc;
}

/* A live joiner opens its window (pending since morph_open); a relaunched
 * process got its table back in its first probe, which may also have
 * found the next change. Either way that was this process's point of the
 * iteration it resumes at, where the others split or merged: its first
 * PCM_Status must not ask again, only return what that probe found. */
int pcm__arrive(pcm__state *s)
{
  morph_change ch;
  morph_frontend_enter(s->ctx);
  int rc = morph_probe(s->ctx, &ch);
  morph_frontend_leave(s->ctx);
  if (rc != MORPH_OK)
    return pcm__morph_fail(rc, "MPI_PCM_Init: morph_probe");
  if (ch.pending && ch.status == MORPH_JOINING) {
    rc = window(s, MORPH_OK, "MPI_PCM_Init");
    if (rc != MORPH_OK) /* rolled back: this joiner is not part of the job */
      release(s);
    ch.pending = 0;
  }
  s->stashed = 1, s->change = ch;
  if (!ch.moving)
    return settle(s, 1, "MPI_PCM_Init");
  /* Created by a move: its shrink follows, where this process takes a
   * mover's rank and receives what the mover stored. */
  s->started = PCM_MIGRATED;
  rc = settle(s, 0, "MPI_PCM_Init");
  return rc == MORPH_OK ? move_off(s, "MPI_PCM_Init") : rc;
}
