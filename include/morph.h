/*
 * morph.h - malleable MPI applications.
 *
 * A morph context sits on top of MPI. The application keeps using plain MPI
 * on the communicator that morph_comm() returns, registers the data that
 * must follow the processes, and calls morph_point() once per iteration.
 * When the launcher (`morph run`) or the resource manager (morphd) decides a
 * new size, every process enters the adaptation window inside
 * morph_point(): joiners are created, registered data is redistributed,
 * leavers hand their data over and stop, and the job continues on a new
 * communicator.
 *
 *     MPI_Init(&argc, &argv);
 *     morph_ctx *m;
 *     morph_open(MPI_COMM_WORLD, NULL, &m);
 *     morph_data_replicated(m, "iter", &iter, 1, MPI_INT);
 *     morph_data_block(m, "x", (void **)&x, n, MPI_DOUBLE);
 *     if (morph_get_status(m) == MORPH_NEW)
 *       init(x, ...);
 *     for (; iter < steps; iter++) {
 *       morph_point(m, &st);
 *       if (st == MORPH_LEAVING)
 *         break;
 *       compute(morph_comm(m), x, morph_local_count(m, "x"));
 *     }
 *     return morph_finalize(m, check(x) ? 0 : 1);
 *
 * Error contract. Every function returning int returns MORPH_OK (0) or a
 * negative code of morph/error.h. On error the context keeps a message
 * (morph_errmsg) saying what failed and why, and the function's entry below
 * states what it left behind. morph never calls MPI_Abort or exit() on its
 * own account; the single place where a process ends inside morph is
 * morph_finalize() of a leaving process, documented there.
 *
 * Collective calls. "All processes" means every process of the context's
 * current communicator, in the same order, with the same arguments unless
 * stated otherwise. A joiner counts as a member from morph_open() on.
 *
 * Threads. A context is used by one thread at a time. A live spawn is
 * limited by step_timeout (morph_options) at every thread level. With
 * MPI_THREAD_MULTIPLE a spawn that hangs is abandoned and the window rolls
 * back; below it no other thread may call MPI, so a watchdog thread (which
 * calls no MPI) ends the job with status 1 and a message naming the cause
 * instead of letting it hang for good. Prefer MPI_Init_thread with
 * MPI_THREAD_MULTIPLE.
 *
 * Background spawn. With MPI_THREAD_MULTIPLE and MORPH_SPAWN_BACKGROUND=1
 * in the job's environment (default 0), a live grow does not stop the
 * application while its joiners start: the point that sees the decision
 * starts a thread that spawns and merges them and returns with nothing
 * pending; every later point agrees (one small non-blocking reduction)
 * whether all parents' threads have finished, and the first point that
 * finds them up opens the window, where the data moves. The grow thus
 * happens some iterations after the decision (docs/runtime.md), and a job
 * that reaches morph_finalize() first does not grow (the window rolls
 * back there and the joiners leave). Under it the application may call MPI
 * while morph's thread spawns; a spawn that hangs slows the application's
 * own blocking MPI calls (Open MPI 4.1 lets one waiting thread drive
 * progress) until the step time limit rolls it back. Below
 * MPI_THREAD_MULTIPLE the variable is ignored.
 */
#ifndef MORPH_H
#define MORPH_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "morph/error.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MORPH_VERSION_MAJOR 0
#define MORPH_VERSION_MINOR 1

typedef struct morph_ctx morph_ctx;

/* Where a process stands, after the papers (Elastic MPI thesis, ch. 3).
 * NEW: started with the job; initialise your data.
 * JOINING: created by a reconfiguration (or restarted by a relaunch); do not
 *   initialise: registered data arrives at the first morph_point().
 * STAYING: was here before the last morph_point() and still is.
 * LEAVING: the last morph_point() handed this process's data over; stop
 *   computing and call morph_finalize(). */
typedef enum morph_status {
  MORPH_NEW,
  MORPH_JOINING,
  MORPH_STAYING,
  MORPH_LEAVING
} morph_status;

