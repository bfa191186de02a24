/*
 * Scotch 7 for the mapping strategies: the job as a source graph, the
 * chosen nodes as a target architecture, SCOTCH_graphMap or
 * SCOTCH_graphRemap, one rank per node.
 *
 * The target is Scotch's own architecture (SCOTCH_archTorus3, a two-level
 * SCOTCH_archTleaf, SCOTCH_archCmplt) cut down to the chosen nodes with
 * SCOTCH_archSub when every link costs the same (no node likely to fail),
 * when the caller says the candidates' routes cross no such node, and for
 * remapping. Otherwise it is a decomposition-defined architecture
 * ("deco 0") whose terminal distances are the route costs of the cost
 * model (Eq. 1 along the topology's own routes, exactly), and whose
 * decomposition halves the nodes recursively along their longest torus
 * dimension (node order for other kinds).
 *
 * Scotch runs in its own context (random seed from the input,
 * deterministic mode), so two calls with the same input agree.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <scotch/scotch.h>

#include "place/map_internal.h"
#include "place/topology_internal.h"

/* Edge loads are scaled to 1..LOAD_MAX: Scotch sums load x distance in
 * 32-bit integers, and Eq. 1 distances reach 101 per link. */
#define LOAD_MAX 1000

typedef struct sgraph {
  SCOTCH_Num *vert, *edge, *load;
  SCOTCH_Num nedges;
} sgraph;

static void sgraph_free(sgraph *s)
{
  free(s->vert);
  free(s->edge);
  free(s->load);
}

/* Compressed adjacency of the symmetric traffic. */
static int sgraph_build(const morph__mapctx *c, sgraph *s)
{
  int k = c->k;
  double max = 0;
  for (int i = 0; i < k * k; i++)
    max = c->w[i] > max ? c->w[i] : max;
  s->vert = malloc(sizeof(SCOTCH_Num) * (size_t)(k + 1));
  s->edge = malloc(sizeof(SCOTCH_Num) * (size_t)(k * k + 1));
  s->load = malloc(sizeof(SCOTCH_Num) * (size_t)(k * k + 1));
  if (!s->vert || !s->edge || !s->load)
    return MORPH_ENOMEM;
  s->nedges = 0;
  for (int i = 0; i < k; i++) {
    s->vert[i] = s->nedges;
    for (int j = 0; j < k; j++) {
      if (i == j || c->w[i * k + j] <= 0)
        continue;
      long l = lround(c->w[i * k + j] / max * LOAD_MAX);
      s->edge[s->nedges] = j;
      s->load[s->nedges++] = l < 1 ? 1 : (SCOTCH_Num)l;
    }
  }
  s->vert[k] = s->nedges;
  return MORPH_OK;
}

/* Every link costs the same: Scotch's own architectures give the same
 * distances as the routes. */
static int uniform(const morph__mapctx *c)
{
  const morph_cost_model *m = c->in->cost;
  return morph_faults_count(c->in->faults) == 0 && (!m || !m->fn || m->fn == morph_link_cost_eq1);
}

/* Scotch's terminal number of each candidate in its native architecture:
 * torus x fastest; fat tree leaf-major (slot = order under its leaf);
 * flat the node itself. */
static void native_terms(const morph__mapctx *c, const int *cand, int per_leaf, SCOTCH_Num *term)
{
  const morph_topo *t = c->in->topo;
  int d[3], xyz[3];
  for (int i = 0; i < c->k; i++) {
    int v = cand[i], slot = 0;
    switch (t->kind) {
    case MORPH_TOPO_TORUS:
      morph_topo_dims(t, d);
      morph_topo_coords(t, v, xyz);
      term[i] = xyz[0] + d[0] * (xyz[1] + d[1] * xyz[2]);
      break;
    case MORPH_TOPO_FATTREE:
      for (int u = 0; u < v; u++)
        slot += t->leaf[u] == t->leaf[v];
      term[i] = t->leaf[v] * per_leaf + slot;
      break;
    default: term[i] = v;
    }
  }
}

/* The most nodes under one leaf of a fat tree. */
static int widest_leaf(const morph_topo *t)
{
  int *count = calloc((size_t)t->leaves, sizeof(int)), max = 1;
  for (int v = 0; count && v < t->n; v++)
    if (++count[t->leaf[v]] > max)
      max = count[t->leaf[v]];
  free(count);
  return max;
}

