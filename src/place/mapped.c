/*
 * The placement stage's strategies backed by the mapping library
 * (morph/map.h, paper 004): "tofa" (Listing 1.1), "greedy" and "random",
 * and morph's own "box" (a compact fault-free sub-box of a torus,
 * map_box.c). They differ only in the mapping strategy they call, so one
 * file holds the four rows of the table.
 *
 * A snapshot node i is topology node i: the topology file lists the nodes
 * in the order the pool numbers them (morphd checks the names when it
 * loads both). Without a topology, the stage uses a flat one of the
 * snapshot's size, and a snapshot whose size differs from the topology's
 * falls back to first fit (the job is placed anyway, never failed).
 *
 *  - START: the nodes the mapping strategy chooses for a job of one
 *    process per node, traffic unknown (every pair alike), so the nodes
 *    are compact and, with outage probabilities, fault-free first. In
 *    slot units the job asks for the fewest nodes whose free slots hold
 *    it. Pieces a SHRINK released for this START come first (the stage's
 *    rule) and the rest grows from them as an EXPAND does.
 *  - EXPAND: morph_map_remap() from the job's nodes with a migration cost
 *    (parameter `migration`): the job's processes stay, the new ones go on
 *    the free nodes nearest to them, or, with the job's matrix, nearest to
 *    the processes they talk to.
 *  The job's matrix (one row per process) is folded into traffic between
 *  the nodes mapped (fold.h) when it has a whole number of rows per unit
 *  of the job's size after the change; otherwise every pair talks alike.
 *  - SHRINK: units on DOWN or DRAINING nodes go first, then units on nodes
 *    likely to fail (highest probability first), then the units farthest
 *    from the master's node, so what remains stays compact around it.
 *
 * Parameters: topology=FILE (morph/topology.h's format or a hostfile),
 * faults=FILE ("NODE PROBABILITY" lines; needs topology), seed=N,
 * migration=X (>= 0, default 10), threshold=P (morph_place_failing(): a
 * node whose probability reaches P is about to fail; default: none).
 * morphd's heartbeat estimates arrive through morph_place_outage_set()
 * (with a topology); a faults file pins the probabilities instead.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fold.h"
#include "internal.h"
#include "morph/map.h"

typedef struct mapped {
  morph_map_strategy s;
  morph_topo *topo;     /* NULL: flat, built for the snapshot's size */
  morph_faults *faults; /* NULL: no node fails */
  morph_topo *flat;     /* the flat topology of the last snapshot size */
  unsigned seed;
  double migration;
  double threshold;     /* morph_place_failing(): p >= threshold; 0: never */
  int pinned;           /* faults came from a file: estimates are ignored */
} mapped;

static void destroy(void *ctx)
{
  mapped *m = ctx;
  if (!m)
    return;
  morph_faults_destroy(m->faults);
  morph_topo_destroy(m->topo);
  morph_topo_destroy(m->flat);
  free(m);
}

static int number(const char *key, const char *v, double lo, double *out, char *msg, size_t size)
{
  char *end;
  errno = 0;
  double x = v ? strtod(v, &end) : 0;
  if (!v || end == v || *end || errno || !(x >= lo)) {
    snprintf(msg, size, "placement parameter %s: '%s' is not a number >= %g", key,
             v ? v : "(null)", lo);
    return MORPH_EINVAL;
  }
  *out = x;
  return MORPH_OK;
}

static int load_topology(mapped *m, const char *path, char *msg, size_t size)
{
  int rc = morph_topo_create(&m->topo);
  if (rc == MORPH_OK && (rc = morph_topo_load(m->topo, path)) != MORPH_OK)
    snprintf(msg, size, "placement topology: %s", morph_topo_errmsg(m->topo));
  return rc;
}

static int load_faults(mapped *m, const char *path, char *msg, size_t size)
{
  if (!m->topo) {
    snprintf(msg, size, "placement parameter faults needs a topology (topology=FILE)");
    return MORPH_EINVAL;
  }
  int rc = morph_faults_create(m->topo, &m->faults);
  if (rc == MORPH_OK && (rc = morph_faults_load(m->faults, m->topo, path)) != MORPH_OK)
    snprintf(msg, size, "placement faults: %s", morph_faults_errmsg(m->faults));
  m->pinned = 1;
  return rc;
}

