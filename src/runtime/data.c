/*
 * Registering data (morph_data_* in morph.h): what follows the processes at
 * a reconfiguration, and where a process's part of it is. Moving it is the
 * mechanisms' work (move.c, relaunch.c) over the redistribution engine.
 */
#include <stdlib.h>
#include <string.h>

#include "runtime/ctx.h"

/* Appends a registration after the checks every kind shares. */
static int add(morph_ctx *ctx, const char *name, enum morph__data_kind kind, MPI_Datatype type,
               morph__data **out)
{
  /* The window's new buffers were sized for the registrations it began
   * with. */
  if (ctx->open)
    return morph__fail(ctx, MORPH_ESTATE, "data '%s' registered inside an adaptation window",
                       name ? name : "");
  if (!name || !*name || strlen(name) >= sizeof ctx->data[0].name)
    return morph__fail(ctx, MORPH_EINVAL, "data name missing or longer than %zu characters",
                       sizeof ctx->data[0].name - 1);
  if (morph__data_find(ctx, name))
    return morph__fail(ctx, MORPH_EEXIST, "data '%s' is already registered", name);
  MPI_Aint lb = 0, extent = 0;
  if (kind != MORPH__DATA_CALLBACKS &&
      (type == MPI_DATATYPE_NULL || MPI_Type_get_extent(type, &lb, &extent) != MPI_SUCCESS ||
       extent <= 0))
    return morph__fail(ctx, MORPH_EINVAL, "data '%s': invalid datatype", name);
  morph__data *d = realloc(ctx->data, (size_t)(ctx->ndata + 1) * sizeof *d);
  if (!d)
    return morph__fail(ctx, MORPH_ENOMEM, "no memory to register '%s'", name);
  ctx->data = d;
  d = &ctx->data[ctx->ndata];
  memset(d, 0, sizeof *d);
  strcpy(d->name, name);
  d->kind = kind;
  /* A copy of the handle, so the caller may free its own at once. */
  if (MPI_Type_dup(type, &d->type) != MPI_SUCCESS)
    return morph__fail(ctx, MORPH_EMPI, "data '%s': cannot copy the datatype", name);
  d->elem_size = (size_t)extent;
  *out = d;
  return MORPH_OK;
}

int morph_data_replicated(morph_ctx *ctx, const char *name, void *buf, int count,
                          MPI_Datatype type)
{
  if (!ctx)
    return MORPH_EINVAL;
  if (!buf || count < 0)
    return morph__fail(ctx, MORPH_EINVAL, "replicated data '%s': NULL buffer or negative count",
                       name ? name : "");
  morph__data *d = NULL;
  int rc = add(ctx, name, MORPH__DATA_REPLICATED, type, &d);
  if (rc != MORPH_OK)
    return rc;
  d->rbuf = buf;
  d->count = count;
  ctx->ndata++;
  return MORPH_OK;
}

int morph__data_alloc(const morph__data *d, int64_t count, void **buf, morph__part **part)
{
  size_t bytes = (size_t)count * d->elem_size;
  *part = NULL;
  *buf = NULL;
  if ((d->kind == MORPH__DATA_BLOCK || d->kind == MORPH__DATA_BLOCK_CYCLIC) &&
      bytes >= MORPH__PART_MIN) {
    int rc = morph__part_new(part, bytes);
    if (rc == MORPH_OK)
      *buf = (*part)->base;
    return rc;
  }
  /* One extra element keeps calloc from returning NULL for empty parts, so
   * NULL always means failure. */
  *buf = calloc((size_t)count + 1, d->elem_size);
  return *buf ? MORPH_OK : MORPH_ENOMEM;
}

void morph__data_release(morph__data *d)
{
  if (d->part)
    morph__part_free(d->part, 0);
  else
    free(*d->ubuf);
  d->part = NULL;
  *d->ubuf = NULL;
}

static int add_distributed(morph_ctx *ctx, const char *name, enum morph__data_kind kind,
                           void **buf, int64_t global, int64_t block, MPI_Datatype type)
{
  if (!ctx)
    return MORPH_EINVAL;
  if (!buf || global < 0 || block < 1)
    return morph__fail(ctx, MORPH_EINVAL, "data '%s': NULL pointer, negative size or block < 1",
                       name ? name : "");
  morph__data *d = NULL;
  int rc = add(ctx, name, kind, type, &d);
  if (rc != MORPH_OK)
    return rc;
  d->ubuf = buf, d->global = global, d->block = block;
  morph__dist dist = morph__data_dist(d);
  d->local = morph__dist_count(&dist, ctx->rank, ctx->size);
  void *part_base = NULL;
  rc = morph__data_alloc(d, d->local, &part_base, &d->part);
  if (rc == MORPH_OK)
    *buf = part_base;
  if (rc != MORPH_OK) {
    MPI_Type_free(&d->type);
    return morph__fail(ctx, MORPH_ENOMEM, "data '%s': cannot allocate %lld elements", name,
                       (long long)d->local);
  }
  ctx->ndata++;
  return MORPH_OK;
}

