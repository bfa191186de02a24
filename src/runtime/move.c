/*
 * In-memory movement of registered data inside a live adaptation window.
 * Everything lands in new buffers: the old ones stay untouched until the
 * commit, which is what makes a rollback possible.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "common/clock.h"
#include "redist/redist.h"
#include "runtime/move.h"
#include "runtime/wait.h"

#define TAG_DATA 7301
#define TAG_BLOB_LEN 7302
#define TAG_BLOB 7303

/* Blobs of callback data received by one new rank, in old-rank order.
 * len64 is the receive buffer of the lengths (heap: see gather_counts). */
typedef struct blobset {
  int n;
  void **blobs;
  size_t *lens;
  int64_t *len64;
} blobset;

static void blobset_free(blobset *b)
{
  for (int i = 0; b && i < b->n; i++)
    free(b->blobs[i]);
  if (b) {
    free(b->blobs);
    free(b->lens);
    free(b->len64);
    free(b);
  }
}

int morph__window_nonstay(const morph__window *w, int p)
{
  return p >= w->nonstay_lo && p < w->nonstay_hi && (!w->stay || morph__window_new_rank(w, p) < 0);
}

int morph__window_new_rank(const morph__window *w, int p)
{
  if (!w->stay)
    return p < w->new_size ? p : -1;
  for (int q = 0; q < w->new_size; q++)
    if (w->stay[q] == p)
      return q;
  return -1;
}

static int move_replicated(morph__data *d, morph__window *w, int me, double deadline)
{
  MPI_Request req;
  if (MPI_Ibcast(d->rbuf, d->count, d->type, 0, w->newcomm, &req) != MPI_SUCCESS)
    return MORPH_EMPI;
  /* Only the joiners get anything new. */
  if (me >= w->old_size)
    w->bytes += (int64_t)d->count * (int64_t)d->elem_size;
  return morph__wait_all(1, &req, deadline);
}

/* Old local lengths of a varcount registration, gathered from the old
 * owners (ranks 0..old_size-1 of comm). The buffers are on the heap and
 * leaked after a timeout: every buffer of a request that may be abandoned
 * must outlive it. */
static int gather_counts(const morph__data *d, MPI_Comm comm, int me, int old_size,
                         double deadline, int64_t **out)
{
  int P;
  MPI_Comm_size(comm, &P);
  int64_t *all = malloc((size_t)(P + 1) * sizeof *all);
  if (!all)
    return MORPH_ENOMEM;
  all[P] = me < old_size ? *d->ucount : 0;
  MPI_Request req;
  if (MPI_Iallgather(&all[P], 1, MPI_INT64_T, all, 1, MPI_INT64_T, comm, &req) != MPI_SUCCESS) {
    free(all);
    return MORPH_EMPI;
  }
  int rc = morph__wait_all(1, &req, deadline);
  if (rc == MORPH_OK)
    *out = all;
  else if (rc != MORPH_ETIMEDOUT)
    free(all);
  return rc;
}

/*
 * A new local part. Writing new memory costs a page fault per page, which
 * dominates the transfer: transparent huge pages doubled first-touch
 * bandwidth on our machines (1.4 -> 3.0 GB/s), and populating the whole
 * part in one call (MADV_POPULATE_WRITE, Linux 5.14) instead of fault by
 * fault added about half again (bench/runtime/bench-local.c,
 * docs/performance.md). Where the call is not known the transfer faults
 * the pages in as before.
 */
static void *alloc_part(size_t bytes)
{
  const size_t huge = (size_t)2 << 20;
  if (bytes < 4 * huge)
    return malloc(bytes);
  void *p = NULL;
  if (posix_memalign(&p, huge, bytes) != 0)
    return NULL;
  madvise(p, bytes, MADV_HUGEPAGE);
  madvise(p, bytes & ~(size_t)4095, MADV_POPULATE_WRITE);
  return p;
}

