/*
 * TOFA, paper 004's Listing 1.1:
 *   S = |VG| consecutive nodes with outage probability 0
 *   if S is empty: T = ScotchMap(G, H)  else T = ScotchMap(G, ScotchExtract(H, S))
 * "Consecutive" is node order, the order the resource manager allocates
 * in; among the windows of free fault-free nodes, the cheapest under
 * Eq. 1 is taken (see window()).
 *
 * Without a window the paper maps on the whole machine. Scotch balances
 * load over every target node, so a job far smaller than the machine ends
 * up spread over all of it (a 4x4x4 grid on the 8x8x8 torus: on every
 * other node along each dimension, docs/topology.md), which costs hops and
 * touches more nodes. Here the target is instead the most compact set of
 * |VG| free nodes, fault-free ones first, with Eq. 1 costs: still Scotch
 * on the machine graph with Eq. 1 weights, without the spreading.
 */
#include <stdlib.h>

#include "place/map_internal.h"

/* The sum of route costs between all nodes of the window at `start`. */
static double window_cost(const morph__mapctx *c, int start)
{
  double sum = 0;
  for (int i = 0; i < c->k; i++)
    for (int j = 0; j < c->k; j++)
      sum += i == j ? 0 : morph__map_route_cost(c, start + i, start + j);
  return sum;
}

/* Start of the window of k consecutive free fault-free nodes to use, or
 * -1 without one. Listing 1.1 takes any such window; here the one whose
 * routes cost least under Eq. 1 (the first on ties): its nodes cannot
 * fail, but the routes between them cross other nodes, and a window that
 * straddles two planes of the torus has routes through nodes outside it,
 * which may fail (measured: with the first window, LAMMPS-like jobs
 * aborted more often than with Slurm's order). */
static int window(const morph__mapctx *c)
{
  int run = 0, best = -1;
  double best_cost = 0;
  for (int v = 0; v < c->n; v++) {
    run = c->is_avail[v] && morph__map_pf(c, v) == 0 ? run + 1 : 0;
    if (run < c->k)
      continue;
    double cost = window_cost(c, v - c->k + 1);
    if (best < 0 || cost < best_cost)
      best = v - c->k + 1, best_cost = cost;
  }
  return best;
}

static int map_tofa(morph__mapctx *c, int *node)
{
  int k = c->k, start = window(c), fault_free, rc;
  int *cand = malloc(sizeof(int) * (size_t)k), *pool = NULL;
  if (!cand)
    return morph__map_say(c, MORPH_ENOMEM, "out of memory");
  c->rep->tofa_window = start >= 0;
  if (start >= 0) {
    for (int i = 0; i < k; i++)
      cand[i] = start + i;
    rc = MORPH_OK;
  } else if (!(pool = morph__map_pool(c, &fault_free))) {
    rc = morph__map_say(c, MORPH_ENOMEM, "out of memory");
  } else {
    /* Fault-free nodes only while they suffice; then the least likely. */
    int npool = fault_free >= k ? fault_free : c->navail;
    rc = morph__map_compact(c, pool, npool, NULL, 0, k, cand);
    if (rc)
      morph__map_say(c, rc, "cannot choose %d nodes", k);
  }
  if (!rc && !c->w) {
    for (int i = 0; i < k; i++) /* nothing to optimise: window order */
      node[i] = cand[i];
  } else if (!rc && (rc = morph__scotch_map(c, cand, NULL, 0, 0, node)) == MORPH_OK) {
    morph__map_keep_cheaper(c, cand, node);
  }
  free(pool);
  free(cand);
  return rc;
}

const morph__mapper morph__map_tofa = {"tofa", map_tofa};
