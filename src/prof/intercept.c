/*
 * libmorph-prof: the one PMPI interception layer of morph. This is the only
 * file that defines MPI_* symbols; each wrapper hands the call to the
 * consumers and then to the MPI library:
 *  - MPI time (mpitime.c): wall time of the blocking calls, on when the
 *    process has a launcher to report it to (MORPH_SOCKET);
 *  - communication matrix (traffic.c): bytes and messages per pair of world
 *    ranks, on when MORPH_PROF_DIR is set at MPI_Init.
 * A new consumer is one more call in the wrappers it cares about, never a
 * second set of wrappers (two would clash at link time, or silently shadow
 * each other under LD_PRELOAD).
 *
 * Posting a nonblocking operation is not timed (it returns at once; its
 * wait is). Traffic is counted when a send is posted or a persistent one is
 * started, at the sender; docs/prof.md lists what is intercepted.
 */
#include <mpi.h>
#include <stddef.h>

#include "prof/intercept.h"
#include "prof/mpitime.h"
#include "prof/traffic.h"

#define TIMED(call)                              \
  do {                                           \
    if (!morph__prof_timing())                   \
      return (call);                             \
    double t0_ = PMPI_Wtime();                   \
    int rc_ = (call);                            \
    morph__prof_time_add(PMPI_Wtime() - t0_);    \
    return rc_;                                  \
  } while (0)

#define SEND(c, d, n, t) morph__traffic_send(c, d, n, t)
/* Arguments are only evaluated while counting: the byte counts need MPI
 * calls that a program that is not profiled should not pay for. */
#define COLL(c, kind, root, bytes, per)                 \
  do {                                                  \
    if (morph__traffic_on())                            \
      morph__traffic_coll(c, kind, root, bytes, per);   \
  } while (0)
#define BYTES(n, t) morph__traffic_bytes(n, t)

/* Start and end of MPI. */

int MPI_Init(int *argc, char ***argv)
{
  int rc = PMPI_Init(argc, argv);
  morph__prof_time_init();
  if (rc == MPI_SUCCESS)
    morph__traffic_start();
  return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
  int rc = PMPI_Init_thread(argc, argv, required, provided);
  morph__prof_time_init();
  if (rc == MPI_SUCCESS)
    morph__traffic_start();
  return rc;
}

/* The one piece of state of this layer besides its consumers': MPI_Finalize
 * is called once per process, and a front-end (src/adapt) must close its
 * context before MPI goes. */
static morph__prof_finalize_fn finalize_hook;

void morph__prof_on_finalize(morph__prof_finalize_fn fn)
{
  finalize_hook = fn;
}

int MPI_Finalize(void)
{
  morph__prof_finalize_fn fn = finalize_hook;
  finalize_hook = NULL;
  if (fn)
    return fn();
  morph__traffic_stop();
  return PMPI_Finalize();
}

/* Point to point. */

/* The four send modes share one signature each for blocking, nonblocking
 * and persistent sends: one definition per kind, instantiated per mode. */
#define BLOCKING_SEND(name)                                                            \
  int MPI_##name(const void *b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c)     \
  {                                                                                    \
    SEND(c, d, n, t);                                                                  \
    TIMED(PMPI_##name(b, n, t, d, tag, c));                                            \
  }

#define NONBLOCKING_SEND(name)                                                         \
  int MPI_##name(const void *b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c,     \
                 MPI_Request *r)                                                       \
  {                                                                                    \
    SEND(c, d, n, t);                                                                  \
    return PMPI_##name(b, n, t, d, tag, c, r);                                         \
  }

/* Persistent sends are counted at each start, not here. */
#define PERSISTENT_SEND(name)                                                          \
  int MPI_##name(const void *b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c,     \
                 MPI_Request *r)                                                       \
  {                                                                                    \
    int rc = PMPI_##name(b, n, t, d, tag, c, r);                                       \
    if (rc == MPI_SUCCESS)                                                             \
      morph__traffic_persist(*r, c, d, n, t);                                          \
    return rc;                                                                         \
  }

