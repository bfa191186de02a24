/* What the strategies share: route costs, fault-free pools, compact node
 * sets, and the evaluation of a placement. */
#include <stdlib.h>
#include <string.h>

#include "place/map_internal.h"

/* Strategies ask for the same costs many times (every centre of a compact
 * set, every step of greedy): each route is computed once per call. */
double morph__map_route_cost(const morph__mapctx *c, int u, int v)
{
  double *slot = c->cache ? &c->cache[(size_t)u * c->n + v] : NULL;
  if (slot && *slot >= 0)
    return *slot;
  double d = morph_route_cost(c->in->topo, c->in->faults, c->in->cost, u, v);
  if (slot)
    *slot = d;
  return d;
}

double morph__map_pf(const morph__mapctx *c, int node) { return morph_faults_get(c->in->faults, node); }

/* Sort key of the pool: probability, then node order. */
typedef struct keyed {
  double pf;
  int node;
} keyed;

static int by_pf(const void *a, const void *b)
{
  const keyed *x = a, *y = b;
  if (x->pf != y->pf)
    return x->pf < y->pf ? -1 : 1;
  return x->node - y->node;
}

int *morph__map_pool(const morph__mapctx *c, int *fault_free)
{
  keyed *k = malloc(sizeof *k * (size_t)c->navail);
  int *pool = malloc(sizeof(int) * (size_t)c->navail);
  if (!k || !pool) {
    free(k);
    free(pool);
    return NULL;
  }
  *fault_free = 0;
  for (int i = 0; i < c->navail; i++) {
    k[i] = (keyed){morph__map_pf(c, c->avail[i]), c->avail[i]};
    *fault_free += k[i].pf == 0;
  }
  qsort(k, (size_t)c->navail, sizeof *k, by_pf);
  for (int i = 0; i < c->navail; i++)
    pool[i] = k[i].node;
  free(k);
  return pool;
}

typedef struct dist {
  double d;
  int node;
} dist;

static int by_dist(const void *a, const void *b)
{
  const dist *x = a, *y = b;
  if (x->d != y->d)
    return x->d < y->d ? -1 : 1;
  return x->node - y->node;
}

/* The k pool nodes nearest to `centre` into out; their pairwise cost sum. */
static double ball(const morph__mapctx *c, const int *pool, int npool, int centre, int k,
                   dist *tmp, int *out)
{
  for (int i = 0; i < npool; i++)
    tmp[i] = (dist){morph__map_route_cost(c, centre, pool[i]), pool[i]};
  qsort(tmp, (size_t)npool, sizeof *tmp, by_dist);
  double sum = 0;
  for (int i = 0; i < k; i++) {
    out[i] = tmp[i].node;
    for (int j = 0; j < i; j++)
      sum += morph__map_route_cost(c, out[i], out[j]);
  }
  return sum;
}

/* Grows a set from the seeds: each step adds the pool node with the
 * smallest summed cost to the set so far. */
static void grow(const morph__mapctx *c, const int *pool, int npool, int nseeds, int k, int *out,
                 unsigned char *taken, double *sum)
{
  for (int i = 0; i < npool; i++) {
    sum[i] = 0;
    for (int j = 0; j < nseeds; j++)
      sum[i] += morph__map_route_cost(c, pool[i], out[j]);
  }
  for (int have = nseeds; have < k; have++) {
    int best = -1;
    for (int i = 0; i < npool; i++)
      if (!taken[pool[i]] && (best < 0 || sum[i] < sum[best]))
        best = i;
    out[have] = pool[best];
    taken[pool[best]] = 1;
    for (int i = 0; i < npool; i++)
      sum[i] += morph__map_route_cost(c, pool[i], pool[best]);
  }
}

