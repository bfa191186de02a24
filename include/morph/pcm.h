/*
 * morph/pcm.h - PCM front-end (process checkpointing and migration with the
 * malleability extensions of paper 001, the malleable components of paper
 * 003), a thin layer over morph.h's split reconfiguration point.
 *
 * The calls of paper 001's Table 1 with its names, so that Figure 6's
 * program keeps its shape:
 *
 *     MPI_PCM_Init(&argc, &argv);                     // MPI and the context
 *     PCM_Init(&PCM_COMM_WORLD);                      // the malleable world
 *     if (PCM_Process_Status() == PCM_STARTED) {
 *       ... initialise and distribute the data ...
 *     } else {                                        // created by a split
 *       PCM_Comm_rank(PCM_COMM_WORLD, &rank);
 *       PCM_Load(rank, "iterator", &current_iteration);
 *       PCM_Load(rank, "datawidth", &xDim);
 *       prevData = calloc((xDim + 2) * yDim, sizeof(double));
 *       PCM_Load(rank, "myArray", prevData);
 *     }
 *     for (it = current_iteration; it < TOTAL; it++) {
 *       pcm_status = PCM_Status(PCM_COMM_WORLD);
 *       if (pcm_status == PCM_SPLIT)
 *         PCM_Split(&prevData, PCM_DOUBLE, &it, &xDim, &yDim, &rank, &np,
 *                   &PCM_COMM_WORLD, argv[0]);
 *       else if (pcm_status == PCM_MERGE) {
 *         PCM_Merge_datacnts(xDim, yDim, &mergecnts, &merge_rank, PCM_COMM_WORLD);
 *         if (rank == merge_rank)
 *           new_buffer = calloc(mergecnts, sizeof(double));
 *         PCM_Merge(prevData, MPI_DOUBLE, &xDim, &yDim, new_buffer, mergecnts,
 *                   &rank, &np, &PCM_COMM_WORLD);
 *         if (rank == merge_rank) { free(prevData); prevData = new_buffer; }
 *       }
 *       ... computation, ghost-column exchange on PCM_COMM_WORLD ...
 *     }
 *     PCM_Finalize(PCM_COMM_WORLD);
 *     MPI_Finalize();
 *
 * Who decides. As in PCM/IOS, the middleware decides when and to what size
 * (here `morph run`'s schedule or morphd's policy, e.g. the granularity
 * rule of paper 003); rank 0 asks it inside PCM_Status and broadcasts the
 * answer. The application says how: the split and merge calls move a 2-D
 * array decomposed by columns (paper 001, Figure 4), anything else it keeps
 * per process goes through PCM_Store / PCM_Load.
 *
 * The array. A process holds its xDim columns of yDim elements each, stored
 * column after column, between one ghost column on each side: (xDim + 2) *
 * yDim elements, own columns 1..xDim. The columns of all processes, in rank
 * order, are the global columns; a split or merge gives the new processes
 * contiguous blocks of them (sizes differ by at most one) and moves only
 * the own columns: ghost columns arrive zeroed, the next exchange fills
 * them.
 *
 * Forms. PCM_Split / PCM_Merge are paper 001's 1 -> N and N -> 1 forms:
 * every process splits into the same number of processes (the new size a
 * multiple of the old) or equal groups merge into one (the old size a
 * multiple of the new); anything else fails with MORPH_ESIZE and the job
 * keeps its size. PCM_Split_Collective / PCM_Merge_Collective are the M ->
 * N forms: any sizes, including paper 003's N -> N+1 and N -> N-1.
 *
 * Processes created by a split (live) and every process of a relaunched
 * job (MPICH: checkpoint and relaunch) start in main() with
 * PCM_Process_Status() == PCM_SPLITTED and find their part of the array,
 * the iteration and the width under the keys of Figure 6 ("myArray",
 * "iterator", "datawidth": MORPH_PCM_KEY_*), stored for them by the split
 * or merge. The array travels inside morph's adaptation window as one
 * callbacks registration, so both mechanisms carry it.
 *
 * Migration. When the middleware moves processes to other hosts (a move
 * decision: `morph run --schedule "move@it50 off node1 onto node3"`),
 * PCM_Status returns PCM_MIGRATE on the processes that move and
 * PCM_RECONFIGURE on the others; the movers PCM_Store their state under
 * their rank, then every process calls PCM_Reconfigure. The movers end
 * inside it; their replacements start in main() on the target hosts with
 * PCM_Process_Status() == PCM_MIGRATED, the movers' ranks, and load that
 * state. The job keeps its size and every other process its rank and
 * data. Live only (Open MPI): a relaunch cannot place processes on named
 * hosts, so a move under it is refused (docs/pcm.md, Migration).
 *
 * Names. PCM_ and MPI_PCM_ names are the paper's. Paper 001 calls a type
 * and a function PCM_Status; C cannot have both, so the status is an int.
 * What the paper does not define carries a MORPH_PCM_ prefix.
 *
 * Errors. Functions return MORPH_OK (0) or a negative code of
 * morph/error.h, PCM_Status and PCM_Process_Status a status (>= 0) or a
 * negative code; MORPH_PCM_errmsg() says why. Out-of-order calls fail with
 * MORPH_ESTATE and change nothing (any call before MPI_PCM_Init, a split
 * or merge that PCM_Status did not announce, PCM_Status while an announced
 * change is not carried out, MPI_PCM_Init twice, morph.h's reconfiguration
 * calls on the front-end's context). A split or merge whose arguments are
 * wrong on any process, or whose form does not fit the sizes, is refused
 * collectively: the pending change is rolled back (old size, old data,
 * the launcher told), every process gets the error.
 */