BLOCKING_SEND(Send)
BLOCKING_SEND(Ssend)
BLOCKING_SEND(Bsend)
BLOCKING_SEND(Rsend)
NONBLOCKING_SEND(Isend)
NONBLOCKING_SEND(Issend)
NONBLOCKING_SEND(Ibsend)
NONBLOCKING_SEND(Irsend)
PERSISTENT_SEND(Send_init)
PERSISTENT_SEND(Ssend_init)
PERSISTENT_SEND(Bsend_init)
PERSISTENT_SEND(Rsend_init)

int MPI_Sendrecv(const void *sb, int sn, MPI_Datatype st, int d, int stag, void *rb, int rn,
                 MPI_Datatype rt, int s, int rtag, MPI_Comm c, MPI_Status *status)
{
  SEND(c, d, sn, st);
  TIMED(PMPI_Sendrecv(sb, sn, st, d, stag, rb, rn, rt, s, rtag, c, status));
}

int MPI_Sendrecv_replace(void *b, int n, MPI_Datatype t, int d, int stag, int s, int rtag,
                         MPI_Comm c, MPI_Status *status)
{
  SEND(c, d, n, t);
  TIMED(PMPI_Sendrecv_replace(b, n, t, d, stag, s, rtag, c, status));
}

int MPI_Recv(void *b, int n, MPI_Datatype t, int s, int tag, MPI_Comm c, MPI_Status *st)
{
  TIMED(PMPI_Recv(b, n, t, s, tag, c, st));
}

int MPI_Probe(int s, int tag, MPI_Comm c, MPI_Status *st) { TIMED(PMPI_Probe(s, tag, c, st)); }

/* Persistent sends (defined above) are counted here. */

int MPI_Start(MPI_Request *r)
{
  morph__traffic_start_req(*r);
  return PMPI_Start(r);
}

int MPI_Startall(int n, MPI_Request r[])
{
  for (int i = 0; i < n; i++)
    morph__traffic_start_req(r[i]);
  return PMPI_Startall(n, r);
}

int MPI_Request_free(MPI_Request *r)
{
  morph__traffic_forget_req(*r);
  return PMPI_Request_free(r);
}

/* Completion. */

int MPI_Wait(MPI_Request *r, MPI_Status *st) { TIMED(PMPI_Wait(r, st)); }

int MPI_Waitall(int n, MPI_Request r[], MPI_Status st[]) { TIMED(PMPI_Waitall(n, r, st)); }

int MPI_Waitany(int n, MPI_Request r[], int *i, MPI_Status *st)
{
  TIMED(PMPI_Waitany(n, r, i, st));
}

int MPI_Waitsome(int n, MPI_Request r[], int *out, int idx[], MPI_Status st[])
{
  TIMED(PMPI_Waitsome(n, r, out, idx, st));
}

/* Collectives: the algorithm each is decomposed by is in coll.h. */

int MPI_Barrier(MPI_Comm c)
{
  COLL(c, MORPH__BARRIER, 0, 0, NULL);
  TIMED(PMPI_Barrier(c));
}

int MPI_Ibarrier(MPI_Comm c, MPI_Request *r)
{
  COLL(c, MORPH__BARRIER, 0, 0, NULL);
  return PMPI_Ibarrier(c, r);
}

int MPI_Bcast(void *b, int n, MPI_Datatype t, int root, MPI_Comm c)
{
  COLL(c, MORPH__BCAST, root, BYTES(n, t), NULL);
  TIMED(PMPI_Bcast(b, n, t, root, c));
}

int MPI_Ibcast(void *b, int n, MPI_Datatype t, int root, MPI_Comm c, MPI_Request *r)
{
  COLL(c, MORPH__BCAST, root, BYTES(n, t), NULL);
  return PMPI_Ibcast(b, n, t, root, c, r);
}

