/*
 * Index arithmetic of the distributions. Pure integer code, no MPI: the
 * plan, the runtime and the tests all rely on these two functions agreeing
 * on who owns what.
 */
#include "redist/plan.h"

/* floor(r * G / P) without forming r * G, which overflows int64 for
 * G near 2^40 and P near 2^31: with G = q*P + s, r*G/P = r*q + r*s/P and
 * r*s < P^2 < 2^62. */
static int64_t block_offset(int64_t global, int rank, int nprocs)
{
  int64_t q = global / nprocs, s = global % nprocs;
  return (int64_t)rank * q + ((int64_t)rank * s) / nprocs;
}

/* Number of blocks, rounded up, without the overflow of (G + B - 1) / B. */
static int64_t cyclic_nblocks(const morph__dist *d)
{
  return d->global / d->block + (d->global % d->block != 0);
}

/* Elements of rank r under BLOCK_CYCLIC: all its blocks are full except
 * possibly its last one, which is the global last block if r owns it. */
static int64_t cyclic_count(const morph__dist *d, int rank, int nprocs)
{
  int64_t nblocks = cyclic_nblocks(d);
  if (rank >= nblocks)
    return 0;
  int64_t mine = (nblocks - 1 - rank) / nprocs + 1;
  int64_t last = rank + (mine - 1) * nprocs;
  int64_t last_len = d->global - last * d->block;
  if (last_len > d->block)
    last_len = d->block;
  return (mine - 1) * d->block + last_len;
}

/* Guards the divisions below; morph__plan_build reports bad values as
 * MORPH_EINVAL, these two functions just answer "nothing". */
static int dist_ok(const morph__dist *d, int nprocs)
{
  return d && nprocs >= 1 && d->global >= 0 &&
         (d->kind != MORPH__DIST_BLOCK_CYCLIC || d->block >= 1);
}

int64_t morph__dist_count(const morph__dist *d, int rank, int nprocs)
{
  if (!dist_ok(d, nprocs) || rank < 0 || rank >= nprocs)
    return 0;
  if (d->kind == MORPH__DIST_BLOCK_CYCLIC)
    return cyclic_count(d, rank, nprocs);
  return block_offset(d->global, rank + 1, nprocs) - block_offset(d->global, rank, nprocs);
}

int64_t morph__dist_offset(const morph__dist *d, int rank, int nprocs)
{
  if (!dist_ok(d, nprocs) || rank < 0)
    return 0;
  if (rank >= nprocs)
    return d->global;
  if (d->kind == MORPH__DIST_BLOCK_CYCLIC)
    return rank < cyclic_nblocks(d) ? (int64_t)rank * d->block : d->global;
  return block_offset(d->global, rank, nprocs);
}
