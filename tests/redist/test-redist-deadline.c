/*
 * Deadlines, on 2 processes. (1) Rank 1 does not post its receives: rank 0,
 * sending 16 MiB 1 -> 2, must return MORPH_ETIMEDOUT close to its deadline
 * with its old part untouched. (2) Rank 0 does not send: rank 1, waiting
 * for its receives, must time out the same way. Afterwards the late side
 * runs its half so that the abandoned requests complete and the job ends
 * cleanly; rank 1 then checks the data that arrived in case (1).
 *
 * On one host the pair is copied directly (src/redist/local.c): the late
 * receiver of (1) reads the sender's old part itself. With
 * MORPH_REDIST_LOCAL=0 (the MPI path, as between hosts) a sender that gave
 * up before the receiver's answer has posted nothing, so the late receiver
 * of (1) times out too (given a deadline), which is what a failed window
 * expects of its peers; (2) completes on both paths.
 */
#include <string.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/clock.h"
#include "morph/error.h"
#include "redist/redist.h"

#define GLOBAL ((int64_t)4 << 20) /* doubles: 32 MiB, 16 MiB move */
#define LIMIT 0.5                 /* seconds */

typedef struct side {
  morph__plan plan;
  double *old, *nw;
} side;

static int setup(side *s, int me)
{
  morph__dist d = {MORPH__DIST_BLOCK, GLOBAL, 1};
  if (morph__plan_build(&d, NULL, 1, 2, me, &s->plan) != MORPH_OK)
    return 1;
  s->old = me == 0 ? malloc(GLOBAL * sizeof(double)) : NULL;
  s->nw = malloc((size_t)s->plan.new_count * sizeof(double));
  for (int64_t i = 0; s->old && i < GLOBAL; i++)
    s->old[i] = (double)i;
  return !s->nw || (me == 0 && !s->old);
}

/* Runs exec with a short deadline and checks it times out in time. */
static int expect_timeout(MPI_Comm comm, side *s, int tag, const char *what)
{
  double t0 = morph__now();
  int rc = morph__redist_exec(comm, &s->plan, s->old, s->nw, sizeof(double), MPI_DOUBLE, tag,
                              t0 + LIMIT, NULL);
  double t = morph__now() - t0;
  int bad = rc != MORPH_ETIMEDOUT || t < LIMIT || t > LIMIT + 1.5;
  for (int64_t i = 0; s->old && i < GLOBAL; i++)
    bad |= s->old[i] != (double)i;
  printf("%s: %s after %.3f s (limit %.1f s)%s\n", what, morph_err_name(rc), t, LIMIT,
         bad ? "  FAILED" : "");
  return bad;
}

static int late_side(MPI_Comm comm, side *s, int tag, int me, int expect)
{
  double deadline = expect == MORPH_ETIMEDOUT ? morph__now() + LIMIT : 0;
  int rc = morph__redist_exec(comm, &s->plan, s->old, s->nw, sizeof(double), MPI_DOUBLE, tag,
                              deadline, NULL);
  if (rc != expect)
    printf("late side: %s, expected %s  FAILED\n", morph_err_name(rc), morph_err_name(expect));
  if (expect != MORPH_OK)
    return rc != expect;
  int bad = rc != MORPH_OK;
  int64_t off = me == 1 ? GLOBAL / 2 : 0;
  for (int64_t i = 0; me == 1 && i < s->plan.new_count; i++)
    bad |= s->nw[i] != (double)(off + i);
  return bad;
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int me, size, errors = 0, all = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  side s = {0};
  errors = size != 2 || setup(&s, me);
  if (!errors) {
    /* (1) the receiver is late: the sender times out. */
    if (me == 0)
      errors += expect_timeout(MPI_COMM_WORLD, &s, 1, "sender, receiver absent");
    MPI_Barrier(MPI_COMM_WORLD);
    const char *local = getenv("MORPH_REDIST_LOCAL");
    int direct = !local || strcmp(local, "0") != 0;
    if (me == 1)
      errors += late_side(MPI_COMM_WORLD, &s, 1, me, direct ? MORPH_OK : MORPH_ETIMEDOUT);
    MPI_Barrier(MPI_COMM_WORLD);
    /* (2) the sender is late: the receiver times out. Its new part must
     * stay allocated until the late send has landed (after the barrier). */
    if (me == 1)
      errors += expect_timeout(MPI_COMM_WORLD, &s, 2, "receiver, sender absent");
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0)
      errors += late_side(MPI_COMM_WORLD, &s, 2, me, MORPH_OK);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (me == 0)
    printf("test-redist-deadline: %d errors\n", all);
  free(s.old);
  free(s.nw);
  morph__plan_free(&s.plan);
  MPI_Finalize();
  return all ? 1 : 0;
}
