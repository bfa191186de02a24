/*
 * Executes a plan: memcpy for the slices a process keeps, point-to-point
 * non-blocking messages for the slices that change owner, then MPI_Testall
 * until done or the deadline.
 *
 * Why bytes: the header promises a contiguous type of extent elem_size, and
 * morph runs on homogeneous clusters, so the bytes of an element are the
 * element. Sending MPI_BYTE works for any user struct (padding included, as
 * memcpy does for the local part), never needs the user's type map, and
 * lets one message carry many slices as an hindexed type of bytes.
 *
 * Why one message stream per peer: all slices between two processes travel
 * in as few messages as possible (one, unless it exceeds MSG_MAX bytes), so
 * block-cyclic plans with thousands of slices cost as many messages as
 * block plans. The stream is cut every MSG_MAX bytes, which keeps every
 * count and type size below INT_MAX without MPI-4 large counts (Open MPI
 * 4.1 has none); both sides cut at the same byte offsets, and MPI's
 * non-overtaking rule pairs the pieces in order.
 */
#include "redist/redist.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "morph/error.h"
#include "redist/local.h"

/* Bytes per message; overridable so that a test can exercise the cuts. */
#ifdef MORPH__REDIST_MSG_MAX
#define MSG_MAX ((int64_t)MORPH__REDIST_MSG_MAX)
#else
#define MSG_MAX ((int64_t)1 << 30)
#endif

typedef morph__redist_xfer xfer;

/* Counts the messages a slice list needs and its longest run of slices
 * to one remote peer (the most segments one message can have). */
static int64_t count_messages(const morph__slice *v, size_t n, int me, int64_t es,
                              size_t *max_run)
{
  int64_t msgs = 0;
  for (size_t i = 0, j; i < n; i = j) {
    int64_t bytes = 0;
    for (j = i; j < n && v[j].peer == v[i].peer; j++)
      bytes += v[j].count * es;
    if (v[i].peer == me || bytes == 0)
      continue;
    msgs += (bytes + MSG_MAX - 1) / MSG_MAX;
    if (j - i > *max_run)
      *max_run = j - i;
  }
  return msgs;
}

/* Posts the assembled message: plain bytes if it is one segment, else an
 * hindexed type of bytes, freed at once (MPI keeps it until completion). */
static int flush(xfer *x, const char *base, int peer, int sending)
{
  MPI_Datatype t = MPI_BYTE;
  int count = x->seg_len[0];
  const char *buf = base + x->seg_disp[0];
  if (x->nseg > 1) {
    if (MPI_Type_create_hindexed(x->nseg, x->seg_len, x->seg_disp, MPI_BYTE, &t) != MPI_SUCCESS ||
        MPI_Type_commit(&t) != MPI_SUCCESS)
      return MORPH_EMPI;
    count = 1;
    buf = base;
  }
  MPI_Request *r = &x->reqs[x->nreqs++];
  int rc = sending ? MPI_Isend(buf, count, t, peer, x->tag, x->comm, r)
                   : MPI_Irecv((char *)buf, count, t, peer, x->tag, x->comm, r);
  if (x->nseg > 1)
    MPI_Type_free(&t);
  x->nseg = 0;
  x->msg_bytes = 0;
  return rc == MPI_SUCCESS ? MORPH_OK : MORPH_EMPI;
}

/* Posts the slices v[0..n) exchanged with one peer as a byte stream cut
 * every MSG_MAX bytes; a slice may straddle two messages. */
static int post_run(xfer *x, const morph__slice *v, size_t n, const char *base, int sending)
{
  for (size_t i = 0; i < n; i++) {
    int64_t at = (sending ? v[i].src_index : v[i].dst_index) * x->es;
    int64_t left = v[i].count * x->es;
    while (left > 0) {
      int64_t take = MSG_MAX - x->msg_bytes < left ? MSG_MAX - x->msg_bytes : left;
      x->seg_disp[x->nseg] = (MPI_Aint)at;
      x->seg_len[x->nseg++] = (int)take;
      x->msg_bytes += take;
      at += take;
      left -= take;
      int err = x->msg_bytes == MSG_MAX ? flush(x, base, v[i].peer, sending) : MORPH_OK;
      if (err)
        return err;
    }
  }
  return x->nseg ? flush(x, base, v[0].peer, sending) : MORPH_OK;
}