int morph_data_block(morph_ctx *ctx, const char *name, void **buf, int64_t global,
                     MPI_Datatype type)
{
  return add_distributed(ctx, name, MORPH__DATA_BLOCK, buf, global, 1, type);
}

int morph_data_block_cyclic(morph_ctx *ctx, const char *name, void **buf, int64_t global,
                            int64_t block, MPI_Datatype type)
{
  return add_distributed(ctx, name, MORPH__DATA_BLOCK_CYCLIC, buf, global, block, type);
}

int morph_data_varcount(morph_ctx *ctx, const char *name, void **buf, int64_t *count,
                        MPI_Datatype type)
{
  if (!ctx)
    return MORPH_EINVAL;
  if (!buf || !count || *count < 0)
    return morph__fail(ctx, MORPH_EINVAL, "varcount data '%s': NULL pointer or negative count",
                       name ? name : "");
  morph__data *d = NULL;
  int rc = add(ctx, name, MORPH__DATA_VARCOUNT, type, &d);
  if (rc != MORPH_OK)
    return rc;
  d->ubuf = buf, d->ucount = count;
  ctx->ndata++;
  return MORPH_OK;
}

int morph_data_callbacks(morph_ctx *ctx, const char *name, const morph_callbacks *cb)
{
  if (!ctx)
    return MORPH_EINVAL;
  if (!cb || !cb->pack || !cb->unpack)
    return morph__fail(ctx, MORPH_EINVAL, "callbacks '%s': pack and unpack are required",
                       name ? name : "");
  morph__data *d = NULL;
  int rc = add(ctx, name, MORPH__DATA_CALLBACKS, MPI_BYTE, &d);
  if (rc != MORPH_OK)
    return rc;
  d->cb = *cb;
  ctx->ndata++;
  return MORPH_OK;
}

int morph_data_set_constant(morph_ctx *ctx, const char *name, int constant)
{
  if (!ctx || !name)
    return MORPH_EINVAL;
  if (ctx->open)
    return morph__fail(ctx, MORPH_ESTATE, "morph_data_set_constant('%s') inside an adaptation "
                       "window", name);
  morph__data *d = morph__data_find(ctx, name);
  if (!d)
    return morph__fail(ctx, MORPH_ENOENT, "morph_data_set_constant: no registration '%s'", name);
  if (d->kind == MORPH__DATA_REPLICATED || d->kind == MORPH__DATA_CALLBACKS)
    return morph__fail(ctx, MORPH_EINVAL, "morph_data_set_constant: '%s' is %s data; only block, "
                       "block-cyclic and varcount data move in the background", name,
                       d->kind == MORPH__DATA_REPLICATED ? "replicated" : "callback");
  d->constant = constant != 0;
  return MORPH_OK;
}

int64_t morph_local_count(const morph_ctx *ctx, const char *name)
{
  const morph__data *d = morph__data_find(ctx, name);
  if (!d || d->kind == MORPH__DATA_REPLICATED || d->kind == MORPH__DATA_CALLBACKS)
    return -1;
  return d->kind == MORPH__DATA_VARCOUNT ? *d->ucount : d->local;
}

int64_t morph_local_offset(const morph_ctx *ctx, const char *name)
{
  const morph__data *d = morph__data_find(ctx, name);
  if (!d || d->kind == MORPH__DATA_REPLICATED || d->kind == MORPH__DATA_CALLBACKS)
    return -1;
  if (d->kind != MORPH__DATA_VARCOUNT) {
    morph__dist dist = morph__data_dist(d);
    return morph__dist_offset(&dist, ctx->rank, ctx->size);
  }
  int64_t off = 0, mine = *d->ucount;
  /* Collective for varcount data: its offset depends on the others. */
  MPI_Exscan(&mine, &off, 1, MPI_INT64_T, MPI_SUM, ctx->comm);
  return ctx->rank == 0 ? 0 : off;
}