/* One parameter; `faults` is read after the loop, once the topology is. */
static int param(mapped *m, const morph_place_param *p, char *msg, size_t size)
{
  double x;
  const char *k = p->key ? p->key : "(null)";
  if (!strcmp(k, "topology"))
    return m->topo ? (snprintf(msg, size, "placement parameter topology given twice"), MORPH_EINVAL)
                   : load_topology(m, p->value, msg, size);
  if (!strcmp(k, "faults"))
    return MORPH_OK;
  if (!strcmp(k, "seed")) {
    int rc = number(k, p->value, 0, &x, msg, size);
    if (rc != MORPH_OK)
      return rc;
    /* Converting a double above UINT_MAX to unsigned is undefined. */
    if (!(x <= UINT_MAX) || x != (unsigned)x) {
      snprintf(msg, size, "placement parameter seed: '%s' is not a whole number <= %u", p->value,
               UINT_MAX);
      return MORPH_EINVAL;
    }
    m->seed = (unsigned)x;
    return MORPH_OK;
  }
  if (!strcmp(k, "migration"))
    return number(k, p->value, 0, &m->migration, msg, size);
  if (!strcmp(k, "threshold")) {
    int rc = number(k, p->value, 0, &m->threshold, msg, size);
    if (rc == MORPH_OK && !(m->threshold > 0 && m->threshold <= 1))
      rc = MORPH_EINVAL, snprintf(msg, size, "placement parameter threshold: %s is not in (0, 1]",
                                  p->value);
    return rc;
  }
  snprintf(msg, size, "placement %s: unknown parameter '%s' (topology, faults, seed, migration, "
           "threshold)",
           morph_map_strategy_name(m->s), k);
  return MORPH_EINVAL;
}

static int create(morph_map_strategy s, const morph_place_param *params, int nparams, void **ctx,
                  char *msg, size_t size)
{
  mapped *m = calloc(1, sizeof *m);
  if (!m)
    return MORPH_ENOMEM;
  m->s = s, m->migration = 10;
  int rc = MORPH_OK;
  for (int i = 0; i < nparams && rc == MORPH_OK; i++)
    rc = param(m, &params[i], msg, size);
  for (int i = 0; i < nparams && rc == MORPH_OK; i++)
    if (params[i].key && !strcmp(params[i].key, "faults"))
      rc = m->faults ? (snprintf(msg, size, "placement parameter faults given twice"), MORPH_EINVAL)
                     : load_faults(m, params[i].value, msg, size);
  if (rc != MORPH_OK) {
    destroy(m);
    return rc;
  }
  *ctx = m;
  return MORPH_OK;
}

/* The topology for this snapshot, or NULL when it does not match it. */
static const morph_topo *topology(morph__plan *pl)
{
  mapped *m = pl->ctx;
  int n = pl->snap->nnodes;
  if (m->topo)
    return morph_topo_nodes(m->topo) == n ? m->topo : NULL;
  if (m->flat && morph_topo_nodes(m->flat) == n)
    return m->flat;
  morph_topo_destroy(m->flat);
  m->flat = NULL;
  if (morph_topo_create(&m->flat) != MORPH_OK || morph_topo_flat(m->flat, n) != MORPH_OK)
    return NULL;
  return m->flat;
}

/* Books up to `units` on the nodes of list[0..n) in order; returns the
 * units left, or a negative code. */
static int book_list(morph__plan *pl, const int *list, int n, int units)
{
  for (int i = 0; i < n && units > 0; i++) {
    int f = morph__plan_free_units(pl, list[i]);
    int u = f < units ? f : units;
    int rc = u > 0 ? morph__plan_book(pl, list[i], u) : MORPH_OK;
    if (rc)
      return rc;
    units -= u;
  }
  return units;
}

/* First fit for whatever the mapping left (or could not place). */
static int book_first(morph__plan *pl, int units)
{
  for (int i = morph__plan_first_free(pl); units > 0 && i < pl->snap->nnodes;
       i = morph__plan_first_free(pl)) {
    int f = morph__plan_free_units(pl, i);
    int u = f < units ? f : units;
    int rc = morph__plan_book(pl, i, u);
    if (rc)
      return rc;
    units -= u;
  }
  return MORPH_OK;
}

