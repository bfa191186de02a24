/*
 * The relaunch mechanism's data movement: every process writes its
 * registered data to one checkpoint in global order (MPI-IO, or POSIX I/O
 * after a hung spawn), and each process of the relaunched job reads its
 * part for the new size.
 *
 * File layout (all integers little-endian int64 as written by this host):
 *   head     magic "MORPHCK1", version, iteration, seq, old size, ndata
 *   entries  ndata descriptors (name, kind, element size, global size,
 *            block, count, section offset, section length)
 *   sections per registration, in registration order:
 *     replicated   count elements
 *     block        global elements in global order
 *     block-cyclic global elements in global order
 *     varcount     old-size counts, then the elements in rank order
 *     callbacks    old-size blob lengths, then the blobs in rank order
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"
#include "redist/plan.h"
#include "runtime/checkpoint.h"
#include "runtime/wait.h"

#define MAGIC "MORPHCK1"
#define CHUNK ((int64_t)1 << 30)

typedef struct ckpt_head {
  char magic[8];
  int64_t version, iteration, seq, old_size, ndata;
} ckpt_head;

typedef struct ckpt_entry {
  char name[64];
  int64_t kind, elem_size, global, block, count, offset, length;
} ckpt_entry;

/*
 * The checkpoint file: MPI-IO normally. After a spawn hung inside Open MPI
 * the job should create no communicators any more (the stuck spawn may
 * hold that machinery; seen here: a relaunch after a real PMIx spawn hang
 * stalled in its checkpoint on one rank), so the same layout is written
 * with POSIX I/O instead (fd >= 0).
 */
typedef struct ckpt_file {
  MPI_File fh;
  int fd;
  char why[160]; /* the first failure's reason */
} ckpt_file;

static int posix_bytes(ckpt_file *f, int64_t off, char *p, int64_t len, int write)
{
  for (int64_t done = 0; done < len;) {
    ssize_t n = write ? pwrite(f->fd, p + done, (size_t)(len - done), (off_t)(off + done))
                      : pread(f->fd, p + done, (size_t)(len - done), (off_t)(off + done));
    if (n <= 0) {
      if (!f->why[0])
        snprintf(f->why, sizeof f->why, "%s", n < 0 ? strerror(errno) : "end of file");
      return MORPH_EIO;
    }
    done += n;
  }
  return MORPH_OK;
}

/* MPI-IO's reason for a failed call, kept with the file. */
static int mpi_failed(ckpt_file *f, int rc)
{
  int len = 0;
  char text[MPI_MAX_ERROR_STRING];
  if (!f->why[0] && MPI_Error_string(rc, text, &len) == MPI_SUCCESS)
    snprintf(f->why, sizeof f->why, "%.150s", text);
  return MORPH_EIO;
}

/* Writes or reads len bytes at off, in pieces MPI's int counts can take. */
static int io_bytes(ckpt_file *f, int64_t off, void *buf, int64_t len, int write)
{
  if (f->fd >= 0)
    return posix_bytes(f, off, buf, len, write);
  for (int64_t done = 0; done < len; done += CHUNK) {
    int n = (int)(len - done < CHUNK ? len - done : CHUNK);
    char *p = (char *)buf + done;
    int rc = write ? MPI_File_write_at(f->fh, off + done, p, n, MPI_BYTE, MPI_STATUS_IGNORE)
                   : MPI_File_read_at(f->fh, off + done, p, n, MPI_BYTE, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS)
      return mpi_failed(f, rc);
  }
  return MORPH_OK;
}

/* Opens the checkpoint. Collective over ctx->comm. A write keeps the
 * space reserved for it (ckptspace.c). */
