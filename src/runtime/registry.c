/*
 * What the runtime knows about a registration, for every file that moves
 * data: lookup by name, the signature processes compare before anything
 * moves, and the distribution the redistribution engine works with.
 */
#include <string.h>

#include "runtime/ctx.h"

morph__data *morph__data_find(const morph_ctx *ctx, const char *name)
{
  for (int i = 0; i < ctx->ndata; i++)
    if (!strcmp(ctx->data[i].name, name))
      return &ctx->data[i];
  return NULL;
}

morph__dist morph__data_dist(const morph__data *d)
{
  morph__dist dist = {MORPH__DIST_BLOCK, d->global, 1};
  if (d->kind == MORPH__DATA_BLOCK_CYCLIC)
    dist.kind = MORPH__DIST_BLOCK_CYCLIC, dist.block = d->block;
  else if (d->kind == MORPH__DATA_VARCOUNT)
    dist.kind = MORPH__DIST_VARCOUNT;
  return dist;
}

static uint64_t mix(uint64_t h, uint64_t x)
{
  h ^= x + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return h;
}

uint64_t morph__data_signature(const morph_ctx *ctx)
{
  uint64_t h = (uint64_t)ctx->ndata;
  for (int i = 0; i < ctx->ndata; i++) {
    const morph__data *d = &ctx->data[i];
    for (const char *c = d->name; *c; c++)
      h = mix(h, (uint64_t)(unsigned char)*c);
    h = mix(h, (uint64_t)d->kind);
    h = mix(h, (uint64_t)d->elem_size);
    h = mix(h, (uint64_t)d->global);
    h = mix(h, (uint64_t)d->block);
    h = mix(h, (uint64_t)d->count);
    h = mix(h, (uint64_t)d->constant);
  }
  return h;
}