/* The new local part of registration d: memory files (block and
 * block-cyclic, large: data.c), which the same-host path can fill by
 * adopting whole files instead of copying, and which it populates where it
 * copies; otherwise plain memory, populated at once (alloc_part). */
static int new_part(const morph__data *d, int64_t count, void **buf, morph__part **part)
{
  if (d->kind != MORPH__DATA_VARCOUNT)
    return morph__data_alloc(d, count, buf, part);
  *part = NULL;
  *buf = alloc_part(((size_t)count + 1) * d->elem_size);
  return *buf ? MORPH_OK : MORPH_ENOMEM;
}

/* Bytes a plan brings to this process from the others. */
static int64_t received(const morph__plan *plan, int me, size_t elem_size)
{
  int64_t n = 0;
  for (size_t k = 0; k < plan->nrecv; k++)
    if (plan->recv[k].peer != me)
      n += plan->recv[k].count;
  return n * (int64_t)elem_size;
}

int morph__data_plan(const morph__data *d, morph__window *w, int me, int i, double deadline,
                     morph__plan *plan)
{
  int64_t *counts = NULL;
  int rc = MORPH_OK;
  if (d->kind == MORPH__DATA_VARCOUNT)
    rc = gather_counts(d, w->newcomm, me, w->old_size, deadline, &counts);
  if (rc != MORPH_OK)
    return rc;
  morph__dist dist = morph__data_dist(d);
  rc = w->stay ? morph__plan_build_owned(&dist, counts, w->old_size, w->new_size, w->stay, me,
                                         plan)
               : morph__plan_build(&dist, counts, w->old_size, w->new_size, me, plan);
  free(counts);
  if (rc != MORPH_OK)
    return rc;
  if (new_part(d, plan->new_count, &w->newbufs[i], &w->newparts[i]) != MORPH_OK) {
    morph__plan_free(plan);
    return MORPH_ENOMEM;
  }
  w->newcounts[i] = plan->new_count;
  w->bytes += received(plan, me, d->elem_size);
  return MORPH_OK;
}

static int move_distributed(morph__data *d, morph__window *w, int me, int i, double deadline)
{
  morph__plan plan;
  int rc = morph__data_plan(d, w, me, i, deadline, &plan);
  if (rc != MORPH_OK)
    return rc;
  int old = me < w->old_size;
  morph__redist_bufs b = {old ? *d->ubuf : NULL, w->newbufs[i], old ? d->part : NULL,
                          w->newparts[i]};
  rc = morph__redist_exec_parts(w->newcomm, &plan, &b, d->elem_size, d->type, TAG_DATA + i,
                                deadline, NULL);
  morph__plan_free(&plan);
  return rc;
}

/* Callback data: a staying process keeps its own blob; the k-th of the
 * others (leavers, in rank order) goes to new rank k mod N. When the
 * highest ranks leave this is old rank r -> new rank r mod N. Returns the
 * rank of w->newcomm that receives old rank r's blob. */
static int blob_owner(const morph__window *w, int r)
{
  int q = morph__window_new_rank(w, r);
  if (q >= 0)
    return r;
  int k = 0;
  for (int p = 0; p < r; p++)
    k += morph__window_new_rank(w, p) < 0;
  q = k % w->new_size;
  return w->stay ? w->stay[q] : q;
}

/* `len` is on the heap (see gather_counts). */
static int send_blob(morph__data *d, morph__window *w, int me, MPI_Request *reqs, int *nreq,
                     void **blob, int64_t *len)
{
  size_t n = 0;
  int rc = d->cb.pack(d->cb.arg, blob, &n);
  if (rc != MORPH_OK)
    return rc;
  *len = (int64_t)n;
  int dst = blob_owner(w, me);
  MPI_Isend(len, 1, MPI_INT64_T, dst, TAG_BLOB_LEN, w->newcomm, &reqs[(*nreq)++]);
  MPI_Isend(*blob, (int)n, MPI_BYTE, dst, TAG_BLOB, w->newcomm, &reqs[(*nreq)++]);
  return MORPH_OK;
}