static int ckpt_open(morph_ctx *ctx, const char *path, int write, ckpt_file *f)
{
  f->fd = -1;
  f->why[0] = '\0';
  if (!ctx->spawn_hung) {
    int mode = write ? MPI_MODE_CREATE | MPI_MODE_WRONLY : MPI_MODE_RDONLY;
    int rc = MPI_File_open(ctx->comm, path, mode, MPI_INFO_NULL, &f->fh);
    return rc == MPI_SUCCESS ? MORPH_OK : mpi_failed(f, rc);
  }
  /* Rank 0 made the file (ckptspace.c, O_EXCL); it opens it before the
   * others, never through a link. */
  int rc = MORPH_OK, flags = O_WRONLY | O_NOFOLLOW | O_CLOEXEC;
  if (ctx->rank == 0 && (f->fd = open(path, flags)) < 0)
    rc = MORPH_EIO;
  rc = morph__agree(ctx, ctx->comm, rc, morph__now() + ctx->opts.step_timeout);
  if (rc == MORPH_OK && ctx->rank != 0 && (f->fd = open(path, flags)) < 0)
    rc = MORPH_EIO;
  return rc;
}

static int ckpt_close(ckpt_file *f)
{
  if (f->fd >= 0)
    return close(f->fd) == 0 ? MORPH_OK : MORPH_EIO;
  return MPI_File_close(&f->fh) == MPI_SUCCESS ? MORPH_OK : MORPH_EIO;
}

/* Block-cyclic: the local blocks of `rank` of `P` one by one, in order. */
static int io_cyclic(ckpt_file *fh, int64_t base, const morph__data *d, void *buf, int rank, int P,
                     int write)
{
  int64_t nblocks = (d->global + d->block - 1) / d->block, local = 0;
  for (int64_t b = rank; b < nblocks; b += P) {
    int64_t first = b * d->block, n = d->global - first < d->block ? d->global - first : d->block;
    int64_t sz = (int64_t)d->elem_size;
    int rc = io_bytes(fh, base + first * sz, (char *)buf + local * sz, n * sz, write);
    if (rc != MORPH_OK)
      return rc;
    local += n;
  }
  return MORPH_OK;
}

/* This process's part of a block or block-cyclic registration, at its
 * place in the registration's section. */
static int io_distributed(morph_ctx *ctx, ckpt_file *fh, const morph__data *d,
                          const ckpt_entry *e, int write)
{
  if (d->kind == MORPH__DATA_BLOCK_CYCLIC)
    return io_cyclic(fh, e->offset, d, *d->ubuf, ctx->rank, ctx->size, write);
  morph__dist dist = morph__data_dist(d);
  int64_t first = morph__dist_offset(&dist, ctx->rank, ctx->size), sz = e->elem_size;
  return io_bytes(fh, e->offset + first * sz, *d->ubuf, d->local * sz, write);
}

/* Per-rank sizes every process needs to lay the file out: varcount counts
 * and callback blob lengths, gathered in rank order. */
typedef struct ckpt_layout {
  ckpt_entry *e;
  int64_t **per_rank; /* per registration: old-size values, or NULL */
  void **blobs;       /* per registration: this process's packed blob */
  int64_t end;
} ckpt_layout;

static void layout_free(ckpt_layout *l, int ndata)
{
  for (int i = 0; i < ndata; i++) {
    if (l->per_rank)
      free(l->per_rank[i]);
    if (l->blobs)
      free(l->blobs[i]);
  }
  free(l->per_rank);
  free(l->blobs);
  free(l->e);
}

static int64_t section_length(const morph__data *d, const int64_t *per_rank, int P)
{
  int64_t sz = (int64_t)d->elem_size, sum = 0;
  switch (d->kind) {
  case MORPH__DATA_REPLICATED:
    return d->count * sz;
  case MORPH__DATA_BLOCK:
  case MORPH__DATA_BLOCK_CYCLIC:
    return d->global * sz;
  default:
    for (int r = 0; r < P; r++)
      sum += per_rank[r];
    return (int64_t)P * 8 + sum * (d->kind == MORPH__DATA_VARCOUNT ? sz : 1);
  }
}

/*
 * The per-rank sizes, gathered without blocking and waited for by polling
 * until the step time limit. After a spawn abandoned inside Open MPI 4.1,
 * that thread owns the progress engine (stuck in PMIx_Lookup inside
 * opal_progress, where only the first waiting thread drives progress): a
 * blocking collective sleeps until Open MPI's own time-out (measured:
 * 271-291 s), while a thread that polls MPI_Testall drives progress itself.
 * After a timeout the buffer belongs to MPI and is leaked.
 */
