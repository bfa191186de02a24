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
 * only multiples); redistribution functions must be the predefined ones
 * (or user functions made of them, as the paper's CG example); a process
 * that leaves ends inside DMR_RECONFIG, as DMRlib's parents do.
 *
 * Context. DMR_Init() creates the single process-wide context that the
 * DMRlib API shape assumes (its calls take no handle); it lives in
 * src/dmr/context.c and nowhere else. DMR_Morph() hands out the morph
 * context underneath for anything the DMRlib API lacks.
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

/* DMRlib's parent-child intercommunicator has no counterpart: no process
 * runs a send and a receive function against separate parent and child
 * groups. DMR_INTERCOMM is the communicator of all processes after the
 * reconfiguration, on which the Recv functions run collectively. */
MPI_Comm DMR_Intercomm(void);
#define DMR_INTERCOMM DMR_Intercomm()

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
int DMR__capture(void);
int DMR__point(void);
void DMR__done(void);

/*
 * The reconfiguration point (Listing 1). Every process, once per iteration.
 * The Send expression is evaluated first, to note where the data is; then
 * morph_point() carries out a pending decision; then, if the size changed,
 * every process of the new size evaluates the Recv expression, and a
 * process that left ends here. `compute` is type-checked but never called:
 * processes that stay are already inside it, and joiners enter it from main.
 * send_shrink is never evaluated: the data named by send_expand is what
 * moves in both directions, so both must name the same arrays.
 */
#define DMR_RECONFIG(compute, send_expand, recv_expand, send_shrink, recv_shrink) \
  do {                                                                           \
    if (0) {                                                                     \
      (void)(compute);                                                           \
      (void)(send_shrink);                                                       \
    }                                                                            \
    if (DMR__capture())                                                          \
      (void)(send_expand);                                                       \
    switch (DMR__point()) {                                                      \
    case DMR__EXPAND:                                                            \
      (void)(recv_expand);                                                       \
      DMR__done();                                                               \
      break;                                                                     \
    case DMR__SHRINK:                                                            \
      (void)(recv_shrink);                                                       \
      DMR__done();                                                               \
      break;                                                                     \
    default:                                                                     \
      break;                                                                     \
    }                                                                            \
  } while (0)

#ifdef __cplusplus
}
#endif
#endif /* MORPH_DMR_H */
