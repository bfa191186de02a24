/*
 * box: morph's own strategy on a torus (not paper 004's). Listing 1.1
 * takes |VG| consecutive fault-free nodes, which on an 8x8x8 torus is a
 * slab (a 64-rank job gets one 8x8 plane): the job's grid lines are
 * stretched over the plane and its routes are long. Here the job gets the
 * most compact fault-free sub-box of the torus instead (4x4x4 for 64
 * ranks), wherever it lies, and Scotch maps onto that box as a
 * sub-architecture of its own torus (SCOTCH_archSub).
 *
 * The box: every shape a x b x c that holds k ranks with only its last
 * plane partial (filled x first, then y), at every origin, wrapping
 * around; its k nodes must be free and fault-free. Per shape, the origin
 * whose routes cost least under Eq. 1 (the first on ties): a box wider
 * than half a ring routes around the outside, through nodes that may
 * fail, and pays for it. Then each shape's box is mapped and the one
 * cheapest for the job's traffic wins (the most compact without
 * traffic): by route costs alone an 8x3x3 box beats 4x4x4 for 64 ranks,
 * but the LAMMPS-like proxy's 4x4x4 grid costs 7.7e8 there against
 * 6.0e8 on the 4x4x4 box (Listing 1.1's window: 7.6e8). Without any box
 * (or on another topology) this is Listing 1.1 as in map_tofa.c.
 */
#include <stdlib.h>

#include "place/map_internal.h"

typedef struct box {
  int dims[3];   /* the torus */
  int shape[3];  /* a, b, c */
  int origin[3]; /* lowest corner, before wrapping */
} box;

/* Node of the i-th position of the box, x fastest. */
static int box_node(const box *b, int i)
{
  int x = (b->origin[0] + i % b->shape[0]) % b->dims[0];
  int y = (b->origin[1] + i / b->shape[0] % b->shape[1]) % b->dims[1];
  int z = (b->origin[2] + i / (b->shape[0] * b->shape[1])) % b->dims[2];
  return x + b->dims[0] * (y + b->dims[1] * z);
}

/* The box's k nodes into out if all are free and fault-free; 0 if not. */
static int box_usable(const morph__mapctx *c, const box *b, int *out)
{
  for (int i = 0; i < c->k; i++) {
    out[i] = box_node(b, i);
    if (!c->is_avail[out[i]] || morph__map_pf(c, out[i]) > 0)
      return 0;
  }
  return 1;
}

/* Sum of route costs between the nodes, or a value >= limit as soon as
 * the sum reaches it (limit < 0: no limit). */
static double routes_cost(const morph__mapctx *c, const int *nodes, double limit)
{
  double sum = 0;
  for (int i = 0; i < c->k; i++) {
    for (int j = 0; j < c->k; j++)
      sum += i == j ? 0 : morph__map_route_cost(c, nodes[i], nodes[j]);
    if (limit >= 0 && sum >= limit)
      return sum;
  }
  return sum;
}

/* The cheapest usable origin of the shape in b (route costs, Eq. 1):
 * b->origin and nodes[] set, its cost returned; < 0 if no origin works. */
static double best_origin(const morph__mapctx *c, box *b, int *nodes, int *tmp)
{
  /* A shape as long as a ring is the same box at every origin along it. */
  int span[3], origin[3] = {0, 0, 0};
  double best = -1;
  for (int d = 0; d < 3; d++)
    span[d] = b->shape[d] == b->dims[d] ? 1 : b->dims[d];
  for (b->origin[2] = 0; b->origin[2] < span[2]; b->origin[2]++)
    for (b->origin[1] = 0; b->origin[1] < span[1]; b->origin[1]++)
      for (b->origin[0] = 0; b->origin[0] < span[0]; b->origin[0]++) {
        if (!box_usable(c, b, tmp))
          continue;
        double cost = routes_cost(c, tmp, best);
        if (best >= 0 && cost >= best)
          continue;
        best = cost;
        for (int d = 0; d < 3; d++)
          origin[d] = b->origin[d];
        for (int i = 0; i < c->k; i++)
          nodes[i] = tmp[i];
      }
  for (int d = 0; d < 3; d++)
    b->origin[d] = origin[d];
  return best;
}

