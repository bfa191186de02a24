/* Name index of a workload: open addressing on FNV-1a hashes, so that
 * adding 100,000 SWF jobs checks names in constant time each. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "names.h"

typedef struct name_index {
  size_t cap;   /* power of two */
  size_t used;
  long *slot;   /* job index + 1; 0 = empty */
} name_index;

static uint64_t fnv1a(const char *s)
{
  uint64_t h = 1469598103934665603ULL;
  for (; *s; s++)
    h = (h ^ (unsigned char)*s) * 1099511628211ULL;
  return h;
}

void morph__names_free(morph_workload *wl)
{
  name_index *ix = wl->index;
  if (ix)
    free(ix->slot);
  free(ix);
  wl->index = NULL;
}

static int insert(name_index *ix, const morph_workload *wl, size_t job)
{
  size_t mask = ix->cap - 1, i = fnv1a(wl->jobs[job].name) & mask;
  while (ix->slot[i])
    i = (i + 1) & mask;
  ix->slot[i] = (long)job + 1;
  ix->used++;
  return MORPH_OK;
}

/* Rebuilds the index for every job, with room to grow. */
int morph__names_rebuild(morph_workload *wl)
{
  morph__names_free(wl);
  name_index *ix = calloc(1, sizeof *ix);
  size_t cap = 64;
  while (cap < 2 * (wl->njobs + 1))
    cap *= 2;
  if (!ix || !(ix->slot = calloc(cap, sizeof *ix->slot))) {
    free(ix);
    return MORPH_ENOMEM;
  }
  ix->cap = cap;
  wl->index = ix;
  for (size_t j = 0; j < wl->njobs; j++)
    insert(ix, wl, j);
  return MORPH_OK;
}

int morph__names_add(morph_workload *wl, size_t job)
{
  name_index *ix = wl->index;
  if (!ix || 2 * (ix->used + 1) > ix->cap)
    return morph__names_rebuild(wl);
  return insert(ix, wl, job);
}

long morph__names_find(const morph_workload *wl, const char *name)
{
  const name_index *ix = wl->index;
  if (!ix)
    return -2;
  size_t mask = ix->cap - 1, i = fnv1a(name) & mask;
  for (; ix->slot[i]; i = (i + 1) & mask)
    if (!strcmp(wl->jobs[ix->slot[i] - 1].name, name))
      return ix->slot[i] - 1;
  return -1;
}
