/*
 * The morph context and the runtime's internal interfaces. One context per
 * malleable job per process; no state lives outside it.
 */
#ifndef MORPH_RUNTIME_CTX_H
#define MORPH_RUNTIME_CTX_H

#include <stdint.h>

#include "morph.h"
#include "proto/protocol.h"
#include "redist/plan.h"

/* Kinds of registered data (morph_data_* in morph.h). */
enum morph__data_kind {
  MORPH__DATA_REPLICATED,
  MORPH__DATA_BLOCK,
  MORPH__DATA_BLOCK_CYCLIC,
  MORPH__DATA_VARCOUNT,
  MORPH__DATA_CALLBACKS
};

typedef struct morph__data {
  char name[64];
  enum morph__data_kind kind;
  MPI_Datatype type;
  size_t elem_size;   /* extent of type */
  int64_t global;     /* BLOCK, BLOCK_CYCLIC: global element count */
  int64_t block;      /* BLOCK_CYCLIC: block length */
  int count;          /* REPLICATED: element count */
  void *rbuf;         /* REPLICATED: the caller's buffer */
  void **ubuf;        /* BLOCK*, VARCOUNT: where the caller keeps the pointer */
  int64_t *ucount;    /* VARCOUNT: the caller's local length */
  int64_t local;      /* BLOCK*: local length under the current size */
  morph_callbacks cb; /* CALLBACKS */
} morph__data;

/* What joiners need to know about their window, sent by rank 0. */
typedef struct morph__window_wire {
  int id, seq, old_size, new_size, mechanism;
  int min, max, pref, sched_iterations;
  int64_t iteration, skip;
  double step_timeout, sched_period;
} morph__window_wire;

/* A decision the launcher sent and the job has not carried out yet. */
typedef struct morph__decision {
  int pending;          /* rank 0: 1 if a decision waits */
  int id;
  int target;
  int64_t at_iteration; /* -1: at the next check */
  morph_mechanism mechanism;
  char hosts[512];
  double arrived;       /* morph__now() at arrival */
} morph__decision;

struct morph_ctx {
  MPI_Comm comm;        /* the application's communicator */
  int rank, size;
  morph_status status;
  morph_options opts;
  char socket_path[512];
  char checkpoint_dir[512];
  int64_t iteration;    /* morph_point() calls of the job */
  int64_t skip;         /* checks left to skip (inhibitors) */
  double last_point;    /* morph__now() at the last point, for iteration time */
  double iter_time;     /* smoothed seconds per iteration (rank 0) */
  double last_progress; /* when rank 0 last sent PROGRESS */
  double progress_mpi;  /* MPI seconds at that report (libmorph-prof) */
  int64_t progress_iteration; /* iteration at that report */
  int reconf_seq;       /* reconfigurations attempted so far */
  int live_ok;          /* dynamic processes usable (1) or not (0) */
  int thread_multiple;  /* MPI_THREAD_MULTIPLE available */
  int warned_threads;   /* said once that spawns are not time-limited */
  int allow_early_exit; /* mpirun lets a process exit without finalize */
  struct morph__window *pending; /* joiner: the window it was created for,
                           completed at its first morph_point() */
  int relaunching;      /* the job is ending to be relaunched */
  int spawn_hung;       /* a spawn thread is stuck inside MPI for good */
  int broken;           /* a process died inside a window: the old
                           communicator cannot be used any more */
  morph__conn conn;     /* rank 0: launcher connection (fd -1: none) */
  morph__decision decision;
  morph__data *data;
  int ndata;
  morph_reconf_report report;
  int verdict;          /* last window's verdict (rank 0: read by unwaited
                           sends; others: written by a receive) */
  int64_t vote[2];      /* a joiner's vote {outcome, bytes received} */
  int agree_in, agree_out; /* buffers of morph__agree */
  uint64_t signature[3];  /* buffers of the registration check */
  morph__window_wire wire; /* buffer of the joiners' window header */
  int64_t bytes_mine, bytes_all; /* and of its byte count */
  double last_window_end; /* morph__now() when the last window (or the
                           context) ended: the spawn pause counts from it */
  int restore_pending;  /* relaunched: data comes from the checkpoint at the
                           first morph_point() */
  char restart_path[512];
  char errmsg[512];
};

/* Records a formatted failure message in the context and returns err
 * (base.c). */
