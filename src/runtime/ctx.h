/*
 * The morph context: one per malleable job per process; no state lives
 * outside it. Also the helpers every layer of the runtime uses (base.c,
 * registry.c). The other internal interfaces have a header beside their
 * file: client.h, window.h, move.h, checkpoint.h, wait.h.
 */
#ifndef MORPH_RUNTIME_CTX_H
#define MORPH_RUNTIME_CTX_H

#include <pthread.h>
#include <stdint.h>

#include "morph.h"
#include "proto/protocol.h"
#include "redist/part.h"
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
  morph__part *part;  /* BLOCK*: the memory files behind *ubuf (part.h), or
                         NULL when it is malloc'ed (small parts) */
  int64_t *ucount;    /* VARCOUNT: the caller's local length */
  int64_t local;      /* BLOCK*: local length under the current size */
  morph_callbacks cb; /* CALLBACKS */
  int constant;       /* BLOCK*, VARCOUNT: unchanged between
                         morph_begin_overlap() and morph_commit(), so it
                         moves in the background (morph_data_set_constant) */
} morph__data;

/* What joiners need to know about their window, sent by rank 0. */
typedef struct morph__window_wire {
  int id, seq, old_size, new_size, mechanism;
  int overlap;          /* the old processes opened it with
                           morph_begin_overlap() */
  int min, max, pref, sched_iterations;
  int64_t iteration, skip;
  double step_timeout, sched_period;
  int move;             /* processes a move moves (the joiners): the
                           window is its first half (move.c's note) */
} morph__window_wire;

/* A decision the launcher sent and the job has not carried out yet. */
typedef struct morph__decision {
  int pending;          /* rank 0: 1 if a decision waits */
  int id;
  int target;
  int64_t at_iteration; /* -1: at the next check */
  morph_mechanism mechanism;
  char hosts[512];
  char from[512];       /* a move: the hosts whose processes leave */
  int move;             /* a move of this many processes ("" from: 0) */
  int move_half;        /* a move: 0 before it, 2 once its grow is done */
  double arrived;       /* morph__now() at arrival */
} morph__decision;

/* A decision as rank 0 broadcasts it at a check (point.c); kept in the
 * context from morph_probe() to morph_begin(). */
typedef struct morph__check {
  int act;          /* 1: a window is to be opened */
  int id, target, mechanism, seq;
  int64_t skip;     /* points to skip before the next check */
  double step_timeout;
  int move;         /* a move of this many processes: this window is its
                       grow (half 1) or its shrink (half 2) */
  int half;
  int named;        /* the decision names hosts for the leavers: only then
                       does the window broadcast them */
  int mover;        /* this process (not broadcast): one of the movers */
  int background;   /* a live grow whose joiners are spawned while the
                       application computes (morph__bg) */
} morph__check;

/* A live grow whose joiners start in the background (live.c): the check
 * that found it starts a thread that spawns and merges them, the
 * application's loop goes on, and every later point agrees whether all
 * parents' threads have finished (or the time limit passed); then the
 * window opens on the spawn's result. */
typedef struct morph__bg {
  morph__check check;   /* its decision; check.act: the spawn is in flight */
  struct spawn_job *job; /* NULL: the thread could not be started */
  pthread_t thread;
  MPI_Comm spawncomm;   /* the spawn's throwaway copy of the communicator */
  double t0, deadline;  /* start, and when the spawn counts as hung */
  int ready;            /* agreed finished: the window takes the result */
  int flags[2], all[2]; /* buffers of the agreement (a timed-out reduction
                           stays active) */
} morph__bg;

struct morph_ctx {
  MPI_Comm comm;        /* the application's communicator */
  int rank, size;
  morph_status status;
  morph_options opts;
  char socket_path[512];
  char checkpoint_dir[512];
  int64_t iteration;    /* morph_point() calls of the job */
  int move_next;        /* the first half of a move is done: the next
                           check finds its second at once, uncounted */
  int move_mover;       /* this process is one of the current move's movers */
  morph_reconf_report move_grow; /* rank 0: the report of a move's grow */
  char move_onto[512];  /* rank 0: where its joiners went */
  int64_t skip;         /* checks left to skip (inhibitors) */
  double last_point;    /* morph__now() at the last point, for iteration time */
  double iter_time;     /* smoothed seconds per iteration (rank 0) */
  double last_progress; /* when rank 0 last sent PROGRESS */
  double progress_mpi;  /* MPI seconds at that report (libmorph-prof) */
  int64_t progress_iteration; /* iteration at that report */
  int reconf_seq;       /* reconfigurations attempted so far */
  int live_ok;          /* dynamic processes usable (1) or not (0) */
  int thread_multiple;  /* MPI_THREAD_MULTIPLE available */
  int spawn_background; /* MORPH_SPAWN_BACKGROUND: live grows spawn while
                           the application computes (rank 0 decides) */
  morph__bg bg;         /* such a spawn, in flight or awaiting its window */
  int warned_threads;   /* said once that spawns are not time-limited */
  int allow_early_exit; /* mpirun lets a process exit without finalize */
  struct morph__window *pending; /* joiner: the window it was created for,
                           completed at its first morph_point() */
  int relaunching;      /* the job is ending to be relaunched */
  int spawn_hung;       /* a spawn thread is stuck inside MPI for good */
  int hold;             /* a leaver that stays as a placeholder (hold.h) */
  int broken;           /* a process died inside a window: the old
                           communicator cannot be used any more */
  morph__conn conn;     /* rank 0: launcher connection (fd -1: none) */
  morph__decision decision;
  morph__data *data;
  int ndata;
  morph_reconf_report report;
  char reconf_hosts[512]; /* rank 0: where the last window's joiners went
                           or its leavers were (proto/hosts.h), for the ACK */
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
  morph__check probed;  /* the last check; act: a window is to begin */
  struct morph__window *open; /* the window between morph_begin() and
                           morph_commit() (NULL outside) */
  char frontend[64];    /* the front-end that claimed the context ("") */
  int frontend_depth;   /* > 0 while the front-end itself calls */
  char restart_path[512];
  char errmsg[512];
};

/* Records a formatted failure message in the context and returns err
 * (base.c). */
int morph__fail(morph_ctx *ctx, int err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Sets ctx->comm (taking ownership) and refreshes rank and size (base.c). */
void morph__set_comm(morph_ctx *ctx, MPI_Comm comm);

/* Ends the process at once, without MPI_Finalize and without atexit
 * handlers (which could call into MPI). Each caller says why (base.c). */
void morph__end_process(int code) __attribute__((noreturn));

/* Finds a registration by name; NULL if none (registry.c). */
morph__data *morph__data_find(const morph_ctx *ctx, const char *name);

/* A hash of every registration's name, kind, type size and global size, so
 * that processes can check that they registered the same data (registry.c). */
uint64_t morph__data_signature(const morph_ctx *ctx);

/* The distribution of a block, block-cyclic or varcount registration, for
 * the redistribution engine (registry.c). */
morph__dist morph__data_dist(const morph__data *d);

/* A local part of `count` elements of registration d, zero-filled: memory
 * files (part.h, *part set) for block and block-cyclic parts of at least
 * MORPH__PART_MIN bytes, calloc'ed memory otherwise (*part NULL) (data.c).
 * Errors: MORPH_ENOMEM; *buf and *part are NULL then. */
int morph__data_alloc(const morph__data *d, int64_t count, void **buf, morph__part **part);

/* Frees the local part of block or block-cyclic registration d (data.c). */
void morph__data_release(morph__data *d);

#endif /* MORPH_RUNTIME_CTX_H */
