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

/* The buffers of a transfer, with the parts (part.h) behind them when they
 * are memory files: a receiver on the same host then adopts ranges of the
 * sender's files instead of copying them (local.h), and old_part records
 * what was adopted of it (morph__part_give; trim it at the commit).
 * old_part / new_part may be NULL (plain memory); when set, old_buf /
 * new_buf are their bases. */
typedef struct morph__redist_bufs {
  const void *old_buf;
  void *new_buf;
  struct morph__part *old_part;
  struct morph__part *new_part;
} morph__redist_bufs;

/* morph__redist_exec over parts. On success new_part may hold files of
 * other processes (adopted): free it with morph__part_free as usual.
 * Errors and state left: those of morph__redist_exec. */
int morph__redist_exec_parts(MPI_Comm comm, const morph__plan *plan, const morph__redist_bufs *b,
                             size_t elem_size, MPI_Datatype type, int tag, double deadline,
                             int64_t *bytes_sent);

/*
 * The transfers of one plan once posted (exec.c), for a caller that lets
 * them run while it does other work (async.c). Opaque to callers.
 */
typedef struct morph__redist_xfer morph__redist_xfer;

/*
 * Starts executing a plan and returns without waiting: receives and sends
 * are posted and the local slices copied (exec.c does the same and then
 * waits). Arguments as for morph__redist_exec. The buffers must stay valid,
 * and old_buf unchanged, until morph__redist_finish returns MORPH_OK.
 * MPI progresses the messages inside any MPI call of this process
 * (morph__redist_test, or the application's own communication).
 * Errors: MORPH_EINVAL, MORPH_ENOMEM, MORPH_EMPI; *out is then NULL and
 * requests already posted are abandoned (new_buf must not be freed).
 */
int morph__redist_start(MPI_Comm comm, const morph__plan *plan, const void *old_buf,
                        void *new_buf, size_t elem_size, MPI_Datatype type, int tag,
                        morph__redist_xfer **out);

/* Drives the transfers once (MPI_Testall); *done is 1 when all of this
 * process's are complete. Errors: MORPH_EMPI. */
int morph__redist_test(morph__redist_xfer *x, int *done);

/*
 * Waits for the rest until `deadline` (morph__now() value; 0: none) and
 * frees x. *bytes_sent (optional) as for morph__redist_exec. On
 * MORPH_ETIMEDOUT or MORPH_EMPI the requests are abandoned with their
 * buffers (new_buf must not be freed); x is freed in every case.
 */
int morph__redist_finish(morph__redist_xfer *x, double deadline, int64_t *bytes_sent);

/* Posts a plan's transfers and copies the local slices into x (exec.c);
 * the first half of morph__redist_exec, shared with async.c. */
struct morph__redist_xfer {
  MPI_Comm comm;
  int tag;
  int me;
  int64_t es;
  int64_t remote_bytes; /* bytes this process sends to others */
  MPI_Request *reqs;
  MPI_Status *stats; /* real statuses: MPICH's MPI_STATUSES_IGNORE trips
                        gcc 12's -Wstringop-overflow */
  int nreqs;
  int *seg_len; /* segments of the message being built, in bytes */
  MPI_Aint *seg_disp;
  int nseg;
  int64_t msg_bytes;
};
int morph__redist_post(MPI_Comm comm, const morph__plan *plan, const void *old_buf,
                       void *new_buf, size_t elem_size, MPI_Datatype type, int tag,
                       morph__redist_xfer *x);

/* Frees what morph__redist_post allocated (the requests must be complete
 * or abandoned: their array is freed, not the requests). */
void morph__redist_xfer_free(morph__redist_xfer *x);

#endif /* MORPH_REDIST_H */