#ifndef MORPH_PCM_H
#define MORPH_PCM_H

#include "morph.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(PCM_SPLIT) || defined(PCM_STARTED)
#error "PCM's own pcm_api.h is included; do not include morph/pcm.h with it"
#endif

/* PCM_Process_Status(): how this process started. */
#define PCM_STARTED 1  /* with the job (mpirun) */
#define PCM_MIGRATED 2 /* by a migration, in place of a process that moved */
#define PCM_SPLITTED 3 /* by a split, or by the relaunch of the job */

/* PCM_Status(): what the middleware asks of the job now. */
#define MORPH_PCM_NONE 0   /* nothing: compute */
#define PCM_MIGRATE 4      /* this process moves: PCM_Store, PCM_Reconfigure */
#define PCM_RECONFIGURE 5  /* others move: PCM_Reconfigure */
#define PCM_SPLIT 6        /* grow: call PCM_Split or PCM_Split_Collective */
#define PCM_MERGE 7        /* shrink: PCM_Merge_datacnts, then PCM_Merge or
                              PCM_Merge_Collective */

/* Data types of PCM_Store and of the array: MPI's. */
#define PCM_INT MPI_INT
#define PCM_DOUBLE MPI_DOUBLE
#define PCM_CHAR MPI_CHAR
#define PCM_FLOAT MPI_FLOAT
#define PCM_LONG MPI_LONG

/* The keys under which a split or merge stores a new process's state
 * (Figure 6's names). */
#define MORPH_PCM_KEY_ITERATOR "iterator"  /* int: the iteration to resume */
#define MORPH_PCM_KEY_WIDTH "datawidth"    /* int: xDim, own columns */
#define MORPH_PCM_KEY_ARRAY "myArray"      /* (xDim + 2) * yDim elements */

/*
 * Initialises MPI (MPI_THREAD_MULTIPLE, unless the program did already) and
 * opens the process-wide morph context on MPI_COMM_WORLD, claimed by the
 * front-end. A process created by a split (or a relaunched one) receives
 * its stored state here. All processes, collective (the old processes are
 * inside PCM_Split / PCM_Merge meanwhile).
 * Errors: MORPH_ESTATE (called twice), MORPH_ENOSYS (libmorph-prof not
 * linked: MPI_Finalize could not be made harmless after PCM_Finalize),
 * MORPH_EMPI, those of morph_open. A failure after the context opened
 * closes it, which finalizes MPI (end the program); before, nothing is
 * left open except MPI.
 */
int MPI_PCM_Init(int *argc, char ***argv);

/*
 * Gives the malleable world (PCM_COMM_WORLD of paper 001, which replaces
 * MPI_COMM_WORLD): the current processes. It belongs to morph and changes
 * at every split and merge, which update the caller's copy. Figure 6 writes
 * `PCM_COMM_WORLD = MPI_COMM_WORLD; PCM_Init(PCM_COMM_WORLD);`; a process
 * created by a split has another MPI_COMM_WORLD, so here the world comes
 * back through the pointer. Errors: MORPH_EINVAL (NULL), MORPH_ESTATE
 * (before MPI_PCM_Init).
 */
int PCM_Init(MPI_Comm *pcm_comm_world);

/* PCM_STARTED or PCM_SPLITTED (see above); MORPH_ESTATE before
 * MPI_PCM_Init. Local. */
int PCM_Process_Status(void);

/* This process's rank in comm (the malleable world). Errors: MORPH_EINVAL
 * (rank NULL), MORPH_ESTATE (before MPI_PCM_Init), MORPH_EMPI. */