static int gather_sizes(morph_ctx *ctx, ckpt_layout *l, int i)
{
  morph__data *d = &ctx->data[i];
  int64_t mine = 0;
  if (d->kind == MORPH__DATA_VARCOUNT)
    mine = *d->ucount;
  else if (d->kind == MORPH__DATA_CALLBACKS) {
    size_t n = 0;
    int rc = d->cb.pack(d->cb.arg, &l->blobs[i], &n);
    if (rc != MORPH_OK)
      return rc;
    mine = (int64_t)n;
  } else
    return MORPH_OK;
  int64_t *all = malloc((size_t)(ctx->size + 1) * sizeof(int64_t));
  if (!all)
    return MORPH_ENOMEM;
  all[ctx->size] = mine;
  MPI_Request req;
  int rc = MPI_Iallgather(all + ctx->size, 1, MPI_INT64_T, all, 1, MPI_INT64_T, ctx->comm, &req) ==
                   MPI_SUCCESS
             ? morph__wait_all(1, &req, morph__now() + ctx->opts.step_timeout)
             : MORPH_EMPI;
  if (rc == MORPH_OK)
    l->per_rank[i] = all;
  else if (rc != MORPH_ETIMEDOUT)
    free(all);
  return rc;
}

static int build_layout(morph_ctx *ctx, ckpt_layout *l)
{
  int n = ctx->ndata, rc = MORPH_OK;
  l->e = calloc((size_t)n + 1, sizeof *l->e);
  l->per_rank = calloc((size_t)n + 1, sizeof *l->per_rank);
  l->blobs = calloc((size_t)n + 1, sizeof *l->blobs);
  if (!l->e || !l->per_rank || !l->blobs)
    return MORPH_ENOMEM;
  int64_t off = (int64_t)sizeof(ckpt_head) + (int64_t)n * (int64_t)sizeof(ckpt_entry);
  for (int i = 0; i < n && rc == MORPH_OK; i++) {
    const morph__data *d = &ctx->data[i];
    rc = gather_sizes(ctx, l, i);
    ckpt_entry *e = &l->e[i];
    memcpy(e->name, d->name, sizeof e->name);
    e->kind = d->kind, e->elem_size = (int64_t)d->elem_size, e->global = d->global;
    e->block = d->block, e->count = d->count, e->offset = off;
    e->length = rc == MORPH_OK ? section_length(d, l->per_rank[i], ctx->size) : 0;
    off += e->length;
  }
  l->end = off;
  return rc;
}

static int64_t prefix(const int64_t *v, int r)
{
  int64_t s = 0;
  for (int q = 0; q < r; q++)
    s += v[q];
  return s;
}

static int write_section(morph_ctx *ctx, ckpt_file *fh, const ckpt_layout *l, int i)
{
  morph__data *d = &ctx->data[i];
  const ckpt_entry *e = &l->e[i];
  int64_t sz = e->elem_size, P = ctx->size, r = ctx->rank;
  switch (d->kind) {
  case MORPH__DATA_REPLICATED:
    return r == 0 ? io_bytes(fh, e->offset, d->rbuf, e->length, 1) : MORPH_OK;
  case MORPH__DATA_BLOCK:
  case MORPH__DATA_BLOCK_CYCLIC:
    return io_distributed(ctx, fh, d, e, 1);
  default: {
    const int64_t *v = l->per_rank[i];
    int rc = r == 0 ? io_bytes(fh, e->offset, (void *)v, P * 8, 1) : MORPH_OK;
    int64_t unit = d->kind == MORPH__DATA_VARCOUNT ? sz : 1;
    void *src = d->kind == MORPH__DATA_VARCOUNT ? *d->ubuf : l->blobs[i];
    return rc != MORPH_OK ? rc
                          : io_bytes(fh, e->offset + P * 8 + prefix(v, (int)r) * unit, src,
                                     v[r] * unit, 1);
  }
  }
}