/* Scratch of one placement: free nodes, the job's nodes, the result. */
typedef struct pick {
  int *avail, navail; /* free nodes (and the seeds), node order */
  int *old, *node;    /* per rank: seed node or -1; chosen node */
  int nseeds;
  const morph_policy_alloc *held; /* the units the job holds, in its rank
                                     order (slots: units), on the seeds */
  int nheld;
} pick;

static void pick_free(pick *p)
{
  free(p->avail);
  free(p->old);
  free(p->node);
}

/* Fills p->avail with the seeds (the nodes of held) and the nodes with
 * free units. */
static int pick_init(morph__plan *pl, pick *p, const morph_policy_alloc *held, int nheld)
{
  int n = pl->snap->nnodes;
  memset(p, 0, sizeof *p);
  p->avail = malloc(sizeof(int) * (size_t)n);
  p->old = malloc(sizeof(int) * (size_t)n);
  p->node = malloc(sizeof(int) * (size_t)n);
  unsigned char *seen = calloc((size_t)n, 1);
  if (!p->avail || !p->old || !p->node || !seen) {
    free(seen);
    return MORPH_ENOMEM;
  }
  p->held = held, p->nheld = nheld;
  for (int i = 0; i < nheld; i++)
    if (!seen[held[i].node])
      seen[held[i].node] = 1, p->old[p->nseeds++] = held[i].node;
  for (int v = 0; v < n; v++)
    if (seen[v] || morph__plan_free_units(pl, v) > 0)
      p->avail[p->navail++] = v;
  free(seen);
  return MORPH_OK;
}

static int seed_rank(const pick *p, int node)
{
  int r = 0;
  while (r < p->nseeds - 1 && p->old[r] != node)
    r++;
  return r;
}

/* The traffic between the mapping's ranks (the seeds, then k new nodes),
 * folded from the job's matrix (fold.h): the units it holds on their
 * seeds, then `units` new ones split evenly over the k new nodes in rank
 * order (the booking fills them in that order; a node with fewer free
 * units makes this an estimate). NULL: no matrix, or one whose size is
 * not a whole number of rows per unit of the job's new size. */
static uint64_t *node_traffic(const morph_policy_job *job, const pick *p, int k, int units)
{
  int n = units;
  for (int i = 0; i < p->nheld; i++)
    n += p->held[i].slots;
  int *owner = job->traffic ? malloc(sizeof(int) * (size_t)n) : NULL;
  if (!owner)
    return NULL;
  int u = 0;
  for (int i = 0; i < p->nheld; i++)
    for (int s = 0; s < p->held[i].slots; s++)
      owner[u++] = seed_rank(p, p->held[i].node);
  for (int r = 0; r < k; r++)
    for (int s = 0; s < units / k + (r < units % k); s++)
      owner[u++] = p->nseeds + r;
  uint64_t *t = morph__fold_traffic(job->traffic, job->traffic_n, owner, n, p->nseeds + k);
  free(owner);
  return t;
}

/* Maps nseeds + k ranks (one per node): the seeds stay (remap), k new
 * ones, holding `units` new units, go on free nodes. Returns 1 if the
 * mapping placed them. */
static int map_nodes(morph__plan *pl, const morph_topo *t, const morph_policy_job *job, pick *p,
                     int k, int units)
{
  mapped *m = pl->ctx;
  int nprocs = p->nseeds + k;
  if (nprocs > p->navail || k < 1)
    return 0;
  uint64_t *traffic = node_traffic(job, p, k, units);
  morph_map_input in = {.topo = t, .faults = m->faults, .nprocs = nprocs, .traffic = traffic,
                        .traffic_n = traffic ? nprocs : 0, .available = p->avail,
                        .navailable = p->navail, .seed = m->seed};
  morph_map_report rep;
  for (int r = p->nseeds; r < nprocs; r++)
    p->old[r] = -1;
  int rc = p->nseeds ? morph_map_remap(&in, p->old, m->migration, p->node, &rep)
                     : morph_map_compute(m->s, &in, p->node, &rep);
  free(traffic);
  return rc == MORPH_OK;
}