int PCM_Comm_rank(MPI_Comm comm, int *rank);

/*
 * Asks the middleware whether the job must change now: MORPH_PCM_NONE,
 * PCM_SPLIT or PCM_MERGE, the same on every process. Collective over the
 * malleable world (comm is that world; it is not otherwise used): rank 0
 * asks, as PCM's root probes the PCMD, and broadcasts. Once per iteration,
 * at a point where no message is outstanding (paper 001: at the beginning
 * or the end of the loop). After PCM_SPLIT or PCM_MERGE the next
 * reconfiguration call must be the matching split or merge.
 * Errors (negative): MORPH_ESTATE (before MPI_PCM_Init; or a PCM_SPLIT /
 * PCM_MERGE returned earlier was not carried out: nothing changes, call
 * the split or merge), those of morph_probe.
 */
int PCM_Status(MPI_Comm comm);

/*
 * Stores `count` elements of `type` from buf under `key` for process
 * `rank` (normally the caller's own): the per-rank database of the PCMD. A
 * second store of the same rank and key replaces the first. The entry
 * stays with the caller until the next split or merge, which delivers it
 * to the process that then has that rank (entries for ranks that no longer
 * exist are dropped); the keys MORPH_PCM_KEY_* are overwritten by every
 * split and merge. Local.
 * Errors: MORPH_EINVAL (key NULL, empty or 48 characters or longer; rank
 * or count negative; buf NULL with count > 0; a type of extent <= 0),
 * MORPH_ESTATE (before MPI_PCM_Init), MORPH_ENOMEM: nothing stored, an
 * earlier entry of that rank and key kept.
 */
int PCM_Store(int rank, const char *key, const void *buf, MPI_Datatype type, int count);

/*
 * Copies the entry stored under `key` for `rank` into buf (which must hold
 * it: for the array, (datawidth + 2) * yDim elements). Local.
 * Errors: MORPH_EINVAL (key or buf NULL), MORPH_ESTATE (before
 * MPI_PCM_Init), MORPH_ENOENT (no such entry here: named in the message);
 * buf is not written.
 */
int PCM_Load(int rank, const char *key, void *buf);

/* How many bytes PCM_Load(rank, key, ...) would write; MORPH_ENOENT if
 * none, MORPH_ESTATE before MPI_PCM_Init. */
int64_t MORPH_PCM_Load_size(int rank, const char *key);

/*
 * Carries out the PCM_SPLIT that PCM_Status announced: the job grows, the
 * columns are redistributed over the new processes, and on return *data
 * points to this process's new (*xDim + 2) * *yDim elements (the old buffer
 * is freed: it must come from malloc), *xDim, *rank, *totalProcessors and
 * *comm are updated. *iterations is stored for the new processes
 * (MORPH_PCM_KEY_ITERATOR), as are their width and array; they resume at
 * that iteration. argv0 is accepted for PCM's signature; the new processes
 * run the job's program. All processes of the world, collective, same
 * *yDim. PCM_Split needs the new size to be a multiple of the old (each
 * process splits into new/old processes); PCM_Split_Collective takes any
 * larger size.
 * Errors: MORPH_EINVAL (a NULL pointer, *xDim or *yDim negative, sizes
 * that differ between processes), MORPH_ESIZE (PCM_Split and a new size
 * that is not a multiple; or the pending change shrinks the job: a split
 * into zero processes, the message says to merge), MORPH_ENOMEM: refused
 * collectively, the job keeps its size, nothing here changed.
 * MORPH_ESTATE (no PCM_SPLIT announced): nothing changed, no rollback.
 * MORPH_EABORTED: morph rolled the change back (e.g. a spawn that hung):
 * old size, *data and every output unchanged. Under relaunch this call
 * does not return: the job is checkpointed and relaunched, and every
 * process restarts in main() as PCM_SPLITTED.
 * After the change has happened (rare): MORPH_ENOMEM or MORPH_EMPI with
 * the job at its new size and this process's array lost; end the job.
 */
int PCM_Split(void **data, MPI_Datatype type, int *iterations, int *xDim, int *yDim, int *rank,
              int *totalProcessors, MPI_Comm *comm, const char *argv0);
int PCM_Split_Collective(void **data, MPI_Datatype type, int *iterations, int *xDim, int *yDim,
                         int *rank, int *totalProcessors, MPI_Comm *comm, const char *argv0);

