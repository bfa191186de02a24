/*
 * Redistribution overlapped with computation, after MaM's asynchronous
 * strategies: data the application promises not to change until the commit
 * (morph_data_set_constant) is sent while the old processes keep
 * computing; data that changes every step moves at the commit, as in the
 * blocking window.
 *
 * The promise is checked, not trusted: a hash of every constant old part is
 * taken when its transfers start and again at the commit; a difference on
 * any process rolls the window back (the joiners would hold stale data),
 * and the vote is taken over every process of the window, leavers
 * included, because in a shrink the leavers are the senders.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "redist/redist.h"
#include "runtime/move.h"
#include "runtime/overlap.h"
#include "runtime/wait.h"

/* Tags of the background transfers, one per registration, on their own
 * communicator (so neither the blocking moves nor the application's
 * messages on a shrink's communicator can match them). */
#define TAG_BACKGROUND 7401

typedef struct morph__overlap {
  int n;                      /* registrations */
  MPI_Comm comm;              /* a copy of w->newcomm */
  morph__redist_xfer **xfer;  /* per registration; NULL: not in background */
  uint64_t *hash;             /* per registration: its old part at the start */
  int intact[2];              /* the agreement's buffers (after a timeout the
                                 reduction stays active: heap) */
} overlap;

/* A hash of n bytes, 8 at a time in four independent lanes so that it runs
 * near memory speed (it is computed twice per constant part). */
static uint64_t hash_bytes(const void *p, size_t n)
{
  const unsigned char *b = p;
  uint64_t lane[4] = {1, 2, 3, 4}, w;
  size_t i = 0;
  for (; i + 32 <= n; i += 32)
    for (int k = 0; k < 4; k++) {
      memcpy(&w, b + i + 8 * k, 8);
      lane[k] = (lane[k] ^ w) * 0x100000001b3ULL;
    }
  uint64_t h = lane[0] ^ (lane[1] << 1) ^ (lane[2] << 2) ^ (lane[3] << 3) ^ n;
  for (; i < n; i++)
    h = (h ^ b[i]) * 0x100000001b3ULL;
  return h;
}

static size_t old_bytes(const morph__data *d)
{
  int64_t n = d->kind == MORPH__DATA_VARCOUNT ? *d->ucount : d->local;
  return (size_t)n * d->elem_size;
}

static int start_one(morph_ctx *ctx, morph__window *w, overlap *o, int me, int i,
                     double deadline)
{
  morph__data *d = &ctx->data[i];
  morph__plan plan;
  int rc = morph__data_plan(d, w, me, i, deadline, &plan);
  if (rc != MORPH_OK)
    return rc;
  const void *ob = me < w->old_size ? *d->ubuf : NULL;
  /* MPI writes all of it: pages in one call rather than fault by fault. */
  if (w->newparts[i])
    morph__part_populate(w->newparts[i], 0, w->newparts[i]->bytes);
  /* On failure w->newbufs[i] stays: posted receives may still write. */
  rc = morph__redist_start(o->comm, &plan, ob, w->newbufs[i], d->elem_size, d->type,
                           TAG_BACKGROUND + i, &o->xfer[i]);
  morph__plan_free(&plan);
  if (rc == MORPH_OK && ob)
    o->hash[i] = hash_bytes(ob, old_bytes(d));
  return rc;
}

static overlap *overlap_new(int n)
{
  overlap *o = calloc(1, sizeof *o);
  if (!o)
    return NULL;
  o->n = n;
  o->comm = MPI_COMM_NULL;
  o->xfer = calloc((size_t)n + 1, sizeof *o->xfer);
  o->hash = calloc((size_t)n + 1, sizeof *o->hash);
  if (!o->xfer || !o->hash) {
    free(o->xfer), free(o->hash), free(o);
    return NULL;
  }
  return o;
}

