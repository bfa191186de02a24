/*
 * The same-host path of the redistribution engine (local.c): a receiver on
 * the sender's host copies the slices straight out of the sender's old
 * part with process_vm_readv (cross-memory attach), one copy, while only a
 * small handshake goes through MPI. Pairs on different hosts, or where the
 * kernel refuses the read, go through MPI as before (exec.c).
 *
 * The handshake, per pair of processes that exchange bytes (sender s,
 * receiver r), on the caller's communicator and tag:
 *   1. s -> r  OFFER  {host, pid, address of the old part, a nonce and its
 *                      address, the old part's whole memory files},
 *                      posted at once by every sender;
 *   2. r reads the nonce from s; if it is the offered one (same host, same
 *      kernel, read permitted), r adopts the ranges of s's memory files
 *      that land page-aligned in its new part (part.h: pidfd_getfd, then a
 *      mapping at their place: no byte is copied), reads the rest of its
 *      slices and answers DONE;
 *      otherwise r posts its MPI receives and answers MPI;
 *   3. r -> s  ANSWER {DONE | MPI, the ranges of s's part r adopted}; on
 *      MPI, s posts its MPI sends; s records the adopted ranges in its old
 *      part, which keeps them when it is trimmed at the commit (part.h).
 * Every process posts all its offers before it waits for any, and sends all
 * its answers before it waits for any, so no order of arrival deadlocks.
 * Messages between one pair keep the order offer, answer, data in both
 * directions, which MPI's non-overtaking rule matches on one tag.
 *
 * Deadlines: a receiver whose offer has not come by the deadline treats the
 * sender as MPI (posts its receives and answers MPI), so a late sender
 * still completes into the abandoned receives; a sender whose answer has
 * not come abandons, and a late receiver still reads and answers DONE. On
 * timeout the state is left allocated (abandoned requests point into it).
 *
 * MORPH_REDIST_LOCAL=0 in a receiver's environment makes it answer MPI to
 * every sender (the tests run the MPI path on one host this way).
 */
#ifndef MORPH_REDIST_LOCAL_H
#define MORPH_REDIST_LOCAL_H

#include <stdint.h>

#include <mpi.h>

#include "redist/plan.h"
#include "redist/redist.h"

typedef struct morph__local morph__local;

/*
 * Starts the handshake of `plan` for process `me` of comm: posts an offer
 * to every remote receiver and the receives of offers and answers.
 * b as in morph__redist_exec_parts; es is the element size.
 * Errors: MORPH_ENOMEM, MORPH_EMPI; *out is NULL then and nothing is posted.
 */
int morph__local_open(morph__local **out, MPI_Comm comm, int me, const morph__plan *plan,
                      const morph__redist_bufs *b, int64_t es, int tag);

/* Places this process's own slices into the new buffer: adopted whole
 * where its old part's files land whole at a page-aligned offset of the
 * new part, copied otherwise (local.c). */
void morph__local_keep(morph__local *l);

/*
 * Receiver's side: waits (until `deadline`, 0: none) for the offers and
 * copies the slices of every sender it can read. Senders it cannot read,
 * and those whose offer has not come by the deadline, are routed to MPI.
 * Errors: MORPH_EMPI.
 */
int morph__local_pull(morph__local *l, double deadline);

/* 1 if the slices exchanged with `peer` (a receiver if sending, a sender
 * otherwise) go through MPI; 0 if they were (or will be) copied directly.
 * A sender's answer must have come (morph__local_answers). l NULL: 1 (the
 * background form of exec.c has no same-host path). */
int morph__local_via_mpi(const morph__local *l, int peer, int sending);

/*
 * Answers MPI to the senders routed there (call after posting their
 * receives), then waits until `deadline` for the answers of this process's
 * receivers. Errors: MORPH_ETIMEDOUT (an answer is missing: the state must
 * then be abandoned), MORPH_EMPI.
 */
int morph__local_answers(morph__local *l, double deadline);

/* Bytes this process copied from other processes' memory. */
int64_t morph__local_pulled(const morph__local *l);

/*
 * Waits until `deadline` for this process's own handshake messages, then
 * frees the state, unless `abandon` is set or the wait times out: then it
 * stays allocated for good (MPI may still use it). NULL is ignored.
 * Errors: MORPH_ETIMEDOUT, MORPH_EMPI.
 */
int morph__local_close(morph__local *l, int abandon, double deadline);

#endif /* MORPH_REDIST_LOCAL_H */
