/* Collective schedules as point-to-point messages (see coll.h). */
#include "prof/coll.h"

void morph__coll_barrier(int p, int r, morph__coll_emit emit, void *arg)
{
  for (int mask = 1; mask < p; mask <<= 1)
    emit(arg, (r + mask) % p, 0);
}

/* Ranks relative to the root, as the binomial trees number them. */
static int rel(int p, int r, int root) { return (r - root + p) % p; }

void morph__coll_bcast(int p, int r, int root, uint64_t bytes, morph__coll_emit emit, void *arg)
{
  int vr = rel(p, r, root), mask = 1;
  /* The lowest set bit of vr is the edge to the parent; children hang
   * below it (the root's below p). */
  while (mask < p && !(vr & mask))
    mask <<= 1;
  for (mask >>= 1; mask > 0; mask >>= 1)
    if (vr + mask < p)
      emit(arg, (vr + mask + root) % p, bytes);
}

void morph__coll_reduce(int p, int r, int root, uint64_t bytes, morph__coll_emit emit, void *arg)
{
  int vr = rel(p, r, root);
  if (vr == 0)
    return;
  int mask = vr & -vr; /* the parent clears the lowest set bit */
  emit(arg, (vr - mask + root) % p, bytes);
}

static int floor_pow2(int p)
{
  int k = 1;
  while (k * 2 <= p)
    k *= 2;
  return k;
}

void morph__coll_allreduce(int p, int r, uint64_t bytes, morph__coll_emit emit, void *arg)
{
  int pof2 = floor_pow2(p), rem = p - pof2, newrank;
  if (r < 2 * rem) {
    if (r % 2 == 0) {
      emit(arg, r + 1, bytes); /* hands its data to its odd partner, waits */
      return;
    }
    newrank = r / 2;
  } else {
    newrank = r - rem;
  }
  for (int mask = 1; mask < pof2; mask <<= 1) {
    int nd = newrank ^ mask;
    emit(arg, nd < rem ? nd * 2 + 1 : nd + rem, bytes);
  }
  if (r < 2 * rem)
    emit(arg, r - 1, bytes); /* the result back to the even partner */
}

void morph__coll_scan(int p, int r, uint64_t bytes, morph__coll_emit emit, void *arg)
{
  for (int mask = 1; mask < p; mask <<= 1)
    if ((r ^ mask) < p)
      emit(arg, r ^ mask, bytes);
}

void morph__coll_gather(int p, int r, int root, uint64_t bytes, morph__coll_emit emit, void *arg)
{
  (void)p;
  if (r != root && bytes > 0)
    emit(arg, root, bytes);
}

void morph__coll_scatter(int p, int r, int root, const uint64_t *block, morph__coll_emit emit,
                         void *arg)
{
  if (r != root)
    return;
  for (int j = 0; j < p; j++)
    if (j != root && block[j] > 0)
      emit(arg, j, block[j]);
}

void morph__coll_allgather(int p, int r, const uint64_t *block, morph__coll_emit emit, void *arg)
{
  for (int s = 0; s < p - 1; s++) {
    uint64_t b = block[((r - s) % p + p) % p];
    if (b > 0)
      emit(arg, (r + 1) % p, b);
  }
}

void morph__coll_pairwise(int p, int r, const uint64_t *to, morph__coll_emit emit, void *arg)
{
  for (int j = 0; j < p; j++)
    if (j != r && to[j] > 0)
      emit(arg, j, to[j]);
}