int MPI_Reduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, int root, MPI_Comm c)
{
  COLL(c, MORPH__REDUCE, root, BYTES(n, t), NULL);
  TIMED(PMPI_Reduce(s, r, n, t, op, root, c));
}

int MPI_Ireduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, int root, MPI_Comm c,
                MPI_Request *q)
{
  COLL(c, MORPH__REDUCE, root, BYTES(n, t), NULL);
  return PMPI_Ireduce(s, r, n, t, op, root, c, q);
}

int MPI_Allreduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c)
{
  COLL(c, MORPH__ALLREDUCE, 0, BYTES(n, t), NULL);
  TIMED(PMPI_Allreduce(s, r, n, t, op, c));
}

int MPI_Iallreduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c,
                   MPI_Request *q)
{
  COLL(c, MORPH__ALLREDUCE, 0, BYTES(n, t), NULL);
  return PMPI_Iallreduce(s, r, n, t, op, c, q);
}

int MPI_Scan(const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c)
{
  COLL(c, MORPH__SCAN, 0, BYTES(n, t), NULL);
  TIMED(PMPI_Scan(s, r, n, t, op, c));
}

int MPI_Exscan(const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c)
{
  COLL(c, MORPH__SCAN, 0, BYTES(n, t), NULL);
  TIMED(PMPI_Exscan(s, r, n, t, op, c));
}

int MPI_Iscan(const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c,
              MPI_Request *q)
{
  COLL(c, MORPH__SCAN, 0, BYTES(n, t), NULL);
  return PMPI_Iscan(s, r, n, t, op, c, q);
}

int MPI_Iexscan(const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c,
                MPI_Request *q)
{
  COLL(c, MORPH__SCAN, 0, BYTES(n, t), NULL);
  return PMPI_Iexscan(s, r, n, t, op, c, q);
}

/* Gathers: the root's send arguments may be garbage under MPI_IN_PLACE. */
static uint64_t gather_bytes(const void *s, int sn, MPI_Datatype st)
{
  return s == MPI_IN_PLACE ? 0 : BYTES(sn, st);
}

int MPI_Gather(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, int root,
               MPI_Comm c)
{
  COLL(c, MORPH__GATHER, root, gather_bytes(s, sn, st), NULL);
  TIMED(PMPI_Gather(s, sn, st, r, rn, rt, root, c));
}

int MPI_Igather(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt,
                int root, MPI_Comm c, MPI_Request *q)
{
  COLL(c, MORPH__GATHER, root, gather_bytes(s, sn, st), NULL);
  return PMPI_Igather(s, sn, st, r, rn, rt, root, c, q);
}

int MPI_Gatherv(const void *s, int sn, MPI_Datatype st, void *r, const int rn[], const int d[],
                MPI_Datatype rt, int root, MPI_Comm c)
{
  COLL(c, MORPH__GATHER, root, gather_bytes(s, sn, st), NULL);
  TIMED(PMPI_Gatherv(s, sn, st, r, rn, d, rt, root, c));
}

int MPI_Igatherv(const void *s, int sn, MPI_Datatype st, void *r, const int rn[], const int d[],
                 MPI_Datatype rt, int root, MPI_Comm c, MPI_Request *q)
{
  COLL(c, MORPH__GATHER, root, gather_bytes(s, sn, st), NULL);
  return PMPI_Igatherv(s, sn, st, r, rn, d, rt, root, c, q);
}

/* Scatters: only the root's send arguments are defined. */
static void scatter(MPI_Comm c, int root, int sn, const int *sns, MPI_Datatype st)
{
  if (morph__traffic_rank(c) != root)
    return;
  const uint64_t *per = sns ? morph__traffic_blocks(c, sns, st) : NULL;
  if (!sns || per)
    COLL(c, MORPH__SCATTER, root, BYTES(sn, st), per);
}

