/*
 * The redistribution engine: moves a distributed 1-D array from M owners to
 * N owners. Internal to libmorph; the runtime (live and relaunch) and the
 * DMRlib front-end call it.
 *
 * Two layers:
 *  - index arithmetic (no MPI): who owns which global elements under a
 *    distribution, and which slices change owner between two sizes;
 *  - the transfer (MPI): each process sends exactly the slices that change
 *    owner, point to point with non-blocking calls and a deadline, and copies
 *    the slices it keeps with memcpy.
 *
 * Conventions of the transfer: one intracommunicator `comm` of P >=
 * max(M, N) processes; the old owners are ranks 0..M-1 of comm, the new
 * owners ranks 0..N-1. A process that is not an old owner passes
 * old_buf = NULL / old_count = 0; one that is not a new owner passes
 * new_buf = NULL.
 */
#ifndef MORPH_REDIST_H
#define MORPH_REDIST_H

#include <stddef.h>
#include <stdint.h>

#include <mpi.h>

#include "redist/plan.h"

/*
 * Executes a plan over comm. Elements are `elem_size` bytes described by
 * `type` (a committed datatype of that extent, contiguous). Local slices are
 * memcpy'd; remote slices go point to point with tag `tag`. Returns when all
 * of this process's transfers are done or at `deadline` (a morph__now()
 * value; 0: none), whichever comes first.
 * *bytes_sent (optional) receives the bytes this process sent to others.
 * Errors: MORPH_ETIMEDOUT (deadline passed: the requests are abandoned, not
 * freed, and new_buf is undefined; old_buf is untouched); MORPH_EMPI;
 * MORPH_ENOMEM. old_buf is never written.
 */
int morph__redist_exec(MPI_Comm comm, const morph__plan *plan, const void *old_buf,
                       void *new_buf, size_t elem_size, MPI_Datatype type, int tag,
                       double deadline, int64_t *bytes_sent);

#endif /* MORPH_REDIST_H */