/* How a reconfiguration is carried out.
 * LIVE: MPI_Comm_spawn only the joiners, merge, redistribute in memory;
 *   leavers hand over their data and end. Needs dynamic processes.
 * RELAUNCH: checkpoint registered data with MPI-IO in global order, end the
 *   job, let the launcher start it again at the new size, restore.
 *   Works with any MPI.
 * AUTO: LIVE where dynamic processes work, RELAUNCH otherwise. */
typedef enum morph_mechanism {
  MORPH_MECH_AUTO,
  MORPH_MECH_LIVE,
  MORPH_MECH_RELAUNCH
} morph_mechanism;

/* Options of morph_open(). Initialise with morph_options_init(), then set
 * what you need. Every field has a documented variable that overrides the
 * default (not an explicit setting) so a launcher can tune a job without
 * recompiling; the variable is named after the field (MORPH_MIN, ...). */
typedef struct morph_options {
  int min_procs;           /* MORPH_MIN: at least this many (default 1) */
  int max_procs;           /* MORPH_MAX: at most this many (default: no limit,
                              0) */
  int pref_procs;          /* MORPH_PREF: preferred size (0: none) */
  double sched_period;     /* MORPH_PERIOD: seconds between two checks for a
                              decision (0: no time inhibitor) */
  int sched_iterations;    /* MORPH_ITERATIONS: iterations between two checks
                              (0 or 1: every iteration) */
  morph_mechanism mechanism; /* MORPH_MECHANISM: auto | live | relaunch */
  double step_timeout;     /* MORPH_STEP_TIMEOUT: time limit in seconds of
                              each step of a reconfiguration (default 30) */
  double spawn_pause;      /* MORPH_SPAWN_PAUSE: seconds to wait before each
                              spawn (default 0.5 under Open MPI, see
                              docs/runtime.md) */
  const char *socket_path; /* MORPH_SOCKET: launcher or daemon socket (NULL:
                              standalone, no decisions arrive) */
  const char *checkpoint_dir; /* MORPH_CHECKPOINT_DIR: relaunch checkpoints
                              (default /dev/shm, else /tmp) */
} morph_options;

/* Fills *opts with the defaults. Never fails. */
void morph_options_init(morph_options *opts);

/*
 * Opens a malleable context on top of `comm` (normally MPI_COMM_WORLD).
 * All processes, collective. MPI must be initialised. The context duplicates
 * `comm`; the application then uses morph_comm().
 *
 * A process started by a live expansion, or by the relaunch of a job, finds
 * out here that it is joining: morph_get_status() returns MORPH_JOINING, and its
 * registered data is filled in at its first morph_point().
 *
 * opts: NULL for the defaults. The strings it points to are copied.
 * Errors: MORPH_EINVAL (ctx NULL, min > max, pref outside [min, max], size
 *   of comm outside [min, max]); MORPH_ECONN (socket_path given but the
 *   launcher does not answer); MORPH_EMPI; MORPH_ENOMEM; MORPH_EIO (a
 *   relaunch checkpoint cannot be read). On error *ctx is NULL, nothing is
 *   left allocated, and the message is printed to stderr by rank 0 because
 *   there is no context to hold it.
 */
int morph_open(MPI_Comm comm, const morph_options *opts, morph_ctx **ctx);

/*
 * Closes the context, tells the launcher how the job ended and finalizes
 * MPI. All processes, collective among those not leaving; replaces the
 * application's MPI_Finalize(). `status` is this process's outcome (0: all
 * went well, e.g. the result checked out). Returns the job's outcome, the
 * largest status of all processes (1 if morph itself failed), which is the
 * value `main` should return; the launcher gets it too, because mpirun's
 * own exit status cannot be trusted once it runs with recovery enabled.
 *
 * A LEAVING process of a live shrink does not return: under Open MPI a
 * process of a running job cannot finalize alone (MPI_Finalize is a
 * job-wide fence), so morph disconnects it from the job and ends it with
 * exit status 0, which frees its slot at once. Every other process returns,
 * except after a spawn that hung inside Open MPI (reported when it
 * happened): a thread is then stuck in MPI for good, MPI_Finalize would
 * never return, and morph ends the process with the job's outcome. For the
 * same reason, an MPI_Finalize that has not returned after 5 s (Open MPI
 * 4.1 after a live shrink, intermittently) ends the process with the job's
 * outcome; the outcome has been agreed and sent to the launcher before.
 * Errors: none of its own; a failure of morph's last steps makes the
 * outcome 1.
 */