/* The new ranks' nodes: chosen nodes other than the seeds', in rank order. */
static int new_nodes(pick *p, int k, int *out)
{
  int n = 0;
  for (int r = 0; r < p->nseeds + k; r++) {
    int seed = 0;
    for (int s = 0; s < p->nseeds && !seed; s++)
      seed = p->old[s] == p->node[r];
    if (!seed)
      out[n++] = p->node[r];
  }
  return n;
}

/* Places `units` units of job near the units it holds (held, in its rank
 * order; none for a fresh START). */
static int place_near(morph__plan *pl, const morph_policy_job *job, const morph_policy_alloc *held,
                      int nheld, int units)
{
  const morph_topo *t = topology(pl);
  pick p;
  int rc = t ? pick_init(pl, &p, held, nheld) : MORPH_OK;
  if (!t || rc)
    return rc ? rc : book_first(pl, units);
  int *out = malloc(sizeof(int) * (size_t)pl->snap->nnodes);
  /* Slot units: the fewest nodes whose free slots hold the job. */
  int k = pl->whole ? units : 1, left = units;
  while (out && left > 0 && k <= p.navail - p.nseeds) {
    if (map_nodes(pl, t, job, &p, k, units)) {
      int n = new_nodes(&p, k, out), sum = 0;
      for (int i = 0; i < n; i++)
        sum += morph__plan_free_units(pl, out[i]);
      if (sum >= units || pl->whole) {
        left = book_list(pl, out, n, units);
        break;
      }
    } else if (pl->whole) {
      break;
    }
    k++;
  }
  rc = !out ? MORPH_ENOMEM : left < 0 ? left : book_first(pl, left);
  free(out);
  pick_free(&p);
  return rc;
}

static int start(morph__plan *pl, const morph_policy_job *job, int units)
{
  int n = morph__plan_reuse_count(pl), nh = 0;
  morph_policy_alloc *held = malloc(sizeof *held * (size_t)(n > 0 ? n : 1));
  if (!held)
    return MORPH_ENOMEM;
  int rc = MORPH_OK;
  for (int k = 0; k < n && units > 0 && rc == MORPH_OK; k++) {
    int u = morph__plan_reuse_units(pl, k);
    u = u < units ? u : units;
    if (u > 0 && (rc = morph__plan_reuse(pl, k, u)) == MORPH_OK)
      held[nh++] = (morph_policy_alloc){morph__plan_reuse_node(pl, k), u};
    units -= u;
  }
  if (rc == MORPH_OK && units > 0)
    rc = place_near(pl, job, held, nh, units);
  free(held);
  return rc;
}

/* The job's pieces in units (its processes fill them in this order), then
 * what it gets on its own nodes first. */
static int expand(morph__plan *pl, const morph_policy_job *job, int units)
{
  int nh = 0;
  morph_policy_alloc *held = malloc(sizeof *held * (size_t)(2 * job->nalloc + 1));
  if (!held)
    return MORPH_ENOMEM;
  for (int k = 0; k < job->nalloc; k++)
    held[nh++] = (morph_policy_alloc){job->alloc[k].node, pl->whole ? 1 : job->alloc[k].slots};
  /* Slot units: the job's own nodes first, as first fit does. */
  for (int k = 0; k < job->nalloc && !pl->whole && units > 0; k++) {
    int f = morph__plan_free_units(pl, job->alloc[k].node);
    int u = f < units ? f : units;
    int rc = u > 0 ? morph__plan_book(pl, job->alloc[k].node, u) : MORPH_OK;
    if (rc) {
      free(held);
      return rc;
    }
    if (u > 0)
      held[nh++] = (morph_policy_alloc){job->alloc[k].node, u};
    units -= u;
  }
  int rc = units > 0 ? place_near(pl, job, held, nh, units) : MORPH_OK;
  free(held);
  return rc;
}

/* How much giving back piece k is worth: DOWN / DRAINING first, then the
 * outage probability, then the distance from the master's node. */
static double release_rank(morph__plan *pl, const morph_policy_job *job, int k)
{
  mapped *m = pl->ctx;
  const morph_topo *t = topology(pl);
  int v = job->alloc[k].node;
  double r = morph__plan_node_up(pl, v) ? 0 : 1e12;
  if (m->faults && t == m->topo)
    r += 1e9 * morph_faults_get(m->faults, v);
  if (t)
    r += morph_route_cost(t, m->faults && t == m->topo ? m->faults : NULL, NULL,
                          job->alloc[0].node, v);
  return r + k * 1e-6; /* later pieces first on ties, as first fit */
}

