/*
 * libmorph-prof: collectives decomposed into the point-to-point messages of
 * the algorithm assumed for each (docs/prof.md lists them). Pure functions
 * with no MPI, so that tests can check every schedule by hand.
 *
 * Each function calls emit(arg, peer, bytes) once for every message that
 * rank r of a communicator of p processes sends in the collective, peer
 * being a rank of the same communicator. Only the messages r sends are
 * emitted: every rank reports its own, and the sum over ranks is the whole
 * schedule. Zero-byte blocks of the vector variants are not messages; the
 * barrier's zero-byte messages are.
 */
#ifndef MORPH_PROF_COLL_H
#define MORPH_PROF_COLL_H

#include <stdint.h>

typedef void (*morph__coll_emit)(void *arg, int peer, uint64_t bytes);

/* Dissemination barrier: in round k, r sends 0 bytes to r + 2^k (mod p). */
void morph__coll_barrier(int p, int r, morph__coll_emit emit, void *arg);

/* Binomial tree rooted at root: every non-root receives the whole buffer
 * once from its parent and forwards it to its children. */
void morph__coll_bcast(int p, int r, int root, uint64_t bytes, morph__coll_emit emit, void *arg);

/* Binomial tree towards root: every non-root sends the (partially reduced)
 * buffer once to its parent. */
void morph__coll_reduce(int p, int r, int root, uint64_t bytes, morph__coll_emit emit, void *arg);

/* Recursive doubling; when p is not a power of two, the first 2 * (p - 2^k)
 * ranks pair up first (even sends to odd) and the odd ones send the result
 * back at the end (MPICH's allreduce_intra_recursive_doubling). */
void morph__coll_allreduce(int p, int r, uint64_t bytes, morph__coll_emit emit, void *arg);

/* Recursive doubling for scan and exscan: in round k, r sends its partial
 * result to r xor 2^k when that rank exists. */
void morph__coll_scan(int p, int r, uint64_t bytes, morph__coll_emit emit, void *arg);

/* Linear gather: every non-root sends its block straight to root. */
void morph__coll_gather(int p, int r, int root, uint64_t bytes, morph__coll_emit emit, void *arg);

/* Linear scatter: root sends block[j] straight to every j != root. */
void morph__coll_scatter(int p, int r, int root, const uint64_t *block, morph__coll_emit emit,
                         void *arg);

/* Ring allgather: in step s (0 <= s < p - 1), r sends block[(r - s) mod p]
 * to r + 1 (mod p). */
void morph__coll_allgather(int p, int r, const uint64_t *block, morph__coll_emit emit, void *arg);

/* Pairwise exchange (alltoall, alltoallv, alltoallw, and reduce-scatter):
 * r sends to[j] bytes straight to every j != r. */
void morph__coll_pairwise(int p, int r, const uint64_t *to, morph__coll_emit emit, void *arg);

#endif