int morph_finalize(morph_ctx *ctx, int status);

/* The communicator of the current processes. It changes at a
 * reconfiguration: fetch it again after each morph_point(). Never fails
 * (ctx open), as the accessors below. */
MPI_Comm morph_comm(const morph_ctx *ctx);

/* This process's rank and the number of processes in morph_comm(). Staying
 * processes keep their rank across a reconfiguration; joiners get the
 * highest ranks. Never fails (ctx open). */
int morph_rank(const morph_ctx *ctx);
int morph_size(const morph_ctx *ctx);

/* This process's status (see morph_status). Never fails (ctx open). */
morph_status morph_get_status(const morph_ctx *ctx);

/* Number of morph_point() calls of the job so far, carried across
 * reconfigurations and relaunches (joiners get the job's count). Never
 * fails (ctx open). */
int64_t morph_iteration(const morph_ctx *ctx);

/* The message of the last failure on this context ("" if none). */
const char *morph_errmsg(const morph_ctx *ctx);

/*
 * Changes the malleability limits at run time (e.g. per program phase) and
 * tells the launcher. All processes, same values. pref 0 means none.
 * Errors: MORPH_EINVAL (min < 1, max < min with max != 0, pref outside
 *   [min, max]): limits unchanged. MORPH_ECONN: limits changed locally, the
 *   launcher could not be told.
 */
int morph_set_limits(morph_ctx *ctx, int min_procs, int max_procs, int pref_procs);

/*
 * Sets DMRlib's two inhibitors: at least `period` seconds and at least
 * `iterations` iterations between two checks for a decision. All processes,
 * same values. Errors: MORPH_EINVAL (negative values): unchanged.
 */
int morph_set_inhibitors(morph_ctx *ctx, double period, int iterations);

/*
 * Registered data. All processes register the same names, kinds, types and
 * global sizes in the same order, before their first morph_point() (or
 * morph_probe()); the first reconfiguration checks this and fails with
 * MORPH_EMISMATCH (rolled back, old size kept) if they differ. Names are
 * unique per context. `type` must be a committed datatype; morph keeps its
 * own copy, so the caller may free its handle after registering. Element
 * sizes are taken from its extent.
 *
 * Errors, common to every morph_data_* call (each states its own below):
 *   MORPH_EINVAL   ctx NULL; name NULL, empty or 64 characters or longer;
 *                  type MPI_DATATYPE_NULL or of extent <= 0;
 *   MORPH_EEXIST   a registration of that name exists;
 *   MORPH_ESTATE   called inside an adaptation window (between
 *                  morph_begin() and morph_commit());
 *   MORPH_ENOMEM, MORPH_EMPI (the datatype could not be copied).
 * State after an error: nothing is registered, earlier registrations and
 * the caller's buffers are unchanged, morph_errmsg() says why.
 */

/* Data every process holds a full copy of (the step counter, parameters,
 * small user state). At a reconfiguration rank 0's copy is sent to the
 * joiners. `buf` stays owned by the caller and must stay valid while the
 * context is open. Errors: the common ones; MORPH_EINVAL also for buf NULL
 * or count < 0. */
int morph_data_replicated(morph_ctx *ctx, const char *name, void *buf, int count,
                          MPI_Datatype type);

/*
 * A 1-D array of `global_count` elements split in contiguous blocks: rank r
 * of P owns elements [r*G/P, (r+1)*G/P) (sizes differ by at most one; zero-
 * length parts allowed). morph allocates the local part and stores its
 * address in *buf; after every reconfiguration *buf points to the new local
 * part (the old one is freed). Initial contents are zero for NEW processes.
 * The memory is morph's: never free() or realloc() it (parts of 8 MiB and
 * more are shared mappings of memory files, which a same-host shrink hands
 * to the stayers without copying: docs/redistribution.md).
 * Errors: the common ones; MORPH_EINVAL also for buf NULL or global_count
 * < 0; MORPH_ENOMEM when the local part cannot be allocated. On error *buf
 * is not written.
 */
