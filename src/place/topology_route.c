/* Routes: dimension order on a torus, up and down a tree, shortest paths
 * in a graph (morph/topology.h states each rule). */
#include <stdlib.h>
#include <string.h>

#include "place/topology_internal.h"

typedef struct route {
  morph_link *links;
  int max, count;
} route;

static void hop(route *r, int from, int to)
{
  if (r->count < r->max)
    r->links[r->count] = (morph_link){from, to};
  r->count++;
}

/* One step along dimension d of the ring, the shorter way (ties: up). */
static int ring_step(int from, int to, int size)
{
  int up = ((to - from) % size + size) % size;
  return up <= size - up ? 1 : -1;
}

static void torus_route(const morph_topo *t, int u, int v, route *r)
{
  int c[3], *d = (int *)t->dims;
  memcpy(c, t->xyz[u], sizeof c);
  for (int k = 0; k < 3; k++) {
    int step = ring_step(c[k], t->xyz[v][k], d[k]);
    while (c[k] != t->xyz[v][k]) {
      int from = t->at[c[0] + d[0] * (c[1] + d[1] * c[2])];
      c[k] = ((c[k] + step) % d[k] + d[k]) % d[k];
      hop(r, from, t->at[c[0] + d[0] * (c[1] + d[1] * c[2])]);
    }
  }
}

static void tree_route(const morph_topo *t, int u, int v, route *r)
{
  if (t->kind == MORPH_TOPO_FLAT) {
    hop(r, u, t->n); /* the one switch */
    hop(r, t->n, v);
    return;
  }
  int lu = t->n + t->leaf[u], lv = t->n + t->leaf[v], spine = t->n + t->leaves;
  hop(r, u, lu);
  if (lu != lv) {
    hop(r, lu, spine);
    hop(r, spine, lv);
  }
  hop(r, lv, v);
}

static void graph_route(const morph_topo *t, int u, int v, route *r)
{
  while (u != v) {
    int w = t->next[(size_t)u * t->n + v];
    hop(r, u, w);
    u = w;
  }
}

int morph_topo_route(const morph_topo *t, int from, int to, morph_link *links, int max)
{
  if (!t || from < 0 || to < 0 || from >= t->n || to >= t->n || (!links && max > 0))
    return MORPH_EINVAL;
  route r = {links, max, 0};
  if (from == to)
    return 0;
  switch (t->kind) {
  case MORPH_TOPO_TORUS: torus_route(t, from, to, &r); break;
  case MORPH_TOPO_FATTREE:
  case MORPH_TOPO_FLAT: tree_route(t, from, to, &r); break;
  case MORPH_TOPO_GRAPH: graph_route(t, from, to, &r); break;
  default: return MORPH_EINVAL;
  }
  return r.count;
}

/* Breadth-first search from every destination v: next[u][v] is the
 * neighbour of u one link closer to v; neighbours are visited in
 * increasing order, so ties go to the lowest node. */
static int bfs_to(morph_topo *t, int **adj, const int *deg, int v, int *queue, int *depth)
{
  int head = 0, tail = 0, n = t->n, seen = 1;
  for (int i = 0; i < n; i++)
    depth[i] = -1;
  depth[v] = 0;
  queue[tail++] = v;
  t->next[(size_t)v * n + v] = v;
  while (head < tail) {
    int w = queue[head++];
    for (int k = 0; k < deg[w]; k++) {
      int u = adj[w][k];
      if (depth[u] >= 0)
        continue;
      depth[u] = depth[w] + 1;
      if (depth[u] > t->max_hops)
        t->max_hops = depth[u];
      t->next[(size_t)u * n + v] = w;
      queue[tail++] = u;
      seen++;
    }
  }
  return seen;
}

static int cmp_int(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }

int morph__topo_graph_finish(morph_topo *t, int **adj, const int *deg, int *a, int *b)
{
  int n = t->n, rc = MORPH_OK;
  int *queue = malloc(sizeof(int) * (size_t)n), *depth = malloc(sizeof(int) * (size_t)n);
  t->next = malloc(sizeof(int) * (size_t)n * (size_t)n);
  if (!queue || !depth || !t->next)
    rc = MORPH_ENOMEM;
  for (int u = 0; !rc && u < n; u++)
    qsort(adj[u], (size_t)deg[u], sizeof(int), cmp_int);
  for (int v = 0; !rc && v < n; v++) {
    if (bfs_to(t, adj, deg, v, queue, depth) == n)
      continue;
    for (int u = 0; u < n; u++)
      if (depth[u] < 0) {
        *a = u, *b = v;
        break;
      }
    rc = MORPH_EPARSE;
  }
  free(queue);
  free(depth);
  return rc;
}