int MPI_Scatter(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt,
                int root, MPI_Comm c)
{
  scatter(c, root, sn, NULL, st);
  TIMED(PMPI_Scatter(s, sn, st, r, rn, rt, root, c));
}

int MPI_Iscatter(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt,
                 int root, MPI_Comm c, MPI_Request *q)
{
  scatter(c, root, sn, NULL, st);
  return PMPI_Iscatter(s, sn, st, r, rn, rt, root, c, q);
}

int MPI_Scatterv(const void *s, const int sn[], const int d[], MPI_Datatype st, void *r, int rn,
                 MPI_Datatype rt, int root, MPI_Comm c)
{
  scatter(c, root, 0, sn, st);
  TIMED(PMPI_Scatterv(s, sn, d, st, r, rn, rt, root, c));
}

int MPI_Iscatterv(const void *s, const int sn[], const int d[], MPI_Datatype st, void *r, int rn,
                  MPI_Datatype rt, int root, MPI_Comm c, MPI_Request *q)
{
  scatter(c, root, 0, sn, st);
  return PMPI_Iscatterv(s, sn, d, st, r, rn, rt, root, c, q);
}

/* A collective whose blocks are n elements of t each, or ns[j] for rank
 * j (vector variants; the call counts nothing if they cannot be read). */
static void blocks(MPI_Comm c, enum morph__coll_kind kind, int n, const int *ns, MPI_Datatype t)
{
  if (!morph__traffic_on())
    return;
  const uint64_t *per = ns ? morph__traffic_blocks(c, ns, t) : NULL;
  if (!ns || per)
    COLL(c, kind, 0, BYTES(n, t), per);
}

/* Allgathers forward the receive blocks, which the receive arguments
 * describe whether or not the call is in place. */
static void allgather(MPI_Comm c, int rn, const int *rns, MPI_Datatype rt)
{
  blocks(c, MORPH__ALLGATHER, rn, rns, rt);
}

int MPI_Allgather(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt,
                  MPI_Comm c)
{
  allgather(c, rn, NULL, rt);
  TIMED(PMPI_Allgather(s, sn, st, r, rn, rt, c));
}

int MPI_Iallgather(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt,
                   MPI_Comm c, MPI_Request *q)
{
  allgather(c, rn, NULL, rt);
  return PMPI_Iallgather(s, sn, st, r, rn, rt, c, q);
}

int MPI_Allgatherv(const void *s, int sn, MPI_Datatype st, void *r, const int rn[],
                   const int d[], MPI_Datatype rt, MPI_Comm c)
{
  allgather(c, 0, rn, rt);
  TIMED(PMPI_Allgatherv(s, sn, st, r, rn, d, rt, c));
}

int MPI_Iallgatherv(const void *s, int sn, MPI_Datatype st, void *r, const int rn[],
                    const int d[], MPI_Datatype rt, MPI_Comm c, MPI_Request *q)
{
  allgather(c, 0, rn, rt);
  return PMPI_Iallgatherv(s, sn, st, r, rn, d, rt, c, q);
}

/* All-to-alls: in place, the receive arguments describe the blocks. */
static void alltoall(MPI_Comm c, const void *s, int sn, const int *sns, MPI_Datatype st, int rn,
                     const int *rns, MPI_Datatype rt)
{
  if (!morph__traffic_on())
    return;
  int in_place = s == MPI_IN_PLACE;
  const int *counts = in_place ? rns : sns;
  MPI_Datatype t = in_place ? rt : st;
  const uint64_t *per = counts ? morph__traffic_blocks(c, counts, t) : NULL;
  if (!counts || per)
    COLL(c, MORPH__PAIRWISE, 0, BYTES(in_place ? rn : sn, t), per);
}

int MPI_Alltoall(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt,
                 MPI_Comm c)
{
  alltoall(c, s, sn, NULL, st, rn, NULL, rt);
  TIMED(PMPI_Alltoall(s, sn, st, r, rn, rt, c));
}