/* Figure 6 passes the buffer itself (prevData); these add the cast. */
#define PCM_Split(d, ...) (PCM_Split)((void **)(d), __VA_ARGS__)
#define PCM_Split_Collective(d, ...) (PCM_Split_Collective)((void **)(d), __VA_ARGS__)
#define PCM_split PCM_Split

/*
 * Before PCM_Merge: the buffer this process needs after the announced
 * PCM_MERGE. *mergecnts: (new xDim + 2) * yDim elements if this process
 * stays; *merge_rank: this process's current rank if it stays, -1 if it is
 * merged away (so `rank == merge_rank` is true exactly on the processes
 * that must allocate, as Figure 6 tests). Collective over the world.
 * Errors: MORPH_EINVAL (NULL outputs, negative sizes), MORPH_ESTATE (no
 * PCM_MERGE announced), MORPH_EMPI; nothing changed.
 */
int PCM_Merge_datacnts(int xDim, int yDim, int *mergecnts, int *merge_rank, MPI_Comm comm);

/*
 * Carries out the announced PCM_MERGE: the job shrinks and the columns of
 * the processes that leave go to those that stay. On a staying process the
 * new part, (*xDim + 2) * *yDim elements with zeroed ghost columns, is
 * written into new_buffer (mergecnts elements at least, from
 * PCM_Merge_datacnts); data is left as it is (the caller frees it). *xDim,
 * *rank, *totalProcessors and *comm are updated. A process merged away
 * does not return: it hands its columns over and ends (exit status 0), as
 * PCM removes it; under relaunch no process returns (see PCM_Split).
 * PCM_Merge needs the old size to be a multiple of the new (equal groups
 * merge into one); PCM_Merge_Collective takes any smaller size.
 * Errors: MORPH_EINVAL (NULL pointers, new_buffer NULL or mergecnts too
 * small on a staying process, sizes that differ), MORPH_ESIZE (PCM_Merge
 * and sizes that do not divide), MORPH_ENOMEM: refused collectively, the
 * job keeps its size, new_buffer not written. MORPH_ESTATE: no PCM_MERGE
 * announced, nothing changed. MORPH_EABORTED: rolled back by morph, as for
 * PCM_Split.
 */
int PCM_Merge(void *data, MPI_Datatype type, int *xDim, int *yDim, void *new_buffer,
              int mergecnts, int *rank, int *totalProcessors, MPI_Comm *comm);
int PCM_Merge_Collective(void *data, MPI_Datatype type, int *xDim, int *yDim, void *new_buffer,
                         int mergecnts, int *rank, int *totalProcessors, MPI_Comm *comm);

/* Carries out the migration PCM_Status announced (PCM_MIGRATE or
 * PCM_RECONFIGURE), collectively: the processes that move end inside
 * (their PCM_Store'd state goes to their replacements on the target
 * hosts); on the others *comm is the world afterwards, same size, same
 * ranks. argv0 is unused (the replacements run the job's program).
 * Errors: MORPH_ESTATE (no migration announced: PCM_Status returned
 * something else or nothing; nothing changed, or, when it announced a
 * split or merge, that change refused on every process), MORPH_EINVAL
 * (NULL comm on any process: refused on all, rolled back), MORPH_EABORTED
 * (morph rolled the move back, e.g. the target host could not start the
 * new process: nobody moved, state as before), MORPH_EMPI, MORPH_ENOMEM,
 * MORPH_EPROTO (the state could not be delivered). */
int PCM_Reconfigure(MPI_Comm *comm, const char *argv0);

/*
 * Closes the context: tells the launcher how the job ended and finalizes
 * MPI; the program's MPI_Finalize() afterwards (Figure 6) does nothing.
 * `status` is this process's outcome (0: all went well); returns the job's
 * outcome, the largest status of all processes (see morph_finalize), which
 * main should return. PCM_Finalize(comm) is MORPH_PCM_Finalize(0). All
 * processes, collective. MORPH_ESTATE before MPI_PCM_Init.
 */
int MORPH_PCM_Finalize(int status);
int PCM_Finalize(MPI_Comm comm);

/* Closes the context with `status` and ends the process with the job's
 * outcome (PCM_Exit of Table 1). All processes, collective. */
_Noreturn void PCM_Exit(int status);

/* The morph context underneath (NULL before MPI_PCM_Init), for what PCM's
 * API lacks (morph_last_report, morph_set_limits); its reconfiguration
 * calls are the front-end's and fail. */
morph_ctx *MORPH_PCM_ctx(void);

/* The message of the front-end's last failure ("" if none). Never NULL. */
const char *MORPH_PCM_errmsg(void);

#ifdef __cplusplus
}
#endif
#endif /* MORPH_PCM_H */