/* Scotch's own torus, two-level tree or complete graph, cut down to the
 * candidates with SCOTCH_archSub. MORPH_ENOSYS for a graph topology. */
static int native_arch(const morph__mapctx *c, const int *cand, SCOTCH_Arch *full, SCOTCH_Arch *sub)
{
  const morph_topo *t = c->in->topo;
  int per_leaf = t->kind == MORPH_TOPO_FATTREE ? widest_leaf(t) : 1, rc;
  SCOTCH_Num size[2] = {t->leaves, per_leaf}, link[2] = {4, 2}; /* hops via the spine, under a leaf */
  switch (t->kind) {
  case MORPH_TOPO_TORUS: rc = SCOTCH_archTorus3(full, t->dims[0], t->dims[1], t->dims[2]); break;
  case MORPH_TOPO_FATTREE: rc = SCOTCH_archTleaf(full, 2, size, link); break;
  case MORPH_TOPO_FLAT: rc = SCOTCH_archCmplt(full, t->n); break;
  default: return MORPH_ENOSYS;
  }
  SCOTCH_Num *term = malloc(sizeof(SCOTCH_Num) * (size_t)c->k);
  if (!rc && term)
    native_terms(c, cand, per_leaf, term);
  rc = !rc && term && SCOTCH_archSub(sub, full, c->k, term) == 0 ? MORPH_OK : MORPH_EINVAL;
  free(term);
  return rc;
}

/* Recursive bisection of the candidates into deco domains: domain d's
 * halves are 2d and 2d + 1, terminals are leaves. */
typedef struct bisect {
  const morph__mapctx *c;
  const int *cand;
  int *domain; /* per candidate index */
  int max;     /* largest domain number given */
  int dim;     /* torus dimension of the current split */
} bisect;

static int by_coord(const void *a, const void *b, void *arg)
{
  const bisect *B = arg;
  int u = B->cand[*(const int *)a], v = B->cand[*(const int *)b], x[3], y[3];
  morph_topo_coords(B->c->in->topo, u, x);
  morph_topo_coords(B->c->in->topo, v, y);
  return x[B->dim] != y[B->dim] ? x[B->dim] - y[B->dim] : u - v;
}

static int by_node(const void *a, const void *b, void *arg)
{
  const bisect *B = arg;
  return B->cand[*(const int *)a] - B->cand[*(const int *)b];
}

/* The torus dimension along which the candidates spread the most. */
static int widest(const bisect *B, const int *idx, int n)
{
  int lo[3] = {1 << 30, 1 << 30, 1 << 30}, hi[3] = {-1, -1, -1}, x[3], best = 0;
  for (int i = 0; i < n; i++) {
    morph_topo_coords(B->c->in->topo, B->cand[idx[i]], x);
    for (int d = 0; d < 3; d++) {
      lo[d] = x[d] < lo[d] ? x[d] : lo[d];
      hi[d] = x[d] > hi[d] ? x[d] : hi[d];
    }
  }
  for (int d = 1; d < 3; d++)
    if (hi[d] - lo[d] > hi[best] - lo[best])
      best = d;
  return best;
}

static void split(bisect *B, int *idx, int n, int dom)
{
  if (n == 1) {
    B->domain[idx[0]] = dom;
    B->max = dom > B->max ? dom : B->max;
    return;
  }
  if (morph_topo_kind_of(B->c->in->topo) == MORPH_TOPO_TORUS) {
    B->dim = widest(B, idx, n);
    qsort_r(idx, (size_t)n, sizeof(int), by_coord, B);
  } else {
    qsort_r(idx, (size_t)n, sizeof(int), by_node, B);
  }
  int half = (n + 1) / 2;
  split(B, idx, half, 2 * dom);
  split(B, idx + half, n - half, 2 * dom + 1);
}

/* The "deco 0" text: terminals (label = candidate index, weight 1, domain
 * number), then the lower triangle of terminal distances. */