int MPI_Ialltoall(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt,
                  MPI_Comm c, MPI_Request *q)
{
  alltoall(c, s, sn, NULL, st, rn, NULL, rt);
  return PMPI_Ialltoall(s, sn, st, r, rn, rt, c, q);
}

int MPI_Alltoallv(const void *s, const int sn[], const int sd[], MPI_Datatype st, void *r,
                  const int rn[], const int rd[], MPI_Datatype rt, MPI_Comm c)
{
  alltoall(c, s, 0, sn, st, 0, rn, rt);
  TIMED(PMPI_Alltoallv(s, sn, sd, st, r, rn, rd, rt, c));
}

int MPI_Ialltoallv(const void *s, const int sn[], const int sd[], MPI_Datatype st, void *r,
                   const int rn[], const int rd[], MPI_Datatype rt, MPI_Comm c, MPI_Request *q)
{
  alltoall(c, s, 0, sn, st, 0, rn, rt);
  return PMPI_Ialltoallv(s, sn, sd, st, r, rn, rd, rt, c, q);
}

static void alltoallw(MPI_Comm c, const void *s, const int *sn, const MPI_Datatype *st,
                      const int *rn, const MPI_Datatype *rt)
{
  if (!morph__traffic_on())
    return;
  int in_place = s == MPI_IN_PLACE;
  const uint64_t *per = morph__traffic_blocks_w(c, in_place ? rn : sn, in_place ? rt : st);
  if (per)
    COLL(c, MORPH__PAIRWISE, 0, 0, per);
}

int MPI_Alltoallw(const void *s, const int sn[], const int sd[], const MPI_Datatype st[], void *r,
                  const int rn[], const int rd[], const MPI_Datatype rt[], MPI_Comm c)
{
  alltoallw(c, s, sn, st, rn, rt);
  TIMED(PMPI_Alltoallw(s, sn, sd, st, r, rn, rd, rt, c));
}

int MPI_Ialltoallw(const void *s, const int sn[], const int sd[], const MPI_Datatype st[],
                   void *r, const int rn[], const int rd[], const MPI_Datatype rt[], MPI_Comm c,
                   MPI_Request *q)
{
  alltoallw(c, s, sn, st, rn, rt);
  return PMPI_Ialltoallw(s, sn, sd, st, r, rn, rd, rt, c, q);
}

/* Reduce-scatter: pairwise, block j of every process goes to j. */
static void reduce_scatter(MPI_Comm c, int n, const int *ns, MPI_Datatype t)
{
  blocks(c, MORPH__PAIRWISE, n, ns, t);
}

int MPI_Reduce_scatter(const void *s, void *r, const int rn[], MPI_Datatype t, MPI_Op op,
                       MPI_Comm c)
{
  reduce_scatter(c, 0, rn, t);
  TIMED(PMPI_Reduce_scatter(s, r, rn, t, op, c));
}

int MPI_Ireduce_scatter(const void *s, void *r, const int rn[], MPI_Datatype t, MPI_Op op,
                        MPI_Comm c, MPI_Request *q)
{
  reduce_scatter(c, 0, rn, t);
  return PMPI_Ireduce_scatter(s, r, rn, t, op, c, q);
}

int MPI_Reduce_scatter_block(const void *s, void *r, int rn, MPI_Datatype t, MPI_Op op,
                             MPI_Comm c)
{
  reduce_scatter(c, rn, NULL, t);
  TIMED(PMPI_Reduce_scatter_block(s, r, rn, t, op, c));
}

int MPI_Ireduce_scatter_block(const void *s, void *r, int rn, MPI_Datatype t, MPI_Op op,
                              MPI_Comm c, MPI_Request *q)
{
  reduce_scatter(c, rn, NULL, t);
  return PMPI_Ireduce_scatter_block(s, r, rn, t, op, c, q);
}

/* One-sided: puts and accumulates flow to the target, gets from it. */

