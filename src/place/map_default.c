/* Slurm's default: the first free nodes in node order, rank r on the r-th. */
#include <string.h>

#include "place/map_internal.h"

static int map_default(morph__mapctx *c, int *node)
{
  memcpy(node, c->avail, sizeof(int) * (size_t)c->k);
  return MORPH_OK;
}

const morph__mapper morph__map_default = {"default", map_default};