static int deco_text(const morph__mapctx *c, const int *cand, char **text)
{
  int k = c->k, *idx = malloc(sizeof(int) * (size_t)k), *dom = malloc(sizeof(int) * (size_t)k);
  size_t len;
  FILE *f = idx && dom ? open_memstream(text, &len) : NULL;
  if (!f) {
    free(idx), free(dom);
    return MORPH_ENOMEM;
  }
  bisect B = {c, cand, dom, 1, 0};
  for (int i = 0; i < k; i++)
    idx[i] = i;
  split(&B, idx, k, 1);
  fprintf(f, "deco\n0\n%d %d\n", k, B.max);
  for (int i = 0; i < k; i++)
    fprintf(f, "%d 1 %d\n", i, dom[i]);
  for (int i = 1; i < k; i++) {
    for (int j = 0; j < i; j++) {
      long d = lround(morph__map_route_cost(c, cand[i], cand[j]));
      fprintf(f, "%ld%c", d < 1 ? 1 : d, j == i - 1 ? '\n' : ' ');
    }
  }
  int bad = ferror(f);
  fclose(f);
  free(idx), free(dom);
  return bad ? MORPH_ENOMEM : MORPH_OK;
}

static int deco_arch(const morph__mapctx *c, const int *cand, SCOTCH_Arch *a)
{
  char *text = NULL;
  int rc = deco_text(c, cand, &text);
  FILE *f = rc ? NULL : fmemopen(text, strlen(text), "r");
  if (!rc && (!f || SCOTCH_archLoad(a, f) != 0))
    rc = MORPH_EINVAL;
  if (f)
    fclose(f);
  free(text);
  return rc;
}

/* Scotch balances load but does not promise one vertex per terminal:
 * a rank that shares a node moves to the free node where its traffic
 * costs least. */
static void one_per_node(const morph__mapctx *c, const int *cand, SCOTCH_Num *part)
{
  int k = c->k, *owner = malloc(sizeof(int) * (size_t)k);
  if (!owner)
    return;
  for (int t = 0; t < k; t++)
    owner[t] = -1;
  for (int r = 0; r < k; r++) {
    if (part[r] >= 0 && part[r] < k && owner[part[r]] < 0) {
      owner[part[r]] = r;
      continue;
    }
    int best = -1;
    double best_cost = 0;
    for (int t = 0; t < k; t++) {
      if (owner[t] >= 0)
        continue;
      double cost = 0;
      for (int q = 0; q < k; q++)
        if (q != r && c->w[r * k + q] > 0 && part[q] >= 0 && part[q] < k && owner[part[q]] == q)
          cost += c->w[r * k + q] * morph__map_route_cost(c, cand[t], cand[part[q]]);
      if (best < 0 || cost < best_cost)
        best = t, best_cost = cost;
    }
    part[r] = best;
    owner[best] = r;
  }
  free(owner);
}

static int strategy(morph__mapctx *c, SCOTCH_Strat *s)
{
  const char *str = c->in->scotch_strategy;
  if (str && SCOTCH_stratGraphMap(s, str) != 0)
    return morph__map_say(c, MORPH_EINVAL, "Scotch rejected the mapping strategy '%.200s'", str);
  if (!str && SCOTCH_stratGraphMapBuild(s, SCOTCH_STRATQUALITY, c->k, 0.01) != 0)
    return morph__map_say(c, MORPH_EINVAL, "Scotch could not build a mapping strategy");
  return MORPH_OK;
}

/* The old mapping for SCOTCH_graphRemap. Scotch 7.0.3 reads uninitialised
 * memory (and crashed here) when a vertex has no old part (-1), so a new
 * rank gets a target node no staying rank holds, with a migration load of
 * 0: moving it costs nothing, so that node does not bind it. */
static int old_mapping(const morph__mapctx *c, const int *old, SCOTCH_Num **part, SCOTCH_Num **load)
{
  int k = c->k, next = 0;
  unsigned char *held = calloc((size_t)k, 1);
  *part = malloc(sizeof(SCOTCH_Num) * (size_t)k);
  *load = malloc(sizeof(SCOTCH_Num) * (size_t)k);
  if (!held || !*part || !*load) {
    free(held);
    return MORPH_ENOMEM;
  }
  for (int r = 0; r < k; r++)
    if (old[r] >= 0)
      held[old[r]] = 1;
  for (int r = 0; r < k; r++) {
    while (old[r] < 0 && held[next])
      next++;
    (*part)[r] = old[r] >= 0 ? old[r] : next++;
    (*load)[r] = old[r] >= 0;
  }
  free(held);
  return MORPH_OK;
}