int morph__map_compact(const morph__mapctx *c, const int *pool, int npool, const int *seeds,
                       int nseeds, int k, int *out)
{
  if (npool + nseeds < k)
    return MORPH_ESIZE;
  dist *tmp = malloc(sizeof *tmp * (size_t)(npool > 0 ? npool : 1));
  int *cand = malloc(sizeof(int) * (size_t)k);
  double *sum = malloc(sizeof(double) * (size_t)(npool > 0 ? npool : 1));
  unsigned char *taken = calloc((size_t)c->n, 1);
  int rc = tmp && cand && sum && taken ? MORPH_OK : MORPH_ENOMEM;
  if (!rc && nseeds > 0) {
    memcpy(out, seeds, sizeof(int) * (size_t)nseeds);
    for (int i = 0; i < nseeds; i++)
      taken[seeds[i]] = 1;
    grow(c, pool, npool, nseeds, k, out, taken, sum);
  }
  double best = -1;
  for (int i = 0; !rc && nseeds == 0 && i < npool; i++) {
    double s = ball(c, pool, npool, pool[i], k, tmp, cand);
    if (best < 0 || s < best) {
      best = s;
      memcpy(out, cand, sizeof(int) * (size_t)k);
    }
  }
  free(tmp);
  free(cand);
  free(sum);
  free(taken);
  return rc;
}

/* For a banded matrix (ranks that talk have close numbers, as LAMMPS's)
 * the candidates' order is already good and Scotch's heuristic can do
 * worse: measured on the 4x32x4 and 4x4x32 tori of paper 004's Table 1
 * (cost 1.24e9 against 1.15e9 for the LAMMPS-like proxy, and fewer
 * timesteps). */
void morph__map_keep_cheaper(const morph__mapctx *c, const int *cand, int *node)
{
  morph_map_input in = *c->in;
  in.nprocs = c->k;
  if (morph_map_cost(&in, cand) < morph_map_cost(&in, node))
    for (int i = 0; i < c->k; i++)
      node[i] = cand[i];
}

double morph_map_cost(const morph_map_input *in, const int *node)
{
  double sum = 0;
  if (!in || !node || !in->traffic || in->traffic_n != in->nprocs)
    return 0;
  for (int i = 0; i < in->nprocs; i++)
    for (int j = 0; j < in->nprocs; j++) {
      uint64_t t = in->traffic[i * in->nprocs + j];
      if (t && i != j)
        sum += (double)t * morph_route_cost(in->topo, in->faults, in->cost, node[i], node[j]);
    }
  return sum;
}

/* Marks the nodes of the route from u to v (switches are not nodes). */
static void mark_route(const morph_topo *t, int u, int v, unsigned char *mark, morph_link *links,
                       int max)
{
  int hops = morph_topo_route(t, u, v, links, max), n = morph_topo_nodes(t);
  for (int i = 0; i < hops; i++) {
    if (links[i].from < n)
      mark[links[i].from] = 1;
    if (links[i].to < n)
      mark[links[i].to] = 1;
  }
}

int morph_map_footprint(const morph_map_input *in, const int *node, unsigned char *touched)
{
  if (!in || !node || !touched || !in->topo)
    return MORPH_EINVAL;
  int k = in->nprocs, max = morph_topo_max_hops(in->topo);
  morph_link *links = malloc(sizeof *links * (size_t)(max > 0 ? max : 1));
  if (!links)
    return MORPH_ENOMEM;
  memset(touched, 0, (size_t)morph_topo_nodes(in->topo));
  for (int i = 0; i < k; i++)
    touched[node[i]] = 1;
  for (int i = 0; i < k; i++)
    for (int j = 0; j < k; j++) {
      int talk = !in->traffic || in->traffic[i * k + j];
      if (i != j && talk)
        mark_route(in->topo, node[i], node[j], touched, links, max);
    }
  free(links);
  return MORPH_OK;
}

int morph_map_touches(const morph_map_input *in, const int *node, const unsigned char *failed)
{
  int n = in ? morph_topo_nodes(in->topo) : 0, hit = 0;
  unsigned char *touched = malloc((size_t)(n > 0 ? n : 1));
  if (!touched || morph_map_footprint(in, node, touched) != MORPH_OK) {
    free(touched);
    return MORPH_ENOMEM;
  }
  for (int v = 0; !hit && v < n; v++)
    hit = touched[v] && failed[v];
  free(touched);
  return hit;
}
