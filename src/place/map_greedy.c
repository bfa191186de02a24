/*
 * Greedy placement, after paper 004's description (section 5.1): process
 * pairs sorted by decreasing traffic; for each pair, a process not yet
 * placed goes to the free node cheapest to reach from its partner (route
 * cost under Eq. 1, so one hop first, and nodes likely to fail last); a
 * pair with neither placed starts next to what is placed already (the
 * first at the first fault-free free node). Ranks without traffic fill
 * the nodes nearest to the others. Only fault-free free nodes are used
 * while there are enough of them.
 */
#include <stdlib.h>

#include "place/map_internal.h"

typedef struct pair {
  double w;
  int a, b;
} pair;

static int by_weight(const void *x, const void *y)
{
  const pair *p = x, *q = y;
  if (p->w != q->w)
    return p->w > q->w ? -1 : 1;
  return p->a != q->a ? p->a - q->a : p->b - q->b;
}

typedef struct greedy {
  morph__mapctx *c;
  const int *pool; /* candidate nodes, preferred first */
  int npool;
  unsigned char *used; /* per node */
  int *node;           /* rank -> node, -1 while unplaced */
  int placed;
} greedy;

/* The unused pool node with the smallest summed cost to the anchors
 * (ranks), or the first unused one when there is no anchor. */
static int nearest(greedy *g, const int *anchors, int nanchors)
{
  int best = -1;
  double best_cost = 0;
  for (int i = 0; i < g->npool; i++) {
    int v = g->pool[i];
    if (g->used[v])
      continue;
    double cost = 0;
    for (int a = 0; a < nanchors; a++)
      cost += morph__map_route_cost(g->c, g->node[anchors[a]], v);
    if (best < 0 || cost < best_cost)
      best = v, best_cost = cost;
  }
  return best;
}

static void put(greedy *g, int rank, int v)
{
  g->node[rank] = v;
  g->used[v] = 1;
  g->placed++;
}

/* A rank with no placed partner starts next to everything placed so far. */
static void place_alone(greedy *g, int rank, int *all)
{
  int n = 0;
  for (int r = 0; r < g->c->k; r++)
    if (g->node[r] >= 0)
      all[n++] = r;
  put(g, rank, nearest(g, all, n));
}

static void place_pairs(greedy *g, const pair *pairs, int npairs, int *all)
{
  for (int i = 0; i < npairs && g->placed < g->c->k; i++) {
    int a = pairs[i].a, b = pairs[i].b;
    if (g->node[a] >= 0 && g->node[b] >= 0)
      continue;
    if (g->node[a] < 0 && g->node[b] < 0)
      place_alone(g, a, all);
    int anchor = g->node[a] >= 0 ? a : b, other = anchor == a ? b : a;
    put(g, other, nearest(g, &anchor, 1));
  }
  for (int r = 0; r < g->c->k; r++)
    if (g->node[r] < 0)
      place_alone(g, r, all);
}

static int map_greedy(morph__mapctx *c, int *node)
{
  int k = c->k, npairs = 0, fault_free;
  if (!c->w)
    return morph__map_say(c, MORPH_EINVAL, "no communication matrix");
  pair *pairs = malloc(sizeof *pairs * (size_t)k * (size_t)k);
  int *pool = morph__map_pool(c, &fault_free), *all = malloc(sizeof(int) * (size_t)k);
  unsigned char *used = calloc((size_t)c->n, 1);
  if (!pairs || !pool || !all || !used) {
    free(pairs), free(pool), free(all), free(used);
    return morph__map_say(c, MORPH_ENOMEM, "out of memory");
  }
  for (int i = 0; i < k; i++)
    for (int j = i + 1; j < k; j++)
      if (c->w[i * k + j] > 0)
        pairs[npairs++] = (pair){c->w[i * k + j], i, j};
  qsort(pairs, (size_t)npairs, sizeof *pairs, by_weight);
  for (int r = 0; r < k; r++)
    node[r] = -1;
  greedy g = {c, pool, fault_free >= k ? fault_free : c->navail, used, node, 0};
  place_pairs(&g, pairs, npairs, all);
  free(pairs), free(pool), free(all), free(used);
  return MORPH_OK;
}

const morph__mapper morph__map_greedy = {"greedy", map_greedy};