int morph_data_block(morph_ctx *ctx, const char *name, void **buf, int64_t global_count,
                     MPI_Datatype type);

/* Like morph_data_block, but distributed block-cyclically: block b (of
 * `block` elements, the last may be shorter) belongs to rank b mod P and
 * the local part holds a rank's blocks in increasing order. Errors: those
 * of morph_data_block; MORPH_EINVAL also for block < 1. */
int morph_data_block_cyclic(morph_ctx *ctx, const char *name, void **buf, int64_t global_count,
                            int64_t block, MPI_Datatype type);

/*
 * An array whose local length differs per process (particles, work items).
 * The global sequence is the concatenation of the local parts in rank
 * order; a reconfiguration keeps that order and rebalances it in blocks as
 * morph_data_block does. *count is the local length: set it before
 * morph_point() (the local part may grow or shrink between iterations; the
 * caller then reallocates *buf with malloc/realloc, which morph frees), and
 * morph updates it with *buf after a reconfiguration. Errors: the common
 * ones; MORPH_EINVAL also for buf or count NULL, or *count < 0. Neither
 * *buf nor *count is written on error.
 */
int morph_data_varcount(morph_ctx *ctx, const char *name, void **buf, int64_t *count,
                        MPI_Datatype type);

/* Irregular state the application packs itself. At a reconfiguration every
 * process of the old size calls pack(); the blob of old rank r is delivered
 * to new rank r mod N (a staying process gets its own back), and every
 * process of the new size calls unpack() with the blobs it received, in old-
 * rank order (possibly none). pack() returns 0 or a negative morph code and
 * hands over a malloc'ed buffer that morph frees; a failure of either rolls
 * the reconfiguration back. Errors: the common ones (type does not apply);
 * MORPH_EINVAL also for cb NULL or without pack or unpack. */
typedef struct morph_callbacks {
  int (*pack)(void *arg, void **blob, size_t *len);
  int (*unpack)(void *arg, int nblobs, void *const *blobs, const size_t *lens);
  void *arg;
} morph_callbacks;
/* Registers cb under name, as above. Errors: as above. */
int morph_data_callbacks(morph_ctx *ctx, const char *name, const morph_callbacks *cb);

/* Local element count and global offset of the first local element of a
 * block, block-cyclic or varcount registration (-1 if no such name). For
 * block-cyclic data the offset is that of the first local block. */
int64_t morph_local_count(const morph_ctx *ctx, const char *name);
int64_t morph_local_offset(const morph_ctx *ctx, const char *name);

/*
 * The reconfiguration point. All processes, once per iteration, at a place
 * where registered data is consistent. Cheap when nothing is pending: under
 * an inhibitor it only decrements a counter; otherwise rank 0 polls the
 * launcher socket and broadcasts the answer.
 *
 * When a decision is pending, every process enters the adaptation window:
 * joiners are spawned (live) or the job is checkpointed (relaunch),
 * registered data is redistributed, the step counter and replicated data
 * reach the joiners, and the launcher is told the outcome with the
 * per-phase report (morph_last_report).
 *
 * *status receives this process's status after the point: MORPH_STAYING
 * (fetch morph_comm(), rank and size again if morph_last_report() says a
 * reconfiguration happened), MORPH_JOINING on a joiner's first point (its
 * data has just arrived), or MORPH_LEAVING (the process's registered data
 * is with the stayers: its block and block-cyclic buffers no longer hold
 * it, their pages may have been handed over; call morph_finalize()).
 *
 * A reconfiguration that fails or times out is rolled back: every process
 * keeps its old communicator, rank and data, the failure is logged and
 * reported to the launcher, and morph_point() returns MORPH_OK with status
 * MORPH_STAYING; morph_last_report() gives the reason (outcome != 0).
 * Errors (returned): MORPH_ESTATE (called after LEAVING, inside an open
 * window, or on a context a front-end claimed), MORPH_EMPI (the
 * communicator itself failed; the job cannot continue safely).
 * morph_point() is built on the split form below.
 */