int morph__overlap_start(morph_ctx *ctx, morph__window *w)
{
  int me;
  MPI_Comm_rank(w->newcomm, &me);
  if (morph__data_buffers(ctx, w) != MORPH_OK || !(w->bg = overlap_new(ctx->ndata)))
    return MORPH_ENOMEM;
  overlap *o = w->bg;
  double deadline = morph__now() + w->step_timeout;
  MPI_Request req;
  if (MPI_Comm_idup(w->newcomm, &o->comm, &req) != MPI_SUCCESS)
    return MORPH_EMPI;
  int rc = morph__wait_all(1, &req, deadline);
  for (int i = 0; rc == MORPH_OK && i < ctx->ndata; i++)
    if (ctx->data[i].constant)
      rc = start_one(ctx, w, o, me, i, deadline);
  if (rc == MORPH_ETIMEDOUT)
    w->abandoned = 1;
  if (rc != MORPH_OK && !w->why[0])
    snprintf(w->why, sizeof w->why, "starting the background transfers failed on rank %d: %s",
             me, morph_strerror(rc));
  return rc;
}

int morph__overlap_test(morph__window *w, int *done)
{
  *done = 1;
  overlap *o = w->bg;
  for (int i = 0; o && i < o->n; i++) {
    int one = 1;
    if (o->xfer[i] && morph__redist_test(o->xfer[i], &one) != MORPH_OK)
      return MORPH_EMPI;
    *done &= one;
  }
  return MORPH_OK;
}

/* Waits for one registration's background transfers and checks that its
 * old part did not change while they ran. */
static int finish_one(morph_ctx *ctx, morph__window *w, overlap *o, int me, int i,
                      double deadline)
{
  morph__data *d = &ctx->data[i];
  int rc = morph__redist_finish(o->xfer[i], deadline, NULL);
  o->xfer[i] = NULL;
  if (rc == MORPH_ETIMEDOUT)
    w->abandoned = 1;
  if (rc == MORPH_OK && me < w->old_size && hash_bytes(*d->ubuf, old_bytes(d)) != o->hash[i]) {
    snprintf(w->why, sizeof w->why, "'%s' was declared constant (morph_data_set_constant) but "
             "rank %d changed it between morph_begin_overlap and morph_commit; the joiners "
             "would hold stale data", d->name, me);
    rc = MORPH_EMISMATCH;
  }
  return rc;
}

/* Every process of the window learns the worst outcome (the most negative
 * code). */
static int agree_all(morph__window *w, overlap *o, int rc)
{
  o->intact[0] = rc;
  MPI_Request req;
  if (MPI_Iallreduce(&o->intact[0], &o->intact[1], 1, MPI_INT, MPI_MIN, w->newcomm, &req) !=
      MPI_SUCCESS)
    return MORPH_EMPI;
  int arc = morph__wait_all(1, &req, morph__now() + w->step_timeout);
  if (arc != MORPH_OK) {
    w->abandoned = 1;
    return arc;
  }
  if (o->intact[1] != MORPH_OK && !w->why[0])
    snprintf(w->why, sizeof w->why, "another process's background transfers failed: %s",
             morph_strerror(o->intact[1]));
  return o->intact[1];
}

int morph__overlap_finish(morph_ctx *ctx, morph__window *w, int rc)
{
  overlap *o = w->bg;
  if (!o)
    return rc != MORPH_OK ? rc : MORPH_ENOMEM;
  int me;
  MPI_Comm_rank(w->newcomm, &me);
  double deadline = morph__now() + w->step_timeout;
  for (int i = 0; i < o->n; i++) {
    if (!o->xfer[i])
      continue;
    int one = finish_one(ctx, w, o, me, i, deadline);
    rc = rc != MORPH_OK ? rc : one;
  }
  rc = agree_all(w, o, rc);
  if (!w->abandoned) {
    if (o->comm != MPI_COMM_NULL)
      MPI_Comm_free(&o->comm);
    free(o->xfer), free(o->hash), free(o);
    w->bg = NULL;
  }
  /* else: leaked with its buffers, which requests may still use. */
  return rc;
}
