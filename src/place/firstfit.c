/* First fit: the lowest-numbered free units, in node order. A job that
 * expands fills its own nodes first (slot units), for locality; a START
 * after a SHRINK takes the released pieces first, in the order they were
 * released; a SHRINK gives back pieces on DOWN or DRAINING nodes first,
 * then UP ones, from its last piece backwards (the first holds the
 * master). This is what the policy engine booked before placement became
 * its own stage. */
#include "internal.h"

static int min(int a, int b)
{
  return a < b ? a : b;
}

static int take_first(morph__plan *pl, int units)
{
  int rc = MORPH_OK;
  for (int i = morph__plan_first_free(pl); units > 0 && rc == MORPH_OK && i < pl->snap->nnodes;
       i = morph__plan_first_free(pl)) {
    int u = min(morph__plan_free_units(pl, i), units);
    rc = morph__plan_book(pl, i, u);
    units -= u;
  }
  return rc;
}

static int start(morph__plan *pl, const morph_policy_job *job, int units)
{
  (void)job;
  int rc = MORPH_OK;
  for (int k = 0; k < morph__plan_reuse_count(pl) && units > 0 && rc == MORPH_OK; k++) {
    int u = min(morph__plan_reuse_units(pl, k), units);
    rc = u > 0 ? morph__plan_reuse(pl, k, u) : MORPH_OK;
    units -= u;
  }
  return rc == MORPH_OK ? take_first(pl, units) : rc;
}

static int expand(morph__plan *pl, const morph_policy_job *job, int units)
{
  int rc = MORPH_OK;
  for (int k = 0; k < job->nalloc && units > 0 && rc == MORPH_OK; k++) {
    int u = min(morph__plan_free_units(pl, job->alloc[k].node), units);
    rc = u > 0 ? morph__plan_book(pl, job->alloc[k].node, u) : MORPH_OK;
    units -= u;
  }
  return rc == MORPH_OK ? take_first(pl, units) : rc;
}

/* Gives back pieces whose node is (or is not) UP, as `up` says, from the
 * last piece backwards; *units falls by what was given back. */
static int release_pass(morph__plan *pl, const morph_policy_job *job, int *units, int up)
{
  int rc = MORPH_OK;
  for (int k = job->nalloc - 1; k >= 0 && *units > 0 && rc == MORPH_OK; k--) {
    if (morph__plan_node_up(pl, job->alloc[k].node) != up)
      continue;
    int u = min(morph__plan_releasable(pl, k), *units);
    rc = u > 0 ? morph__plan_release(pl, k, u) : MORPH_OK;
    *units -= u;
  }
  return rc;
}

static int shrink(morph__plan *pl, const morph_policy_job *job, int units)
{
  int rc = release_pass(pl, job, &units, 0);
  return rc == MORPH_OK ? release_pass(pl, job, &units, 1) : rc;
}

const morph__place_ops morph__firstfit_ops = {
    .name = "firstfit",
    .description = "lowest free units first; expand: own nodes first; shrink: DOWN or "
                   "DRAINING nodes first, never the master",
    .start = start,
    .expand = expand,
    .shrink = shrink,
};