/* Posts every slice of a list that goes through MPI (remote, and not
 * copied by the same-host path), one run of equal peers at a time. */
static int post_list(xfer *x, const morph__slice *v, size_t n, int me, const char *base,
                     int sending, const morph__local *lc)
{
  for (size_t i = 0, j; i < n; i = j) {
    for (j = i; j < n && v[j].peer == v[i].peer; j++)
      ;
    if (v[i].peer == me || !morph__local_via_mpi(lc, v[i].peer, sending))
      continue;
    int err = post_run(x, v + i, j - i, base, sending);
    if (err)
      return err;
  }
  return MORPH_OK;
}

static void copy_local(const morph__plan *plan, int me, const char *old_buf, char *new_buf,
                       int64_t es)
{
  for (size_t i = 0; i < plan->nsend; i++) {
    const morph__slice *s = &plan->send[i];
    if (s->peer == me)
      memcpy(new_buf + s->dst_index * es, old_buf + s->src_index * es, (size_t)(s->count * es));
  }
}

/* Polls rather than MPI_Waitall so that the deadline holds even when a peer
 * never answers; on timeout the requests stay pending (abandoned). */
static int wait_all(xfer *x, double deadline)
{
  for (;;) {
    int done = 0;
    if (MPI_Testall(x->nreqs, x->reqs, &done, x->stats) != MPI_SUCCESS)
      return MORPH_EMPI;
    if (done)
      return MORPH_OK;
    if (deadline > 0 && morph__now() > deadline)
      return MORPH_ETIMEDOUT;
  }
}

/* True if every slice lies within int64 byte offsets and has a buffer. */
static int slices_ok(const morph__slice *v, size_t n, int64_t es, const void *buf, int sending)
{
  for (size_t i = 0; i < n; i++) {
    int64_t idx = sending ? v[i].src_index : v[i].dst_index;
    if (v[i].count < 0 || idx < 0 || idx > INT64_MAX / es - v[i].count)
      return 0;
    if (v[i].count > 0 && !buf)
      return 0;
  }
  return 1;
}

static int check_exec_args(const morph__plan *plan, const void *old_buf, const void *new_buf,
                           size_t elem_size, MPI_Datatype type)
{
  if (!plan || elem_size == 0 || elem_size > (size_t)INT_MAX)
    return MORPH_EINVAL;
  int64_t es = (int64_t)elem_size;
  if (!slices_ok(plan->send, plan->nsend, es, old_buf, 1) ||
      !slices_ok(plan->recv, plan->nrecv, es, new_buf, 0))
    return MORPH_EINVAL;
  if (type == MPI_DATATYPE_NULL)
    return MORPH_OK; /* bytes only: nothing to cross-check */
  MPI_Aint lb, extent;
  if (MPI_Type_get_extent(type, &lb, &extent) != MPI_SUCCESS)
    return MORPH_EMPI;
  return (size_t)extent == elem_size ? MORPH_OK : MORPH_EINVAL;
}

static int64_t remote_bytes(const morph__plan *plan, int me, int64_t es)
{
  int64_t bytes = 0;
  for (size_t i = 0; i < plan->nsend; i++)
    if (plan->send[i].peer != me)
      bytes += plan->send[i].count * es;
  return bytes;
}

/* Allocates the request array and the segment scratch for a plan. */
static int xfer_init(xfer *x, const morph__plan *plan, int me)
{
  size_t max_run = 1;
  int64_t msgs = count_messages(plan->send, plan->nsend, me, x->es, &max_run) +
                 count_messages(plan->recv, plan->nrecv, me, x->es, &max_run);
  if (msgs > INT_MAX || max_run > (size_t)INT_MAX)
    return MORPH_EINVAL;
  x->reqs = malloc((size_t)(msgs ? msgs : 1) * sizeof *x->reqs);
  x->stats = malloc((size_t)(msgs ? msgs : 1) * sizeof *x->stats);
  x->seg_len = malloc(max_run * sizeof *x->seg_len);
  x->seg_disp = malloc(max_run * sizeof *x->seg_disp);
  return x->reqs && x->stats && x->seg_len && x->seg_disp ? MORPH_OK : MORPH_ENOMEM;
}