int morph__ckpt_write(morph_ctx *ctx, morph__window *w)
{
  ckpt_layout l;
  memset(&l, 0, sizeof l);
  int rc = build_layout(ctx, &l);
  ckpt_file f, *fh = &f;
  if (rc == MORPH_OK)
    rc = ckpt_open(ctx, w->checkpoint, 1, fh);
  if (rc != MORPH_OK) {
    layout_free(&l, ctx->ndata);
    return rc;
  }
  ckpt_head h = {{0}, 1, w->iteration, w->seq, ctx->size, ctx->ndata};
  memcpy(h.magic, MAGIC, 8);
  if (ctx->rank == 0) {
    rc = io_bytes(fh, 0, &h, sizeof h, 1);
    if (rc == MORPH_OK)
      rc = io_bytes(fh, sizeof h, l.e, (int64_t)ctx->ndata * (int64_t)sizeof *l.e, 1);
  }
  for (int i = 0; i < ctx->ndata && rc == MORPH_OK; i++)
    rc = write_section(ctx, fh, &l, i);
  if (ckpt_close(fh) != MORPH_OK && rc == MORPH_OK)
    rc = MORPH_EIO;
  if (rc == MORPH_EIO)
    snprintf(w->why, sizeof w->why, "writing the checkpoint %.120s failed: %.100s", w->checkpoint,
             f.why[0] ? f.why : "an I/O error");
  w->bytes = ctx->rank == 0 ? l.end : 0; /* the file, once */
  layout_free(&l, ctx->ndata);
  return rc;
}

/* Reads the head and entries (every process; the file is small there). */
static int read_head(morph_ctx *ctx, const char *path, ckpt_file *fh, ckpt_head *h,
                     ckpt_entry **entries)
{
  if (io_bytes(fh, 0, h, sizeof *h, 0) != MORPH_OK || memcmp(h->magic, MAGIC, 8) != 0 ||
      h->version != 1 || h->ndata < 0 || h->ndata > 100000)
    return morph__fail(ctx, MORPH_EIO, "%s is not a morph checkpoint", path);
  *entries = calloc((size_t)h->ndata + 1, sizeof **entries);
  if (!*entries)
    return MORPH_ENOMEM;
  if (io_bytes(fh, sizeof *h, *entries, h->ndata * (int64_t)sizeof **entries, 0) != MORPH_OK)
    return morph__fail(ctx, MORPH_EIO, "cannot read the entries of %s", path);
  return MORPH_OK;
}

static int entry_matches(const morph__data *d, const ckpt_entry *e)
{
  return !strncmp(d->name, e->name, sizeof e->name) && e->kind == d->kind &&
         e->elem_size == (int64_t)d->elem_size &&
         (d->kind == MORPH__DATA_VARCOUNT || d->kind == MORPH__DATA_CALLBACKS ||
          (e->global == d->global && e->block == d->block && e->count == d->count));
}

static int read_table(ckpt_file *fh, const ckpt_entry *e, int64_t old_size, int64_t **out)
{
  *out = malloc((size_t)old_size * sizeof **out);
  return *out ? io_bytes(fh, e->offset, *out, old_size * 8, 0) : MORPH_ENOMEM;
}

static int restore_varcount(morph_ctx *ctx, ckpt_file *fh, morph__data *d, const ckpt_entry *e,
                            int64_t old_size)
{
  int64_t *counts;
  int rc = read_table(fh, e, old_size, &counts);
  int64_t total = rc == MORPH_OK ? prefix(counts, (int)old_size) : 0;
  free(counts);
  if (rc != MORPH_OK)
    return rc;
  morph__dist dist = {MORPH__DIST_BLOCK, total, 1};
  int64_t n = morph__dist_count(&dist, ctx->rank, ctx->size);
  int64_t first = morph__dist_offset(&dist, ctx->rank, ctx->size), sz = e->elem_size;
  void *buf = malloc((size_t)(n + 1) * (size_t)sz);
  if (!buf)
    return MORPH_ENOMEM;
  free(*d->ubuf);
  *d->ubuf = buf;
  *d->ucount = n;
  return io_bytes(fh, e->offset + old_size * 8 + first * sz, buf, n * sz, 0);
}