/* 1 if no route between two of the nodes crosses a node that may fail:
 * then the torus's own distances are the route costs and Scotch can map
 * onto its torus cut down to the box. */
static int routes_fault_free(const morph__mapctx *c, const int *nodes)
{
  morph_map_input in = *c->in;
  unsigned char *touched = malloc((size_t)c->n);
  in.nprocs = c->k, in.traffic = NULL;
  int ok = touched && morph_map_footprint(&in, nodes, touched) == MORPH_OK;
  for (int v = 0; ok && v < c->n; v++)
    ok = !touched[v] || morph__map_pf(c, v) == 0;
  free(touched);
  return ok;
}

/* The ranks on the box's nodes: Scotch's mapping, or the box's own order
 * if cheaper; without traffic, the box's order. Returns the cost of the
 * job's traffic (< 0 on a Scotch error, message in the report). */
static double map_onto(morph__mapctx *c, const int *nodes, int *node)
{
  morph_map_input in = *c->in;
  in.nprocs = c->k;
  if (!c->w) {
    for (int i = 0; i < c->k; i++)
      node[i] = nodes[i];
    return 0;
  }
  if (morph__scotch_map(c, nodes, NULL, 0, routes_fault_free(c, nodes), node) != MORPH_OK)
    return -1;
  morph__map_keep_cheaper(c, nodes, node);
  return morph_map_cost(&in, node);
}

/* Every shape a x b x c that holds the job with only its last plane
 * partial, at its most compact usable origin, mapped: the cheapest for
 * the job's traffic (the most compact without traffic) into node[] and
 * *found. 1 if a box was found, 0 if none, < 0 on error. */
static int search(morph__mapctx *c, box *found, int *node)
{
  box b = {{0}, {0}, {0}};
  int k = c->k, *nodes = malloc(sizeof(int) * (size_t)k), *tmp = malloc(sizeof(int) * (size_t)k);
  int *mapped = malloc(sizeof(int) * (size_t)k), have = 0;
  double best = 0;
  if (!nodes || !tmp || !mapped)
    have = morph__map_say(c, MORPH_ENOMEM, "out of memory");
  morph_topo_dims(c->in->topo, b.dims);
  for (int a = 1; have >= 0 && a <= b.dims[0]; a++)
    for (int y = 1; have >= 0 && y <= b.dims[1]; y++) {
      b.shape[0] = a, b.shape[1] = y, b.shape[2] = (k + a * y - 1) / (a * y);
      double compact = b.shape[2] > b.dims[2] ? -1 : best_origin(c, &b, nodes, tmp);
      double cost = compact < 0 ? -1 : c->w ? map_onto(c, nodes, mapped) : compact;
      if (compact >= 0 && cost < 0)
        have = MORPH_EINVAL; /* Scotch failed: the report says why */
      if (cost < 0 || (have && cost >= best))
        continue;
      if (!c->w)
        map_onto(c, nodes, mapped);
      have = 1, best = cost, *found = b;
      for (int i = 0; i < k; i++)
        node[i] = mapped[i];
    }
  free(nodes), free(tmp), free(mapped);
  return have;
}

static int map_box(morph__mapctx *c, int *node)
{
  box b = {{0}, {0}, {0}};
  int found = 0;
  if (morph_topo_kind_of(c->in->topo) == MORPH_TOPO_TORUS)
    found = search(c, &b, node);
  if (found < 0)
    return found;
  if (!found)
    return morph__map_tofa.map(c, node); /* Listing 1.1 */
  for (int d = 0; d < 3; d++)
    c->rep->box[d] = b.shape[d];
  return MORPH_OK;
}

const morph__mapper morph__map_box = {"box", map_box};
