/*
 * libmorph-prof, communication matrix: the consumer of the interception
 * layer (intercept.c) that counts bytes and messages per pair of world
 * ranks. Off unless MORPH_PROF_DIR names a folder when MPI starts; then
 * every process keeps its counters in a file of that folder (rankfile.h).
 *
 * What is counted (docs/prof.md): traffic is attributed at the sender, in
 * world ranks of the sender's MPI_COMM_WORLD. Messages to processes of
 * another world (intercommunicators of spawned processes, communicators
 * merged from them) add to the sender's external counters instead of a
 * pair. Collectives on intercommunicators and calls whose peer cannot be
 * known add to `uncounted`.
 */
#ifndef MORPH_PROF_TRAFFIC_H
#define MORPH_PROF_TRAFFIC_H

#include <mpi.h>
#include <stdint.h>

/* Called by the MPI_Init wrappers after PMPI_Init succeeded, and by
 * MPI_Finalize before PMPI_Finalize. Failures only print a warning and
 * leave counting off: the profiled program never fails because of it. */
void morph__traffic_start(void);
void morph__traffic_stop(void);

/* Non-zero while counting. */
int morph__traffic_on(void);

/* A message of count elements of type t to rank dest of comm. */
void morph__traffic_send(MPI_Comm comm, int dest, int count, MPI_Datatype t);

/* Bytes of count elements of t (0 for a bad type). */
uint64_t morph__traffic_bytes(int count, MPI_Datatype t);

/* Persistent sends: remember the message of a request at *_init, count it
 * at each MPI_Start, forget it at MPI_Request_free. */
void morph__traffic_persist(MPI_Request req, MPI_Comm comm, int dest, int count, MPI_Datatype t);
void morph__traffic_start_req(MPI_Request req);
void morph__traffic_forget_req(MPI_Request req);

/* One-sided: bytes that flow from this process to target (put, accumulate)
 * or from target to this process (get). */
void morph__traffic_rma(MPI_Win win, int target, uint64_t put_bytes, uint64_t get_bytes);

/* The collective schedules of coll.h, fed with the arguments of the call.
 * root is ignored by the rootless ones. A NULL per-rank array means every
 * rank has the same block of `bytes`. */
enum morph__coll_kind {
  MORPH__BARRIER, MORPH__BCAST, MORPH__REDUCE, MORPH__ALLREDUCE, MORPH__SCAN,
  MORPH__GATHER, MORPH__SCATTER, MORPH__ALLGATHER, MORPH__PAIRWISE
};
void morph__traffic_coll(MPI_Comm comm, enum morph__coll_kind kind, int root, uint64_t bytes,
                         const uint64_t *per_rank);

/* This process's rank in comm while counting on an intracommunicator;
 * -1 otherwise (intercommunicators count as uncounted). Rooted calls use it
 * to read send arguments that only the root may rely on. */
int morph__traffic_rank(MPI_Comm comm);

/* Per-rank byte arrays for the vector collectives, built from counts and
 * types; NULL if counting is off, the communicator is an intercommunicator
 * or memory runs out (the caller then counts nothing). The array lives
 * until the next call of the same thread. */
uint64_t *morph__traffic_blocks(MPI_Comm comm, const int *counts, MPI_Datatype t);
uint64_t *morph__traffic_blocks_w(MPI_Comm comm, const int *counts, const MPI_Datatype *t);

#endif