static int restore_callbacks(morph_ctx *ctx, ckpt_file *fh, morph__data *d, const ckpt_entry *e,
                             int64_t old_size)
{
  int64_t *lens;
  int rc = read_table(fh, e, old_size, &lens);
  int nb = 0, cap = (int)(old_size / ctx->size) + 1;
  void **blobs = calloc((size_t)cap, sizeof *blobs);
  size_t *blen = calloc((size_t)cap, sizeof *blen);
  if (!blobs || !blen)
    rc = MORPH_ENOMEM;
  for (int64_t q = ctx->rank; rc == MORPH_OK && q < old_size; q += ctx->size, nb++) {
    blobs[nb] = malloc((size_t)lens[q] + 1);
    blen[nb] = (size_t)lens[q];
    rc = blobs[nb] ? io_bytes(fh, e->offset + old_size * 8 + prefix(lens, (int)q), blobs[nb],
                              lens[q], 0)
                   : MORPH_ENOMEM;
  }
  if (rc == MORPH_OK)
    rc = d->cb.unpack(d->cb.arg, nb, blobs, blen);
  for (int k = 0; k < nb; k++)
    free(blobs[k]);
  free(blobs);
  free(blen);
  free(lens);
  return rc;
}

static int restore_one(morph_ctx *ctx, ckpt_file *fh, morph__data *d, const ckpt_entry *e,
                       int64_t old_size)
{
  switch (d->kind) {
  case MORPH__DATA_REPLICATED:
    return io_bytes(fh, e->offset, d->rbuf, e->length, 0);
  case MORPH__DATA_BLOCK:
  case MORPH__DATA_BLOCK_CYCLIC:
    return io_distributed(ctx, fh, d, e, 0);
  case MORPH__DATA_VARCOUNT:
    return restore_varcount(ctx, fh, d, e, old_size);
  default:
    return restore_callbacks(ctx, fh, d, e, old_size);
  }
}

static int restore_all(morph_ctx *ctx, const char *path, ckpt_file *fh, const ckpt_head *h,
                       const ckpt_entry *e)
{
  if (h->ndata != ctx->ndata)
    return morph__fail(ctx, MORPH_EMISMATCH, "the checkpoint holds %lld registrations, the "
                       "program registered %d", (long long)h->ndata, ctx->ndata);
  for (int i = 0; i < ctx->ndata; i++) {
    if (!entry_matches(&ctx->data[i], &e[i]))
      return morph__fail(ctx, MORPH_EMISMATCH, "registration %d ('%s') differs from the "
                         "checkpoint's ('%.64s')", i, ctx->data[i].name, e[i].name);
    int rc = restore_one(ctx, fh, &ctx->data[i], &e[i], h->old_size);
    if (rc != MORPH_OK)
      return morph__fail(ctx, rc, "restoring '%s' from %s failed", ctx->data[i].name, path);
  }
  return MORPH_OK;
}

/* Opens a checkpoint and reads its head and entries; with `restore`, also
 * every registration's part for the current size. */
static int read_checkpoint(morph_ctx *ctx, const char *path, int restore, morph__ckpt_info *info)
{
  ckpt_file f;
  if (ckpt_open(ctx, path, 0, &f) != MORPH_OK)
    return morph__fail(ctx, MORPH_EIO, "cannot open the checkpoint %s", path);
  ckpt_head h;
  ckpt_entry *e = NULL;
  int rc = read_head(ctx, path, &f, &h, &e);
  if (rc == MORPH_OK && restore)
    rc = restore_all(ctx, path, &f, &h, e);
  ckpt_close(&f);
  free(e);
  if (rc == MORPH_OK)
    *info = (morph__ckpt_info){h.iteration, h.seq, h.old_size};
  return rc;
}

int morph__ckpt_peek(morph_ctx *ctx, const char *path, morph__ckpt_info *info)
{
  return read_checkpoint(ctx, path, 0, info);
}

int morph__ckpt_restore(morph_ctx *ctx, const char *path, morph__ckpt_info *info)
{
  return read_checkpoint(ctx, path, 1, info);
}