int morph_point(morph_ctx *ctx, morph_status *status);

/*
 * The split form of the reconfiguration point, for codes that must do work
 * between "a change is coming" and "it happens": the Elastic MPI and PCM
 * front-ends, DMRlib's user redistribution functions, or an application
 * that moves some of its data itself. morph_point() is exactly
 *
 *     morph_probe(ctx, &ch);
 *     if (ch.pending) { morph_begin(ctx, &win); morph_commit(ctx, MORPH_OK, status); }
 *
 * and the adaptation window of docs/runtime.md is the same state machine:
 * morph_begin() runs PREPARE (joiners spawned and merged, stayers split
 * off) and MOVE (registered data copied into new buffers, not yet
 * installed), then returns with the window open; morph_commit() runs the
 * vote, then COMMIT or ROLLBACK. Between the two every process (joiners
 * included) may communicate on the window's communicators.
 *
 *     probe --(pending)--> begin --> application's own transfers --> commit
 *
 * A joiner's first call is morph_begin() (its change is pending from
 * morph_open() on); it may call morph_probe() first, which reports it.
 */

/* What morph_probe() found. */
typedef struct morph_change {
  int pending;             /* 1: a reconfiguration must begin now */
  morph_status status;     /* what this process will be: STAYING or LEAVING
                              (JOINING on a joiner); STAYING if none */
  int old_size, new_size;  /* equal when nothing is pending, and for a move */
  morph_mechanism mechanism; /* how it will be carried out */
  int moving;              /* a move: this many processes leave the hosts
                              the decision names and as many join on others,
                              the size unchanged (status LEAVING on the
                              movers); 0: a resize. morph_begin() opens its
                              grow; the next morph_probe() finds its shrink
                              pending at once (docs/runtime.md, Moves) */
} morph_change;

/*
 * Is a decision pending? All processes, collective, once per iteration
 * like morph_point() (it counts the iteration and honours the inhibitors:
 * rank 0 asks the launcher and broadcasts). If change->pending is 1, the
 * next reconfiguration call must be morph_begin(). A live grow spawned in
 * the background (see Threads above) is reported pending only once its
 * joiners are up, at a later call; until then every call takes part in
 * one small agreement, inhibitors or not.
 * Errors (nothing changed, no window): MORPH_EINVAL (NULL argument),
 * MORPH_ESTATE (a window is open, the process is LEAVING, or the context is
 * driven by a front-end: see morph_frontend_claim), MORPH_EMPI (the
 * broadcast failed; the job cannot continue safely).
 */
int morph_probe(morph_ctx *ctx, morph_change *change);

/* The adaptation window, as morph_begin() opens it. Communicators belong
 * to morph and are valid until morph_commit() returns. */
typedef struct morph_window_info {
  morph_status status;     /* this process: STAYING, LEAVING or JOINING */
  int staying, leaving, joining; /* how many processes of each */
  int old_size, new_size;
  MPI_Comm comm;           /* every process of the window, old and new: the
                              old processes in their order, then joiners
                              (live); MPI_COMM_NULL under relaunch */
  MPI_Comm intercomm;      /* live expansion: old processes (local group on
                              them) and joiners (local group on joiners);
                              MPI_COMM_NULL otherwise */
  MPI_Comm newcomm;        /* the processes after the change, stayers in
                              their order then joiners: morph_comm() after
                              the commit; MPI_COMM_NULL on leavers and under
                              relaunch */
  int old_rank, new_rank;  /* this process's ranks; -1 where not a member */
  int moving;              /* a half of a move of this many processes (the
                              shrink gives the joiners the movers' ranks) */
} morph_window_info;