/* Receives the blobs of srcs[0..b->n) in that order. */
static int recv_blob_list(morph__window *w, int me, blobset *b, const int *srcs, double deadline)
{
  for (int k = 0; k < b->n; k++) {
    int src = srcs[k];
    MPI_Request req;
    MPI_Irecv(&b->len64[k], 1, MPI_INT64_T, src, TAG_BLOB_LEN, w->newcomm, &req);
    int rc = morph__wait_all(1, &req, deadline);
    if (rc == MORPH_OK && !(b->blobs[k] = malloc((size_t)b->len64[k] + 1)))
      rc = MORPH_ENOMEM;
    if (rc == MORPH_OK)
      MPI_Irecv(b->blobs[k], (int)b->len64[k], MPI_BYTE, src, TAG_BLOB, w->newcomm, &req);
    if (rc == MORPH_OK)
      rc = morph__wait_all(1, &req, deadline);
    if (rc != MORPH_OK)
      return rc;
    b->lens[k] = (size_t)b->len64[k];
    w->bytes += src == me ? 0 : b->len64[k];
  }
  return MORPH_OK;
}

/* The old ranks whose blobs process `me` receives: its own first, then
 * the others in rank order. Returns how many (written to src). */
static int blob_sources(const morph__window *w, int me, int *src)
{
  int n = 0;
  if (me < w->old_size && blob_owner(w, me) == me)
    src[n++] = me;
  for (int r = 0; r < w->old_size; r++)
    if (r != me && blob_owner(w, r) == me)
      src[n++] = r;
  return n;
}

static int recv_blobs(morph__window *w, int me, blobset *b, double deadline)
{
  int *srcs = malloc((size_t)w->old_size * sizeof *srcs);
  if (!srcs)
    return MORPH_ENOMEM;
  b->n = blob_sources(w, me, srcs);
  b->blobs = calloc((size_t)b->n + 1, sizeof *b->blobs);
  b->lens = calloc((size_t)b->n + 1, sizeof *b->lens);
  b->len64 = calloc((size_t)b->n + 1, sizeof *b->len64);
  int rc = b->blobs && b->lens && b->len64 ? recv_blob_list(w, me, b, srcs, deadline)
                                           : MORPH_ENOMEM;
  free(srcs);
  return rc;
}

static int move_callbacks(morph__data *d, morph__window *w, int me, int i, double deadline)
{
  MPI_Request reqs[2];
  int nreq = 0, rc = MORPH_OK;
  void *blob = NULL;
  int64_t *len = malloc(sizeof *len);
  if (!len)
    return MORPH_ENOMEM;
  if (me < w->old_size)
    rc = send_blob(d, w, me, reqs, &nreq, &blob, len);
  blobset *b = calloc(1, sizeof *b);
  if (rc == MORPH_OK && !b)
    rc = MORPH_ENOMEM;
  if (rc == MORPH_OK && morph__window_new_rank(w, me) >= 0)
    rc = recv_blobs(w, me, b, deadline);
  int sent = nreq == 0 || morph__wait_all(nreq, reqs, deadline) == MORPH_OK;
  /* A blob still being sent after the deadline belongs to MPI: leak it. */
  if (sent) {
    free(blob);
    free(len);
  }
  w->newbufs[i] = b;
  return rc != MORPH_OK ? rc : sent ? MORPH_OK : MORPH_ETIMEDOUT;
}

static int move_one(morph_ctx *ctx, morph__window *w, int me, int i, double deadline)
{
  morph__data *d = &ctx->data[i];
  switch (d->kind) {
  case MORPH__DATA_REPLICATED:
    return move_replicated(d, w, me, deadline);
  case MORPH__DATA_CALLBACKS:
    return move_callbacks(d, w, me, i, deadline);
  default:
    return move_distributed(d, w, me, i, deadline);
  }
}