int morph__fail(morph_ctx *ctx, int err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Sets ctx->comm (taking ownership) and refreshes rank and size (base.c). */
void morph__set_comm(morph_ctx *ctx, MPI_Comm comm);

/* Finds a registration by name; NULL if none (registry.c). */
morph__data *morph__data_find(const morph_ctx *ctx, const char *name);

/* A hash of every registration's name, kind, type size and global size, so
 * that processes can check that they registered the same data (registry.c). */
uint64_t morph__data_signature(const morph_ctx *ctx);

/* The distribution of a block, block-cyclic or varcount registration, for
 * the redistribution engine (registry.c). */
morph__dist morph__data_dist(const morph__data *d);

/* Launcher connection of rank 0 (client.c). All return MORPH_OK when there
 * is no launcher: a standalone job simply never gets decisions. */
int morph__client_open(morph_ctx *ctx);
int morph__client_poll(morph_ctx *ctx);           /* takes a RESIZE if any */
int morph__client_progress(morph_ctx *ctx);       /* rate-limited PROGRESS */
int morph__client_ack(morph_ctx *ctx, const char *checkpoint);
int morph__client_limits(morph_ctx *ctx);
void morph__client_bye(morph_ctx *ctx, int exit_status, const char *text);

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
                           leavers: [lo, hi) */
  int abandoned;        /* a transfer timed out: its buffers belong to MPI
                           now and must not be freed */
  int spawn_hung;       /* the spawn thread never returned */
  int joiner;           /* this process was created for this window */
  void **newbufs;       /* per registration: the new local part */
  int64_t *newcounts;   /* per registration: its length */
  int64_t bytes;        /* bytes this process received from others (the
                           relaunch: wrote); after the vote, on the
                           stayers: the window's total */
  char checkpoint[512]; /* relaunch */
  char why[256];        /* reason of a failure */
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

/* Runs the adaptation window of a decision (window.c). Collective. */
int morph__window_run(morph_ctx *ctx, morph__window *w);

/* Joiner side of a live expansion, from morph_open (live.c). */
int morph__live_join(morph_ctx *ctx, MPI_Comm parent);

/* Relaunched side, from morph_open and the first morph_point (relaunch.c). */
int morph__relaunch_open(morph_ctx *ctx, const char *checkpoint);
int morph__relaunch_restore(morph_ctx *ctx);

/* The relaunch mechanism's checkpoint file (checkpoint.c). Collective over
 * ctx->comm. morph__ckpt_write writes every registration to w->checkpoint
 * and sets w->bytes (rank 0: the file's size); MORPH_EIO, MORPH_ENOMEM,
 * MORPH_EMPI, or a pack callback's error; the file may be left partly
 * written. morph__ckpt_peek reads a checkpoint's head; morph__ckpt_restore
 * also each registration's part for the current size (EIO, EMISMATCH,
 * ENOMEM, an unpack callback's error; with the reason in ctx->errmsg;
 * registrations read so far keep their new contents). */
typedef struct morph__ckpt_info {
  int64_t iteration, seq, old_size;
} morph__ckpt_info;

int morph__ckpt_write(morph_ctx *ctx, morph__window *w);
int morph__ckpt_peek(morph_ctx *ctx, const char *path, morph__ckpt_info *info);
int morph__ckpt_restore(morph_ctx *ctx, const char *path, morph__ckpt_info *info);

/* Moves every registration in memory from old_size to new_size processes
 * over w->newcomm, into w->newbufs (move.c). Old buffers are not touched. */
int morph__data_move(morph_ctx *ctx, morph__window *w);

/* Installs w->newbufs as the registrations' buffers (commit) or frees them
 * (rollback) (move.c). */
void morph__data_install(morph_ctx *ctx, morph__window *w);
void morph__data_discard(morph_ctx *ctx, morph__window *w);

/* Agreement over comm: returns MORPH_OK on every process if every process
 * passed MORPH_OK, otherwise the smallest (most negative) code. Time-limited
 * by deadline: MORPH_ETIMEDOUT if the others do not answer. Its buffers are
 * in ctx, because a timed-out reduction stays active (wait.c). */
int morph__agree(morph_ctx *ctx, MPI_Comm comm, int rc, double deadline);

#endif /* MORPH_RUNTIME_CTX_H */