/*
 * Opens the adaptation window of the pending change. All processes of the
 * window, collective: the old processes after a morph_probe() that found
 * it pending, and the joiners. On return joiners exist and registered data
 * sits in new buffers; *info says who is who. Under relaunch the window
 * only checkpoints registered data: no process of the new size exists yet,
 * so there is nothing to send to; at the commit every process LEAVES and
 * the launcher starts the job again.
 * Errors: MORPH_EINVAL (NULL argument); MORPH_ESTATE (no change pending,
 * a window already open, a front-end's context): nothing changed.
 * A failure of the window itself (a spawn that fails or hangs, registrations
 * that differ) is not returned here: morph_begin() returns MORPH_OK with
 * the window open in a failed state (info->new_size == info->old_size, no
 * joiners), and morph_commit() rolls it back and returns MORPH_EABORTED.
 */
int morph_begin(morph_ctx *ctx, morph_window_info *info);

/*
 * Closes the window: every process of the window votes with `outcome`
 * (MORPH_OK, or the error of the application's own transfers), the
 * stayers agree, and the change takes effect or is rolled back. *status is
 * this process's status afterwards: STAYING (fetch morph_comm(), rank and
 * size again), JOINING on a joiner's first commit, or LEAVING (call
 * morph_finalize()). Collective over the processes of the window.
 * Errors: MORPH_EINVAL (NULL argument); MORPH_ESTATE (no window open,
 * e.g. commit without begin, or a front-end's context): nothing changed.
 * MORPH_EABORTED: rolled back, every process keeps its old communicator,
 * rank and registered data, joiners are gone; data the application moved
 * itself is its own to restore (keep the old copy until the commit
 * returns). MORPH_EMPI: a process died and the old size cannot be restored
 * (as for morph_point()).
 */
int morph_commit(morph_ctx *ctx, int outcome, morph_status *status);

/*
 * Redistribution overlapped with computation (after MaM's asynchronous
 * strategies). Data that will not change until the commit moves in the
 * background while the old processes keep computing; the rest moves at the
 * commit, which waits only for what is left:
 *
 *     morph_data_set_constant(m, "A", 1);            once, after registering
 *     ...
 *     morph_probe(m, &ch);                            every iteration
 *     if (ch.pending && !open) { morph_begin_overlap(m, &win); open = 1; }
 *     if (open) {
 *       morph_progress(m, &done);                     every iteration
 *       if (done || ++k == limit) { morph_commit(m, MORPH_OK, &st); open = 0; }
 *     }
 *     compute(morph_comm(m), ...);                    old communicator until
 *                                                     the commit
 *
 * Progress. MPI moves non-blocking messages inside MPI calls; morph starts
 * no thread of its own (it would take a core from the computation it is
 * meant to overlap). morph_progress() and the application's own MPI calls
 * (on any communicator) move the background transfers forward.
 *
 * Joiners. A process spawned by a live expansion has nothing to compute
 * until it holds data: its window follows what the old processes chose,
 * and for it overlap only means that its morph_begin() (or morph_point())
 * receives the constant data while the old processes compute; it then
 * waits in morph_commit(). The old processes must therefore reach
 * morph_commit() within the step time limit (MORPH_STEP_TIMEOUT) of
 * morph_begin_overlap(), or the joiners give up and the window rolls back.
 *
 * Relaunch. Nothing can be sent before the new processes exist: the window
 * opens without moving anything and morph_commit() does the whole
 * checkpoint, so iterations computed in between are not lost.
 */

/*
 * Declares a block, block-cyclic or varcount registration constant (1) or
 * not (0, the default): between morph_begin_overlap() and morph_commit()
 * the application does not write its local part (it may read it), and for
 * varcount data neither changes *count nor reallocates *buf (the
 * transfers read the buffer in place), so it can move in the background. All processes, same values (part of the
 * registration check: a difference rolls the first window back with
 * MORPH_EMISMATCH). Without morph_begin_overlap() the flag changes
 * nothing. A write to constant data inside the window is caught: morph
 * hashes each constant local part when its transfers start and again at
 * the commit, and a difference on any process rolls the window back
 * (MORPH_EABORTED from morph_commit, the report names the registration and
 * the rank); writes after the commit are the application's business.
 * Errors: MORPH_EINVAL (ctx or name NULL; replicated or callback data),
 * MORPH_ENOENT (no such registration), MORPH_ESTATE (inside a window).
 * On error nothing changes.
 */
int morph_data_set_constant(morph_ctx *ctx, const char *name, int constant);