int MPI_Put(const void *o, int on, MPI_Datatype ot, int tr, MPI_Aint td, int tn, MPI_Datatype tt,
            MPI_Win w)
{
  morph__traffic_rma(w, tr, BYTES(on, ot), 0);
  return PMPI_Put(o, on, ot, tr, td, tn, tt, w);
}

int MPI_Rput(const void *o, int on, MPI_Datatype ot, int tr, MPI_Aint td, int tn,
             MPI_Datatype tt, MPI_Win w, MPI_Request *q)
{
  morph__traffic_rma(w, tr, BYTES(on, ot), 0);
  return PMPI_Rput(o, on, ot, tr, td, tn, tt, w, q);
}

int MPI_Get(void *o, int on, MPI_Datatype ot, int tr, MPI_Aint td, int tn, MPI_Datatype tt,
            MPI_Win w)
{
  morph__traffic_rma(w, tr, 0, BYTES(on, ot));
  return PMPI_Get(o, on, ot, tr, td, tn, tt, w);
}

int MPI_Rget(void *o, int on, MPI_Datatype ot, int tr, MPI_Aint td, int tn, MPI_Datatype tt,
             MPI_Win w, MPI_Request *q)
{
  morph__traffic_rma(w, tr, 0, BYTES(on, ot));
  return PMPI_Rget(o, on, ot, tr, td, tn, tt, w, q);
}

int MPI_Accumulate(const void *o, int on, MPI_Datatype ot, int tr, MPI_Aint td, int tn,
                   MPI_Datatype tt, MPI_Op op, MPI_Win w)
{
  morph__traffic_rma(w, tr, BYTES(on, ot), 0);
  return PMPI_Accumulate(o, on, ot, tr, td, tn, tt, op, w);
}

int MPI_Raccumulate(const void *o, int on, MPI_Datatype ot, int tr, MPI_Aint td, int tn,
                    MPI_Datatype tt, MPI_Op op, MPI_Win w, MPI_Request *q)
{
  morph__traffic_rma(w, tr, BYTES(on, ot), 0);
  return PMPI_Raccumulate(o, on, ot, tr, td, tn, tt, op, w, q);
}

int MPI_Get_accumulate(const void *o, int on, MPI_Datatype ot, void *res, int rn,
                       MPI_Datatype rt, int tr, MPI_Aint td, int tn, MPI_Datatype tt, MPI_Op op,
                       MPI_Win w)
{
  morph__traffic_rma(w, tr, op == MPI_NO_OP ? 0 : BYTES(on, ot), BYTES(rn, rt));
  return PMPI_Get_accumulate(o, on, ot, res, rn, rt, tr, td, tn, tt, op, w);
}

int MPI_Rget_accumulate(const void *o, int on, MPI_Datatype ot, void *res, int rn,
                        MPI_Datatype rt, int tr, MPI_Aint td, int tn, MPI_Datatype tt, MPI_Op op,
                        MPI_Win w, MPI_Request *q)
{
  morph__traffic_rma(w, tr, op == MPI_NO_OP ? 0 : BYTES(on, ot), BYTES(rn, rt));
  return PMPI_Rget_accumulate(o, on, ot, res, rn, rt, tr, td, tn, tt, op, w, q);
}

int MPI_Fetch_and_op(const void *o, void *res, MPI_Datatype t, int tr, MPI_Aint td, MPI_Op op,
                     MPI_Win w)
{
  morph__traffic_rma(w, tr, op == MPI_NO_OP ? 0 : BYTES(1, t), BYTES(1, t));
  return PMPI_Fetch_and_op(o, res, t, tr, td, op, w);
}

int MPI_Compare_and_swap(const void *o, const void *cmp, void *res, MPI_Datatype t, int tr,
                         MPI_Aint td, MPI_Win w)
{
  morph__traffic_rma(w, tr, BYTES(2, t), BYTES(1, t));
  return PMPI_Compare_and_swap(o, cmp, res, t, tr, td, w);
}