static int shrink(morph__plan *pl, const morph_policy_job *job, int units)
{
  double *rank = malloc(sizeof(double) * (size_t)job->nalloc);
  if (!rank)
    return MORPH_ENOMEM;
  for (int k = 0; k < job->nalloc; k++)
    rank[k] = release_rank(pl, job, k);
  int rc = MORPH_OK;
  while (units > 0 && rc == MORPH_OK) {
    int best = -1;
    for (int k = 0; k < job->nalloc; k++)
      if (morph__plan_releasable(pl, k) > 0 && (best < 0 || rank[k] > rank[best]))
        best = k;
    if (best < 0)
      break; /* the driver checked that the units fit: not reached */
    int u = morph__plan_releasable(pl, best);
    u = u < units ? u : units;
    rc = morph__plan_release(pl, best, u);
    units -= u;
  }
  free(rank);
  return rc;
}

static int failing(const void *ctx, int node)
{
  const mapped *m = ctx;
  return m->faults && m->threshold > 0 && morph_faults_get(m->faults, node) >= m->threshold;
}

/* morphd's heartbeat estimates; a faults file (experiments) wins. */
static int outage_set(void *ctx, int node, double p)
{
  mapped *m = ctx;
  if (!m->topo)
    return MORPH_ENOSYS;
  if (node < 0 || node >= morph_topo_nodes(m->topo) || !(p >= 0 && p <= 1))
    return MORPH_EINVAL;
  if (m->pinned)
    return MORPH_OK;
  int rc = m->faults ? MORPH_OK : morph_faults_create(m->topo, &m->faults);
  return rc == MORPH_OK ? morph_faults_set(m->faults, node, p) : rc;
}

static const char *node_name(const void *ctx, int node)
{
  const mapped *m = ctx;
  return m->topo && node >= 0 && node < morph_topo_nodes(m->topo)
             ? morph_topo_node_name(m->topo, node) : NULL;
}

static int create_tofa(const morph_place_param *p, int n, void **ctx, char *msg, size_t size)
{
  return create(MORPH_MAP_TOFA, p, n, ctx, msg, size);
}

static int create_greedy(const morph_place_param *p, int n, void **ctx, char *msg, size_t size)
{
  return create(MORPH_MAP_GREEDY, p, n, ctx, msg, size);
}

static int create_random(const morph_place_param *p, int n, void **ctx, char *msg, size_t size)
{
  return create(MORPH_MAP_RANDOM, p, n, ctx, msg, size);
}

static int create_box(const morph_place_param *p, int n, void **ctx, char *msg, size_t size)
{
  return create(MORPH_MAP_BOX, p, n, ctx, msg, size);
}

const morph__place_ops morph__tofa_ops = {
    .name = "tofa",
    .description = "paper 004's Listing 1.1 (a consecutive fault-free window, else Scotch with "
                   "Eq. 1 costs); grow by remapping, shrink off failing and far nodes",
    .create = create_tofa, .destroy = destroy, .start = start, .expand = expand, .shrink = shrink,
    .failing = failing, .outage_set = outage_set, .node_name = node_name,
};

const morph__place_ops morph__greedy_ops = {
    .name = "greedy",
    .description = "each node the cheapest to reach from the job's (Eq. 1 costs); grow and "
                   "shrink as tofa",
    .create = create_greedy, .destroy = destroy, .start = start, .expand = expand, .shrink = shrink,
    .failing = failing, .outage_set = outage_set, .node_name = node_name,
};

const morph__place_ops morph__random_ops = {
    .name = "random",
    .description = "free nodes drawn at random (seed=N), the baseline of paper 004",
    .create = create_random, .destroy = destroy, .start = start, .expand = expand, .shrink = shrink,
    .failing = failing, .outage_set = outage_set, .node_name = node_name,
};

const morph__place_ops morph__box_ops = {
    .name = "box",
    .description = "morph's own: the most compact fault-free sub-box of a torus (else as tofa); "
                   "grow and shrink as tofa",
    .create = create_box, .destroy = destroy, .start = start, .expand = expand, .shrink = shrink,
    .failing = failing, .outage_set = outage_set, .node_name = node_name,
};