/*
 * Like morph_begin(), but returns as soon as the joiners exist (live
 * expansion) or the stayers are split off (live shrink) and the transfers
 * of constant registrations are posted: the old processes go back to
 * computing on morph_comm(), which stays the old communicator until
 * morph_commit(). Collective over the same processes as morph_begin(), and
 * every old process must call the same one of the two. *info is filled as
 * by morph_begin(). Between this call and morph_commit() the old processes
 * may read all registered data, write data that is not constant, and call
 * morph_progress(); they must not register data, probe or begin again, and
 * must not receive with MPI_ANY_TAG from joiners (the window's
 * communicators belong to morph). morph_commit() then waits for the
 * background transfers, checks the constant data, moves the rest, votes and
 * commits or rolls back, as for morph_begin(). A joiner may call either
 * begin; its window is overlapped if the old processes' is.
 * Errors: those of morph_begin(); a failed window is reported the same way
 * (open in a failed state, rolled back by morph_commit()).
 */
int morph_begin_overlap(morph_ctx *ctx, morph_window_info *info);

/*
 * Drives the background transfers of an overlapped window once and tells
 * whether they are complete on every old process (*done 1 on all of them,
 * else 0 on all of them), so that all commit at the same iteration.
 * Collective over the old processes (morph_comm()), inside a window opened
 * by morph_begin_overlap() (on a window opened by morph_begin() *done is 1
 * at once). A sender's transfers are complete when MPI has taken its data;
 * the joiners may still be receiving the last bytes, which morph_commit()
 * waits for. Errors: MORPH_EINVAL (NULL argument), MORPH_ESTATE (no window
 * open, a joiner, a front-end's context), MORPH_EMPI. The window stays open
 * in every case; *done is 0 on error.
 */
int morph_progress(morph_ctx *ctx, int *done);

/*
 * For front-ends (morph/dmr.h, morph/adapt.h, morph/pcm.h): a front-end
 * that drives a context claims it, so that the application cannot drive
 * it through the native reconfiguration calls as well (they would take
 * decisions and windows from under the front-end). After the claim,
 * morph_point(), morph_probe(), morph_begin() and morph_commit() fail with
 * MORPH_ESTATE ("this context is driven by the <name> front-end") unless
 * called between morph_frontend_enter() and morph_frontend_leave(), which
 * the front-end does around its own calls. Errors: MORPH_EINVAL (NULL),
 * MORPH_EBUSY (claimed by another front-end: its name is in the message).
 */
int morph_frontend_claim(morph_ctx *ctx, const char *name);
void morph_frontend_enter(morph_ctx *ctx);
void morph_frontend_leave(morph_ctx *ctx);

/* Report of one reconfiguration attempt. Times in seconds, measured on
 * rank 0; bytes_moved is the total over all processes. */
typedef struct morph_reconf_report {
  int seq;                   /* 1 for the job's first reconfiguration; 0 if
                                none yet */
  int old_size, new_size;    /* new_size == old_size after a rollback */
  int requested_size;        /* what the decision asked for */
  morph_mechanism mechanism; /* LIVE or RELAUNCH */
  int outcome;               /* MORPH_OK or the error that rolled it back */
  int64_t iteration;         /* morph_iteration() at the point */
  double t_decision;         /* from the decision's arrival to its broadcast */
  double t_spawn;            /* spawn + merge (live), checkpoint (relaunch) */
  double t_redist;           /* data redistribution (restore after relaunch) */
  double t_commit;           /* agreement, new communicator, leavers gone */
  int64_t bytes_moved;
  char message[256];         /* what happened, for people */
} morph_reconf_report;

/* Copies the report of the last reconfiguration attempt into *out.
 * Errors: MORPH_EINVAL (NULL argument). */
int morph_last_report(const morph_ctx *ctx, morph_reconf_report *out);

/* Text name of a status or mechanism ("STAYING", "live"). Never NULL. */
const char *morph_status_name(morph_status st);
const char *morph_mechanism_name(morph_mechanism mech);

#ifdef __cplusplus
}
#endif
#endif /* MORPH_H */
