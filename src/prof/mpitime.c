/*
 * libmorph-prof, MPI time: PMPI wrappers that add up the wall time spent in
 * the MPI calls where iterative codes wait (point to point, collectives,
 * completion). libmorph reads the total through morph_prof_mpi_seconds()
 * and reports the MPI time per iteration to the launcher, for the policies
 * that judge scaling from it (Elastic MPI's MPI-to-compute ratio).
 *
 * The accumulator is process-wide by nature: PMPI intercepts calls for the
 * whole process. It is only ever read through the function below.
 */
#include <mpi.h>

#include "prof/mpitime.h"

static double mpi_seconds;

double morph_prof_mpi_seconds(void) { return mpi_seconds; }

#define TIMED(call)                  \
  do {                               \
    double t0_ = PMPI_Wtime();       \
    int rc_ = (call);                \
    mpi_seconds += PMPI_Wtime() - t0_; \
    return rc_;                      \
  } while (0)

int MPI_Send(const void *b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c)
{
  TIMED(PMPI_Send(b, n, t, d, tag, c));
}

int MPI_Recv(void *b, int n, MPI_Datatype t, int s, int tag, MPI_Comm c, MPI_Status *st)
{
  TIMED(PMPI_Recv(b, n, t, s, tag, c, st));
}

int MPI_Sendrecv(const void *sb, int sn, MPI_Datatype st, int d, int stag, void *rb, int rn,
                 MPI_Datatype rt, int s, int rtag, MPI_Comm c, MPI_Status *status)
{
  TIMED(PMPI_Sendrecv(sb, sn, st, d, stag, rb, rn, rt, s, rtag, c, status));
}

int MPI_Wait(MPI_Request *r, MPI_Status *st) { TIMED(PMPI_Wait(r, st)); }

int MPI_Waitall(int n, MPI_Request r[], MPI_Status st[]) { TIMED(PMPI_Waitall(n, r, st)); }

int MPI_Waitany(int n, MPI_Request r[], int *i, MPI_Status *st)
{
  TIMED(PMPI_Waitany(n, r, i, st));
}

int MPI_Probe(int s, int tag, MPI_Comm c, MPI_Status *st) { TIMED(PMPI_Probe(s, tag, c, st)); }

int MPI_Barrier(MPI_Comm c) { TIMED(PMPI_Barrier(c)); }

int MPI_Bcast(void *b, int n, MPI_Datatype t, int root, MPI_Comm c)
{
  TIMED(PMPI_Bcast(b, n, t, root, c));
}

int MPI_Reduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, int root, MPI_Comm c)
{
  TIMED(PMPI_Reduce(s, r, n, t, op, root, c));
}

int MPI_Allreduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c)
{
  TIMED(PMPI_Allreduce(s, r, n, t, op, c));
}

int MPI_Gather(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt,
               int root, MPI_Comm c)
{
  TIMED(PMPI_Gather(s, sn, st, r, rn, rt, root, c));
}

int MPI_Allgather(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt,
                  MPI_Comm c)
{
  TIMED(PMPI_Allgather(s, sn, st, r, rn, rt, c));
}

int MPI_Allgatherv(const void *s, int sn, MPI_Datatype st, void *r, const int rn[],
                   const int d[], MPI_Datatype rt, MPI_Comm c)
{
  TIMED(PMPI_Allgatherv(s, sn, st, r, rn, d, rt, c));
}

int MPI_Alltoall(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt,
                 MPI_Comm c)
{
  TIMED(PMPI_Alltoall(s, sn, st, r, rn, rt, c));
}

int MPI_Alltoallv(const void *s, const int sn[], const int sd[], MPI_Datatype st, void *r,
                  const int rn[], const int rd[], MPI_Datatype rt, MPI_Comm c)
{
  TIMED(PMPI_Alltoallv(s, sn, sd, st, r, rn, rd, rt, c));
}
