/*
 * morph/adapt.h - Elastic MPI front-end (paper 002, the TUM thesis,
 * chapter 3), a thin layer over morph.h's split reconfiguration point.
 *
 * The thesis's four operations with its exact signatures and constants, so
 * that its programs (Algorithms 4.2-4.7) compile with few changes:
 *
 *     MPI_Init_adapt(&argc, &argv, &status);          // NEW or JOINING
 *     if (status == MPI_ADAPT_STATUS_JOINING)
 *       resource_adapt();                            // data arrives there
 *     else
 *       init();
 *     while (t < tmax) {
 *       ... computation on MORPH_ADAPT_COMM_WORLD ...
 *       MPI_Probe_adapt(&adapt, &status, NULL);
 *       if (adapt == MPI_ADAPT_TRUE)
 *         resource_adapt();
 *     }
 *     MPI_Finalize();
 *
 *     void resource_adapt(void) {
 *       MPI_Comm inter, world;
 *       int staying, leaving, joining;
 *       MPI_Comm_adapt_begin(&inter, &world, &staying, &leaving, &joining);
 *       ... leavers hand their data over, data is redistributed, loop
 *           counters and the phase are synchronised ...
 *       MPI_Comm_adapt_commit();                      // leavers end here
 *     }
 *
 * Names. The MPI_ names below are the thesis's: MPI_Init_adapt,
 * MPI_Probe_adapt, MPI_Comm_adapt_begin, MPI_Comm_adapt_commit,
 * MPI_ADAPT_FALSE / MPI_ADAPT_TRUE and MPI_ADAPT_STATUS_{NEW, JOINING,
 * STAYING, LEAVING}. They are not part of the MPI standard; if a future MPI
 * defines them, including this header with it fails to compile rather than
 * mixing the two (docs/adapt.md). The front-end also wraps MPI_Finalize
 * through the profiling interface (PMPI), as the thesis's programs end with
 * it: it closes the morph context and then finalizes MPI. Everything the
 * thesis does not have carries a MORPH_ prefix.
 *
 * Differences from Elastic MPI (docs/adapt.md): MPI_COMM_WORLD cannot be
 * replaced, so the computation uses MORPH_ADAPT_COMM_WORLD; MPI_Probe_adapt
 * is collective over it (rank 0 asks the launcher and broadcasts, as PCM's
 * root does), so in a master-worker program the workers probe together
 * with the master; the front-end needs dynamic processes (Open MPI): its
 * programs move their data themselves inside the window, which a relaunch
 * cannot carry, so under MPICH decisions are refused and the job keeps
 * its size.
 *
 * Errors. The operations return MPI_SUCCESS (0) or a negative morph code of
 * morph/error.h (MPI's own error codes are positive, so the two cannot be
 * confused); MORPH_Adapt_errmsg() says why. Out-of-order calls fail with
 * MORPH_ESTATE and change nothing: MPI_Probe_adapt or
 * MPI_Comm_adapt_begin before MPI_Init_adapt, MPI_Comm_adapt_begin without
 * a pending adaptation, MPI_Comm_adapt_commit without MPI_Comm_adapt_begin,
 * MPI_Init_adapt twice, and the native reconfiguration calls of morph.h on
 * the front-end's context (MORPH_Adapt_ctx()).
 */
#ifndef MORPH_ADAPT_H
#define MORPH_ADAPT_H

#include "morph.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(MPI_ADAPT_TRUE) || defined(MPI_ADAPT_STATUS_NEW)
#error "this MPI defines the Elastic MPI names itself; do not include morph/adapt.h with it"
#endif

/* MPI_Probe_adapt's adapt flag. */
#define MPI_ADAPT_FALSE 0
#define MPI_ADAPT_TRUE 1

/* Process statuses (thesis section 3.2.1). */
#define MPI_ADAPT_STATUS_NEW 2
#define MPI_ADAPT_STATUS_JOINING 3
#define MPI_ADAPT_STATUS_STAYING 4
#define MPI_ADAPT_STATUS_LEAVING 5

