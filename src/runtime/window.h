/*
 * The adaptation window (window.c) and the two mechanisms behind it
 * (live.c, relaunch.c): what they share about one reconfiguration, the
 * interface the window drives them through, and their entry points for
 * processes that arrive by a reconfiguration.
 */
#ifndef MORPH_RUNTIME_WINDOW_H
#define MORPH_RUNTIME_WINDOW_H

#include "runtime/ctx.h"

/* What every process knows about one reconfiguration once it has begun.
 * Broadcast by rank 0 and, for a live expansion, sent to the joiners. */
typedef struct morph__window {
  int id;               /* decision id */
  int seq;              /* ctx->reconf_seq of this attempt */
  int old_size, new_size;
  morph_mechanism mechanism;
  int64_t iteration;
  double step_timeout;
  double t0;            /* morph__now() when the window opened (rank 0) */
  /* filled while it runs */
  MPI_Comm newcomm;     /* live: the merged (grow) or current (shrink)
                           communicator spanning old and new processes */
  MPI_Comm intercomm;   /* live grow: the spawn intercommunicator */
  MPI_Comm spawncomm;   /* live grow: throwaway copy of the old
                           communicator the spawn runs on, so that a hung
                           spawn cannot poison the application's */
  MPI_Comm staycomm;    /* the processes present before and after; they
                           decide commit or rollback (NULL on the others) */
  int nonstay_lo, nonstay_hi; /* ranks of newcomm that are joiners or
                           leavers: [lo, hi), less those in `stay` */
  int *stay;            /* live shrink that keeps other ranks than the
                           lowest: the ranks of newcomm that stay, in their
                           new order (new_size of them); NULL: ranks
                           0..new_size-1 stay */
  int abandoned;        /* a transfer timed out: its buffers belong to MPI
                           now and must not be freed */
  int spawn_hung;       /* the spawn thread never returned */
  int joiner;           /* this process was created for this window */
  int named;            /* the decision names the leavers' hosts */
  int move, half;       /* a move of `move` processes: its grow (half 1)
                           or its shrink (half 2, the joiners take the
                           movers' ranks); 0, 0: a resize */
  double t_background;  /* seconds its spawn ran in the background before
                           the window opened (0: spawned in the window) */
  int overlap;          /* opened by morph_begin_overlap(): constant
                           registrations move in the background (overlap.c) */
  struct morph__overlap *bg; /* their transfers in flight (NULL: none) */
  void **newbufs;       /* per registration: the new local part */
  struct morph__part **newparts; /* per registration: the memory files
                           behind it (part.h), NULL if malloc'ed */
  int64_t *newcounts;   /* per registration: its length */
  int64_t bytes;        /* bytes this process received from others (the
                           relaunch: wrote); after the vote, on the
                           stayers: the window's total */
  char checkpoint[512]; /* relaunch */
  char why[256];        /* reason of a failure */
  struct morph__window_run {
    int rc;             /* the first failure, or MORPH_OK */
    double mark;        /* start of the current phase */
    int next;           /* the state the window resumes at (window.c) */
  } run;                /* where the state machine stands */
} morph__window;

/* The two mechanisms behind one interface (live.c, relaunch.c). Every
 * function is collective over the processes of the window and returns
 * MORPH_OK or an error after which the window rolls back. */
typedef struct morph__mech_ops {
  const char *name;
  int (*prepare)(morph_ctx *ctx, morph__window *w);  /* joiners / nothing */
  int (*move)(morph_ctx *ctx, morph__window *w);     /* data to its owners */
  int (*commit)(morph_ctx *ctx, morph__window *w);   /* switch to new size */
  void (*rollback)(morph_ctx *ctx, morph__window *w);/* back to old size */
} morph__mech_ops;

extern const morph__mech_ops morph__mech_live;
extern const morph__mech_ops morph__mech_relaunch;

/* The movers of a move of `move` processes off the hosts of rank 0's
 * ctx->decision.from: the highest ranks on each (live.c, as a shrink
 * chooses its leavers). Collective over ctx->comm; *mover set on every
 * process. Returns how many movers the hosts could not give (0: all), or
 * a negative error (MORPH_ENOMEM, MORPH_ETIMEDOUT, MORPH_EMPI). */
int morph__live_movers(morph_ctx *ctx, int move, int *mover);

/* Background spawn of a live grow of n processes (live.c, state in
 * ctx->bg). Start: collective over ctx->comm at the check that found the
 * decision; starts the spawn thread and returns (a failure to start is
 * reported by the window, which then rolls back). Poll: collective over
 * ctx->comm at every later point; *ready is 1 on all processes once every
 * parent's thread has finished, or one failed, or the step time limit
 * passed: the window then opens on the result (grow takes it). Errors:
 * MORPH_ETIMEDOUT, MORPH_EMPI (the agreement; *ready is 1 then). Requires
 * MPI_THREAD_MULTIPLE. */
int morph__live_spawn_start(morph_ctx *ctx, int n);
int morph__live_spawn_poll(morph_ctx *ctx, int *ready);

/* morph_finalize with a background spawn in flight or awaiting its window
 * (point.c): waits for it, then rolls its window back, so that joiners
 * are told and leave. Collective over ctx->comm. */
void morph__background_settle(morph_ctx *ctx);

/* Runs the adaptation window of a decision (window.c). Collective. */
int morph__window_run(morph_ctx *ctx, morph__window *w);

/* The same in two halves, with the application's own work between
 * (morph_begin / morph_commit): open runs PREPARE and MOVE (joiners: MOVE)
 * and stops before the vote; close votes with `outcome` as well, then
 * commits or rolls back. Open returns the window's first failure, which
 * close then rolls back; close returns the window's outcome. */
int morph__window_open(morph_ctx *ctx, morph__window *w);
int morph__window_close(morph_ctx *ctx, morph__window *w, int outcome);

/* Overlapped windows: drives this process's background transfers once;
 * *done is 1 when they are complete or there are none (window.c). Local.
 * Errors: MORPH_EMPI. */
int morph__window_test(morph__window *w, int *done);

/* 1 if an open window already failed before the application's part (its
 * PREPARE: no joiners, nothing split off): close will roll it back. */
int morph__window_failed(const morph__window *w);

/* Joiner side of a live expansion, from morph_open (live.c). */
int morph__live_join(morph_ctx *ctx, MPI_Comm parent);

/* Relaunched side, from morph_open and the first morph_point (relaunch.c). */
int morph__relaunch_open(morph_ctx *ctx, const char *checkpoint);
int morph__relaunch_restore(morph_ctx *ctx);

#endif /* MORPH_RUNTIME_WINDOW_H */