/* Source graph, target, strategy and context are set up; map or remap. */
static int run(morph__mapctx *c, SCOTCH_Context *ctx, SCOTCH_Graph *g, const SCOTCH_Arch *a,
               const int *old, double migration, SCOTCH_Num *part)
{
  SCOTCH_Graph bound;
  SCOTCH_Strat s;
  SCOTCH_stratInit(&s);
  SCOTCH_graphInit(&bound);
  int rc = strategy(c, &s);
  if (!rc && SCOTCH_contextBindGraph(ctx, g, &bound) != 0)
    rc = morph__map_say(c, MORPH_EINVAL, "Scotch could not bind the graph to its context");
  SCOTCH_Num *old_part = NULL, *move_load = NULL;
  if (!rc && old && old_mapping(c, old, &old_part, &move_load) != MORPH_OK)
    rc = morph__map_say(c, MORPH_ENOMEM, "out of memory");
  /* Edge loads are scaled so that the heaviest pair weighs LOAD_MAX: one
   * unit of migration cost is that pair's traffic over one hop. */
  if (!rc && (old ? SCOTCH_graphRemap(&bound, a, old_part, migration * LOAD_MAX, move_load, &s, part)
                  : SCOTCH_graphMap(&bound, a, &s, part)) != 0)
    rc = morph__map_say(c, MORPH_EINVAL, "Scotch's %s failed", old ? "SCOTCH_graphRemap" : "SCOTCH_graphMap");
  free(old_part);
  free(move_load);
  SCOTCH_graphExit(&bound);
  SCOTCH_stratExit(&s);
  return rc;
}

static int map_on(morph__mapctx *c, const int *cand, const sgraph *sg, const int *old,
                  double migration, int native, SCOTCH_Num *part)
{
  SCOTCH_Graph g;
  SCOTCH_Arch full, a;
  SCOTCH_Context ctx;
  SCOTCH_graphInit(&g);
  SCOTCH_archInit(&full);
  SCOTCH_archInit(&a);
  SCOTCH_contextInit(&ctx);
  SCOTCH_contextRandomClone(&ctx);
  SCOTCH_contextRandomSeed(&ctx, (SCOTCH_Num)(c->in->seed & 0x7fffffff));
  SCOTCH_contextOptionSetNum(&ctx, SCOTCH_OPTIONNUMDETERMINISTIC, 1);
  int rc = SCOTCH_graphBuild(&g, 0, c->k, sg->vert, NULL, NULL, NULL, sg->nedges, sg->edge,
                             sg->load) == 0 && SCOTCH_graphCheck(&g) == 0
               ? MORPH_OK
               : morph__map_say(c, MORPH_EINVAL, "Scotch rejected the communication graph");
  /* Remapping uses Scotch's own architecture even with faults (the
   * candidates already leave out the faulty nodes): measured with Scotch
   * 7.0.3, SCOTCH_graphRemap on a decomposition-defined target returns
   * placements unrelated to the old mapping, whatever the migration cost. */
  native = native || uniform(c) || old;
  if (!rc && native && (rc = native_arch(c, cand, &full, &a)) == MORPH_ENOSYS)
    morph__map_say(c, rc, "remapping needs a torus, fat tree or flat topology");
  else if (!rc && (rc = native ? rc : deco_arch(c, cand, &a)))
    morph__map_say(c, rc, "Scotch rejected the target architecture of %d nodes", c->k);
  if (!rc)
    rc = run(c, &ctx, &g, &a, old, migration, part);
  SCOTCH_archExit(&a);
  SCOTCH_archExit(&full);
  SCOTCH_graphExit(&g);
  SCOTCH_contextExit(&ctx);
  return rc;
}

int morph__scotch_map(morph__mapctx *c, const int *cand, const int *old, double migration,
                      int native, int *node)
{
  sgraph sg = {0};
  SCOTCH_Num *part = malloc(sizeof(SCOTCH_Num) * (size_t)c->k);
  int rc = part && c->w ? sgraph_build(c, &sg) : MORPH_ENOMEM;
  if (rc)
    morph__map_say(c, rc, c->w ? "out of memory" : "no communication matrix");
  else if (c->k == 1)
    part[0] = 0;
  else
    rc = map_on(c, cand, &sg, old, migration, native, part);
  if (!rc) {
    one_per_node(c, cand, part);
    for (int r = 0; r < c->k; r++)
      node[r] = cand[part[r]];
  }
  sgraph_free(&sg);
  free(part);
  return rc;
}