void morph__redist_xfer_free(xfer *x)
{
  free(x->reqs);
  free(x->stats);
  free(x->seg_len);
  free(x->seg_disp);
  x->reqs = NULL, x->stats = NULL, x->seg_len = NULL, x->seg_disp = NULL;
}

/* Checks the arguments and allocates the transfer state of a plan. */
static int post_open(MPI_Comm comm, const morph__plan *plan, const void *old_buf,
                     void *new_buf, size_t elem_size, MPI_Datatype type, int tag, xfer *x)
{
  *x = (xfer){.comm = comm, .tag = tag, .es = (int64_t)elem_size};
  int err = check_exec_args(plan, old_buf, new_buf, elem_size, type);
  if (!err && MPI_Comm_rank(comm, &x->me) != MPI_SUCCESS)
    err = MORPH_EMPI;
  return err ? err : xfer_init(x, plan, x->me);
}

/* The background form (async.c) posts everything through MPI: the
 * same-host path needs a handshake that waits, which a background start
 * cannot do. */
int morph__redist_post(MPI_Comm comm, const morph__plan *plan, const void *old_buf,
                       void *new_buf, size_t elem_size, MPI_Datatype type, int tag, xfer *x)
{
  int err = post_open(comm, plan, old_buf, new_buf, elem_size, type, tag, x);
  /* Receives first, so that eager sends land in place, not in MPI's
   * unexpected queue; the local copy overlaps the remote transfers. */
  if (!err)
    err = post_list(x, plan->recv, plan->nrecv, x->me, new_buf, 0, NULL);
  if (!err)
    err = post_list(x, plan->send, plan->nsend, x->me, old_buf, 1, NULL);
  if (!err) {
    copy_local(plan, x->me, old_buf, new_buf, x->es);
    x->remote_bytes = remote_bytes(plan, x->me, x->es);
  }
  return err;
}

int morph__redist_exec_parts(MPI_Comm comm, const morph__plan *plan, const morph__redist_bufs *b,
                             size_t elem_size, MPI_Datatype type, int tag, double deadline,
                             int64_t *bytes_sent)
{
  if (bytes_sent)
    *bytes_sent = 0;
  xfer x;
  morph__local *lc = NULL;
  int err = post_open(comm, plan, b->old_buf, b->new_buf, elem_size, type, tag, &x);
  /* Offers out first: receivers on this host read our slices while we
   * place our own and read theirs (local.h). The rest goes through MPI,
   * receives posted before the answer that lets the sender send. */
  if (!err)
    err = morph__local_open(&lc, comm, x.me, plan, b, x.es, tag);
  if (!err) {
    morph__local_keep(lc);
    err = morph__local_pull(lc, deadline);
  }
  if (!err)
    err = post_list(&x, plan->recv, plan->nrecv, x.me, b->new_buf, 0, lc);
  if (!err)
    err = morph__local_answers(lc, deadline);
  if (!err)
    err = post_list(&x, plan->send, plan->nsend, x.me, b->old_buf, 1, lc);
  if (!err)
    err = wait_all(&x, deadline);
  int cerr = morph__local_close(lc, err != MORPH_OK, deadline);
  err = err ? err : cerr;
  if (!err && bytes_sent)
    *bytes_sent = remote_bytes(plan, x.me, x.es);
  morph__redist_xfer_free(&x);
  return err;
}

int morph__redist_exec(MPI_Comm comm, const morph__plan *plan, const void *old_buf,
                       void *new_buf, size_t elem_size, MPI_Datatype type, int tag,
                       double deadline, int64_t *bytes_sent)
{
  morph__redist_bufs b = {old_buf, new_buf, NULL, NULL};
  return morph__redist_exec_parts(comm, plan, &b, elem_size, type, tag, deadline, bytes_sent);
}
