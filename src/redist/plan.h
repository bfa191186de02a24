/*
 * The MPI-free half of the redistribution engine: index arithmetic of the
 * distributions and the plan of slices that move between M and N owners.
 * Split from redist.h so that the arithmetic (library morph_redist_index)
 * and its tests build without any MPI; redist.h includes this header, so
 * callers keep including "redist/redist.h" only.
 */
#ifndef MORPH_REDIST_PLAN_H
#define MORPH_REDIST_PLAN_H

#include <stddef.h>
#include <stdint.h>

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

/* Number of elements rank `rank` of `nprocs` owns (BLOCK and BLOCK_CYCLIC;
 * VARCOUNT answers for its new layout, BLOCK of `global`). 0 for a rank
 * outside [0, nprocs). Exact for any global >= 0 (no intermediate product
 * overflows). */
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
 * otherwise, may be NULL); their sum is the global size (d->global is not
 * used). A process with me >= max(old_n, new_n) gets an empty plan.
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

/*
 * The plan of process `me` when the old parts are not on their owners: old
 * part p (what old rank p owned) is held by rank holder[p] of the
 * communicator, and a rank may hold several parts or none. This is where
 * the runtime's callbacks transport leaves data (old rank r's blob goes to
 * new rank r mod N); the DMRlib front-end rebalances it from there.
 *
 * A rank's old buffer is the concatenation of the parts it holds, in
 * increasing p: src_index indexes that concatenation in both lists. Peers
 * are ranks of the communicator: the new owner in the send list, the
 * holder in the receive list. Within a peer, slices come by part, then by
 * index, on both ends, so morph__redist_exec pairs the streams as usual.
 * holder == NULL means holder[p] = p, which is morph__plan_build.
 * Errors: those of morph__plan_build, and MORPH_EINVAL for a negative
 * holder. On error nothing is left allocated.
 */
int morph__plan_build_held(const morph__dist *d, const int64_t *old_counts, int old_n,
                           int new_n, const int *holder, int me, morph__plan *plan);

/*
 * The plan of process `me` when the new parts are not on ranks 0..new_n-1:
 * new part q goes to rank owner[q] of the communicator (distinct ranks in
 * increasing order), while old part p is on rank p. This is a shrink whose
 * leavers are not the highest ranks: the stayers keep their order and are
 * renumbered 0..new_n-1 afterwards. Peers are ranks of the communicator:
 * owners in the send list, old ranks in the receive list. owner[q] == q
 * for every q gives morph__plan_build's plan.
 * Errors: those of morph__plan_build, and MORPH_EINVAL for a NULL,
 * negative or not increasing owner. On error nothing is left allocated.
 */
int morph__plan_build_owned(const morph__dist *d, const int64_t *old_counts, int old_n,
                            int new_n, const int *owner, int me, morph__plan *plan);
void morph__plan_free(morph__plan *plan);

#endif /* MORPH_REDIST_PLAN_H */
