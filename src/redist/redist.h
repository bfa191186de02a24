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

enum morph__dist_kind {
  MORPH__DIST_BLOCK,        /* rank r of P owns [r*G/P, (r+1)*G/P) */
  MORPH__DIST_BLOCK_CYCLIC, /* block b of `block` elements -> rank b mod P */
  MORPH__DIST_VARCOUNT      /* arbitrary counts per rank, concatenated in
                               rank order; the new layout is BLOCK */
};

typedef struct morph__dist {
  enum morph__dist_kind kind;
  int64_t global;        /* total number of elements */
  int64_t block;         /* block size (BLOCK_CYCLIC only), >= 1 */
} morph__dist;

/* Number of elements rank `rank` of `nprocs` owns (BLOCK and BLOCK_CYCLIC). */
int64_t morph__dist_count(const morph__dist *d, int rank, int nprocs);

/* Global index of the first element rank `rank` owns (BLOCK), or of its first
 * block (BLOCK_CYCLIC); equals `global` for an empty part at the end. */
int64_t morph__dist_offset(const morph__dist *d, int rank, int nprocs);

/* One contiguous run of elements that moves from an old owner to a new one:
 * `count` elements starting at local index `src_index` in the sender's old
 * part, landing at local index `dst_index` in the receiver's new part. */
typedef struct morph__slice {
  int peer;          /* the other side: new rank (send list) or old rank
                        (receive list) */
  int64_t src_index;
  int64_t dst_index;
  int64_t count;
} morph__slice;

/*
 * The plan of one process: the slices it sends (as old rank `me`, if
 * me < old_n) and receives (as new rank `me`, if me < new_n), each list
 * sorted by peer then index. Slices with peer == me are local copies.
 * For VARCOUNT, `old_counts` gives the M old local lengths (ignored
 * otherwise, may be NULL).
 * Errors: MORPH_EINVAL (bad sizes), MORPH_ENOMEM. On error nothing is left
 * allocated.
 */
typedef struct morph__plan {
  morph__slice *send;
  size_t nsend;
  morph__slice *recv;
  size_t nrecv;
  int64_t new_count; /* local length of this process's new part (0 if not a
                        new owner) */
} morph__plan;

int morph__plan_build(const morph__dist *d, const int64_t *old_counts, int old_n, int new_n,
                      int me, morph__plan *plan);
void morph__plan_free(morph__plan *plan);

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
