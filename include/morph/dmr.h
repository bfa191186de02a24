/*
 * morph/dmr.h - DMRlib-compatible front-end (paper 000: Listings 2-4,
 * Table 1, Appendix A), a thin layer over morph.h.
 *
 *     void compute(double *data, int data_size, int step) {
 *       DMR_Set_parameters(min, max, pref);
 *       for (int i = step; i < TOTAL_STEPS; i++) {
 *         DMR_RECONFIG(compute(data, data_size, i),
 *                      DMR_Send_expand_default(data, MPI_DOUBLE, data_size),
 *                      DMR_Recv_expand_default(&data, MPI_DOUBLE, &data_size),
 *                      DMR_Send_shrink_default(data, MPI_DOUBLE, data_size),
 *                      DMR_Recv_shrink_default(&data, MPI_DOUBLE, &data_size));
 *         ... computation on DMR_COMM_WORLD ...
 *       }
 *     }
 *     int main(int argc, char **argv) {
 *       MPI_Init(&argc, &argv);
 *       DMR_Init(NULL);
 *       if (DMR_Is_new()) { ... allocate and initialise data ...; step = 0; }
 *       else { data = NULL; data_size = 0; }   // a joiner: data arrives
 *       compute(data, data_size, DMR_Step());
 *       return DMR_Finalize();
 *     }
 *
 * What differs from DMRlib, and why, is in docs/dmr-compat.md. In short:
 * there is no OmpSs offload, so processes that stay keep running in place
 * and only joiners start, from main(): DMR_Is_new() tells them apart and
 * DMR_Step() gives a joiner the iteration to resume at; the computation
 * uses DMR_COMM_WORLD instead of MPI_COMM_WORLD; sizes are arbitrary (not
 * only multiples); redistribution functions are the predefined ones or the
 * user's own (Listing 3, with MPI_Send / MPI_Recv on DMR_INTERCOMM, live
 * mechanism); a process that leaves ends inside DMR_RECONFIG, as DMRlib's
 * parents do.
 *
 * Context. DMR_Init() creates the single process-wide context that the
 * DMRlib API shape assumes (its calls take no handle); it lives in
 * src/dmr/context.c and nowhere else. DMR_Morph() hands out the morph
 * context underneath for anything the DMRlib API lacks; the front-end has
 * claimed it, so its native reconfiguration calls fail (MORPH_ESTATE).
 *
 * Errors. Functions that return int return MORPH_OK or a negative code of
 * morph/error.h. The Table 1 functions return void, as in DMRlib: if one of
 * them fails after the job has changed size (out of memory), the data
 * cannot be put back, so it prints the reason and aborts the job.
 */
#ifndef MORPH_DMR_H
#define MORPH_DMR_H

#include "morph.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Opens the process-wide context on MPI_COMM_WORLD (opts: NULL for the
 * defaults, see morph_open). A joiner receives its data and the step here.
 * Errors: those of morph_open; MORPH_ESTATE if already open. */
int DMR_Init(const morph_options *opts);

/* Closes the context and finalizes MPI (replaces MPI_Finalize). Returns the
 * value main should return (see morph_finalize). */
int DMR_Finalize(void);

/* 1 if this process started with the job (initialise your data), 0 if it
 * joined it by a reconfiguration or a relaunch. */
int DMR_Is_new(void);

/* The loop index to resume at: 0 for a new process; for a joiner, the index
 * of the iteration at which it was created. Assumes one DMR_RECONFIG per
 * iteration with the loop index starting at 0. */
int DMR_Step(void);

/* The communicator of the current processes (fetch it after every
 * DMR_RECONFIG); DMR_COMM_WORLD replaces MPI_COMM_WORLD in the computation. */
MPI_Comm DMR_Comm(void);
#define DMR_COMM_WORLD DMR_Comm()

/* Inside DMR_RECONFIG, the communicator of every process of the change:
 * the parents (the processes before it) in their order, then the joiners,
 * so that a parent's rank is its rank before and a child's its rank after
 * (paper 000, Listing 3: MPI_Send to dst_rank, MPI_Recv from src_rank).
 * It is an intracommunicator, not DMRlib's parent-child intercommunicator:
 * a process that stays is both a parent and a child. Outside
 * DMR_RECONFIG it is DMR_COMM_WORLD. */
MPI_Comm DMR_Intercomm(void);
#define DMR_INTERCOMM DMR_Intercomm()

/* Inside DMR_RECONFIG: how many processes there were before the change
 * (DMRlib's parents) and will be after it (its children); outside, both
 * are the current size. What Listing 3 calls comm_world_nprocs and
 * dmr_intercomm_nprocs on either side (docs/dmr-compat.md). */
int MORPH_DMR_parents(void);
int MORPH_DMR_children(void);

/* The morph context underneath (NULL before DMR_Init). */
morph_ctx *DMR_Morph(void);