int morph__data_buffers(const morph_ctx *ctx, morph__window *w)
{
  if (!w->newbufs)
    w->newbufs = calloc((size_t)ctx->ndata + 1, sizeof *w->newbufs);
  if (!w->newcounts)
    w->newcounts = calloc((size_t)ctx->ndata + 1, sizeof *w->newcounts);
  if (!w->newparts)
    w->newparts = calloc((size_t)ctx->ndata + 1, sizeof *w->newparts);
  return w->newbufs && w->newcounts && w->newparts ? MORPH_OK : MORPH_ENOMEM;
}

int morph__data_move(morph_ctx *ctx, morph__window *w)
{
  int me;
  MPI_Comm_rank(w->newcomm, &me);
  if (morph__data_buffers(ctx, w) != MORPH_OK)
    return MORPH_ENOMEM;
  double deadline = morph__now() + w->step_timeout;
  for (int i = 0; i < ctx->ndata; i++) {
    /* Moved in the background already (overlap.c). */
    if (w->newbufs[i])
      continue;
    int rc = move_one(ctx, w, me, i, deadline);
    if (rc == MORPH_ETIMEDOUT)
      w->abandoned = 1;
    if (rc != MORPH_OK) {
      snprintf(w->why, sizeof w->why, "moving '%s' failed on rank %d: %s", ctx->data[i].name, me,
               morph_strerror(rc));
      return rc;
    }
  }
  return MORPH_OK;
}

static void free_window_arrays(morph__window *w)
{
  free(w->newbufs);
  free(w->newcounts);
  free(w->newparts);
  w->newbufs = NULL;
  w->newcounts = NULL;
  w->newparts = NULL;
}

static int install_one(morph__data *d, void *nb, morph__part *np, int64_t count)
{
  switch (d->kind) {
  case MORPH__DATA_REPLICATED:
    return MORPH_OK;
  case MORPH__DATA_CALLBACKS: {
    blobset *b = nb;
    int rc = d->cb.unpack(d->cb.arg, b->n, b->blobs, b->lens);
    blobset_free(b);
    return rc;
  }
  case MORPH__DATA_VARCOUNT:
    d->global = 0; /* only meaningful inside a window */
    *d->ucount = count;
    break;
  default:
    d->local = count;
  }
  morph__data_release(d);
  *d->ubuf = nb;
  d->part = np;
  return MORPH_OK;
}

void morph__data_trim(morph_ctx *ctx)
{
  for (int i = 0; i < ctx->ndata; i++)
    if (ctx->data[i].part)
      morph__part_trim(ctx->data[i].part);
}

void morph__data_install(morph_ctx *ctx, morph__window *w)
{
  morph__data_trim(ctx);
  for (int i = 0; i < ctx->ndata; i++) {
    int rc = install_one(&ctx->data[i], w->newbufs[i], w->newparts[i], w->newcounts[i]);
    if (rc != MORPH_OK)
      morph__fail(ctx, rc, "unpack callback of '%s' failed: %s", ctx->data[i].name,
                  morph_strerror(rc));
  }
  free_window_arrays(w);
}

void morph__data_discard(morph_ctx *ctx, morph__window *w)
{
  /* After a timeout MPI may still write into the new buffers: leak them
   * rather than hand freed memory to a late receive (but close the
   * descriptors of memory files: the mappings keep them alive). */
  for (int i = 0; i < ctx->ndata; i++)
    if (ctx->data[i].part)
      morph__part_forget(ctx->data[i].part);
  for (int i = 0; w->newbufs && i < ctx->ndata; i++) {
    if (w->newparts && w->newparts[i])
      morph__part_free(w->newparts[i], w->abandoned);
    else if (w->abandoned)
      continue;
    else if (ctx->data[i].kind == MORPH__DATA_CALLBACKS)
      blobset_free(w->newbufs[i]);
    else if (ctx->data[i].kind != MORPH__DATA_REPLICATED)
      free(w->newbufs[i]);
  }
  free_window_arrays(w);
}