/*
 * Initialises MPI (MPI_THREAD_MULTIPLE, unless the program initialised it
 * already) and opens the process-wide morph context on MPI_COMM_WORLD in
 * adaptive mode. *local_status: MPI_ADAPT_STATUS_NEW for a process started
 * with the job, MPI_ADAPT_STATUS_JOINING for one created by an expansion
 * (which must call MPI_Comm_adapt_begin next). Collective.
 * Errors: MORPH_EINVAL (local_status NULL), MORPH_ESTATE (called twice),
 * MORPH_EMPI, and those of morph_open; nothing is left open on error.
 */
int MPI_Init_adapt(int *argc, char ***argv, int *local_status);

/*
 * Asks whether the job must adapt. Collective over MORPH_ADAPT_COMM_WORLD.
 * *current_operation: MPI_ADAPT_TRUE or MPI_ADAPT_FALSE. *local_status:
 * what this process will be, MPI_ADAPT_STATUS_STAYING or _LEAVING
 * (_JOINING on a joiner). info: NULL, or receives a new MPI_Info (the
 * caller frees it) with keys "morph_old_size", "morph_new_size" and
 * "morph_mechanism" when an adaptation is pending, else MPI_INFO_NULL.
 * Errors: MORPH_EINVAL (a NULL flag or status), MORPH_ESTATE (before
 * MPI_Init_adapt, or inside the window), those of morph_probe.
 */
int MPI_Probe_adapt(int *current_operation, int *local_status, MPI_Info *info);

/*
 * Opens the adaptation window: joiners exist when it returns. Every
 * process of the window (the old processes after a probe that returned
 * MPI_ADAPT_TRUE, and the joiners), collective. *intercomm: the
 * intercommunicator between the old processes and the joiners in an
 * expansion, MPI_COMM_NULL in a reduction. *new_comm_world: the processes
 * after the adaptation (stayers in their rank order, then joiners),
 * MPI_COMM_NULL on a leaver. Both belong to the front-end and are freed by
 * MPI_Comm_adapt_commit. The counts tell an expansion from a reduction.
 * Inside the window MORPH_ADAPT_COMM_WORLD is still the old world (the
 * joiners' own world on a joiner), as in Elastic MPI.
 * Errors: MORPH_EINVAL (a NULL argument), MORPH_ESTATE (no pending
 * adaptation, a window already open, before MPI_Init_adapt).
 */
int MPI_Comm_adapt_begin(MPI_Comm *intercomm, MPI_Comm *new_comm_world, int *staying_count,
                         int *leaving_count, int *joining_count);

/*
 * Closes the window and commits the adaptation: afterwards
 * MORPH_ADAPT_COMM_WORLD is the new world; update rank, size and your
 * process status (MPI_ADAPT_STATUS_STAYING). A LEAVING process does not
 * return: it is released (morph_finalize, exit status 0), as Elastic MPI
 * releases it. Collective over the processes of the window.
 * Errors: MORPH_ESTATE (no open window: commit without begin);
 * MORPH_EABORTED (morph's part failed, e.g. a spawn that hung: the job
 * keeps its old world, the joiners are gone, and data the program moved in
 * the window is its own to restore); MORPH_EMPI (a process died).
 */
int MPI_Comm_adapt_commit(void);

/* The world of the computation (replaces MPI_COMM_WORLD): the current
 * processes, the new ones after each commit. MPI_COMM_NULL before
 * MPI_Init_adapt. */
MPI_Comm MORPH_Adapt_comm_world(void);
#define MORPH_ADAPT_COMM_WORLD MORPH_Adapt_comm_world()

/* The morph context underneath (NULL before MPI_Init_adapt), for what the
 * thesis's API lacks (morph_set_limits, morph_last_report). Its
 * reconfiguration calls are the front-end's: calling them fails. */
morph_ctx *MORPH_Adapt_ctx(void);

/* The message of the front-end's last failure ("" if none). Never NULL. */
const char *MORPH_Adapt_errmsg(void);

#ifdef __cplusplus
}
#endif
#endif /* MORPH_ADAPT_H */