/* Malleability limits (morph_set_limits). All processes, same values; a
 * call that repeats the current values does nothing, so that the call at
 * the top of compute() (Listing 2) is also right in a joiner. */
int DMR_Set_parameters(int min, int max, int pref);

/* DMRlib's two inhibitors (morph_set_inhibitors): at least `period`
 * seconds, and at least `iterations` iterations, between two checks. */
int DMR_Set_sched_period(double period);
int DMR_Set_sched_iterations(int iterations);

/* Appendix A's spellings. */
#define DMR_Set_paramenters DMR_Set_parameters
#define DMR_Set_sched_itertions DMR_Set_sched_iterations
#define DMR_Set_sched_iteration DMR_Set_sched_iterations

/*
 * Table 1. A Send function names the local part of an array (`size`
 * elements of `type`; for block-cyclic data `n` blocks of `size` elements,
 * block b of the whole array owned by rank b mod P). A Recv function
 * replaces *data with a newly malloc'ed local part for the new number of
 * processes, frees the old one, and sets the sizes. So data must be
 * malloc'ed (or NULL with size 0). Default: any number of elements, split
 * in contiguous blocks whose sizes differ by at most one. Block-cyclic:
 * every block of the same size. The Send functions only note where the
 * data is and cost nothing when no reconfiguration happens.
 */
void DMR_Send_expand_default(void *data, MPI_Datatype type, int size);
void DMR_Recv_expand_default(void **data, MPI_Datatype type, int *size);
void DMR_Send_shrink_default(void *data, MPI_Datatype type, int size);
void DMR_Recv_shrink_default(void **data, MPI_Datatype type, int *size);
void DMR_Send_expand_blockcyclic(void *data, MPI_Datatype type, int n, int size);
void DMR_Recv_expand_blockcyclic(void **data, MPI_Datatype type, int *n, int *size);
void DMR_Send_shrink_blockcyclic(void *data, MPI_Datatype type, int n, int size);
void DMR_Recv_shrink_blockcyclic(void **data, MPI_Datatype type, int *n, int *size);
#define DMR_Send_shrin_blockcyclic DMR_Send_shrink_blockcyclic

/* The paper passes &particles (a struct particle **) where Table 1 has
 * void **: these macros add the cast, as DMRlib users' code expects. */
#define DMR_Recv_expand_default(d, t, s) (DMR_Recv_expand_default)((void **)(d), t, s)
#define DMR_Recv_shrink_default(d, t, s) (DMR_Recv_shrink_default)((void **)(d), t, s)
#define DMR_Recv_expand_blockcyclic(d, t, n, s) \
  (DMR_Recv_expand_blockcyclic)((void **)(d), t, n, s)
#define DMR_Recv_shrink_blockcyclic(d, t, n, s) \
  (DMR_Recv_shrink_blockcyclic)((void **)(d), t, n, s)

/* Internals of DMR_RECONFIG; not for direct use. */
enum { DMR__NONE, DMR__EXPAND, DMR__SHRINK };
int DMR__probe(void);
int DMR__sending(void);
int DMR__sent(void);
void DMR__done(void);

/*
 * The reconfiguration point (Listing 1). Every process, once per iteration.
 * Cheap when no change is pending: a probe, nothing evaluated. When one is:
 * the processes that were there before (DMRlib's parents) evaluate the
 * Send expression of the change's direction (send_expand or send_shrink),
 * then every process of the new size (the children: stayers and joiners)
 * evaluates the Recv expression, inside the adaptation window; a process
 * that leaves ends after its Send expression. `compute` is type-checked
 * but never called: processes that stay are already inside it, and
 * joiners enter it from main. The Send and Recv expressions may be the
 * predefined functions of Table 1 or functions of the user's, such as
 * Listing 3's, sending and receiving on DMR_INTERCOMM (live mechanism).
 */
#define DMR_RECONFIG(compute, send_expand, recv_expand, send_shrink, recv_shrink) \
  do {                                                                           \
    if (0)                                                                       \
      (void)(compute);                                                           \
    switch (DMR__probe()) {                                                      \
    case DMR__EXPAND:                                                            \
      if (DMR__sending())                                                        \
        (void)(send_expand);                                                     \
      if (DMR__sent()) {                                                         \
        (void)(recv_expand);                                                     \
        DMR__done();                                                             \
      }                                                                          \
      break;                                                                     \
    case DMR__SHRINK:                                                            \
      if (DMR__sending())                                                        \
        (void)(send_shrink);                                                     \
      if (DMR__sent()) {                                                         \
        (void)(recv_shrink);                                                     \
        DMR__done();                                                             \
      }                                                                          \
      break;                                                                     \
    default:                                                                     \
      break;                                                                     \
    }                                                                            \
  } while (0)

#ifdef __cplusplus
}
#endif
#endif /* MORPH_DMR_H */
