/*
 * Re-placing a job that grows or shrinks (morph/map.h): the target is the
 * staying ranks' nodes plus the free nodes nearest to them, and Scotch's
 * SCOTCH_graphRemap weighs moving a staying rank (migration cost) against
 * the traffic cost of leaving it, so a resize moves few ranks. A staying
 * rank whose node is no longer free, or has a non-zero outage probability
 * while fault-free nodes remain, must move: the same call is how a job
 * steps off a node that is about to fail.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "place/map_internal.h"

typedef struct remap {
  morph__mapctx *c;
  const int *old_node;
  int *seeds, nseeds; /* nodes kept from the old placement */
  int *cand;          /* the k target nodes, seeds first */
  int *old_idx;       /* per rank: index in cand of its old node, or -1 */
} remap;

/* Old nodes worth keeping: free, fault-free (unless too few are), each
 * once. */
static void keep_seeds(remap *m, int fault_free)
{
  morph__mapctx *c = m->c;
  unsigned char *seen = calloc((size_t)c->n, 1);
  for (int r = 0; seen && r < c->k; r++) {
    int v = m->old_node[r];
    if (v < 0 || v >= c->n || !c->is_avail[v] || seen[v])
      continue;
    if (fault_free >= c->k && morph__map_pf(c, v) > 0)
      continue;
    seen[v] = 1;
    m->seeds[m->nseeds++] = v;
  }
  free(seen);
}

static int choose_nodes(remap *m)
{
  morph__mapctx *c = m->c;
  int fault_free, *pool = morph__map_pool(c, &fault_free), npool = 0;
  if (!pool)
    return morph__map_say(c, MORPH_ENOMEM, "out of memory");
  keep_seeds(m, fault_free);
  unsigned char *is_seed = calloc((size_t)c->n, 1);
  int *rest = malloc(sizeof(int) * (size_t)c->navail), limit = fault_free >= c->k ? fault_free : c->navail;
  int rc = is_seed && rest ? MORPH_OK : morph__map_say(c, MORPH_ENOMEM, "out of memory");
  for (int i = 0; !rc && i < m->nseeds; i++)
    is_seed[m->seeds[i]] = 1;
  for (int i = 0; !rc && i < limit; i++)
    if (!is_seed[pool[i]])
      rest[npool++] = pool[i];
  if (!rc && m->nseeds == 0)
    rc = morph__map_compact(c, rest, npool, NULL, 0, c->k, m->cand);
  else if (!rc)
    rc = morph__map_compact(c, rest, npool, m->seeds, m->nseeds, c->k, m->cand);
  for (int r = 0; !rc && r < c->k; r++) {
    m->old_idx[r] = -1;
    for (int i = 0; i < c->k && m->old_node[r] >= 0; i++)
      if (m->cand[i] == m->old_node[r])
        m->old_idx[r] = i;
  }
  free(pool), free(is_seed), free(rest);
  return rc;
}

/* Without Scotch: staying ranks keep their node, new ones take the
 * remaining target nodes in order. */
static void keep_in_place(remap *m, int *node)
{
  morph__mapctx *c = m->c;
  unsigned char *used = calloc((size_t)c->k, 1);
  if (!used)
    return;
  for (int r = 0; r < c->k; r++)
    if ((node[r] = m->old_idx[r]) >= 0)
      used[node[r]] = 1;
  for (int r = 0, i = 0; r < c->k; r++) {
    if (node[r] >= 0)
      continue;
    while (used[i])
      i++;
    node[r] = i;
    used[i] = 1;
  }
  for (int r = 0; r < c->k; r++)
    node[r] = m->cand[node[r]];
  free(used);
}

static int do_remap(remap *m, double migration, int *node)
{
  morph__mapctx *c = m->c;
  int rc = choose_nodes(m);
  if (rc)
    return rc;
  if (c->w && morph__scotch_map(c, m->cand, m->old_idx, migration, 0, node) == MORPH_OK)
    return MORPH_OK;
  if (c->w) {
    char why[400];
    memcpy(why, c->rep->msg, sizeof why);
    why[sizeof why - 1] = '\0';
    morph__map_say(c, MORPH_OK, "warning: remap failed (%s): staying ranks kept in place", why);
    c->rep->fallback = 1;
  }
  keep_in_place(m, node);
  return MORPH_OK;
}

int morph_map_remap(const morph_map_input *in, const int *old_node, double migration_cost,
                    int *node, morph_map_report *report)
{
  morph__mapctx c;
  morph_map_report scratch, *rep = report ? report : &scratch;
  if (!in || !old_node || !node || !(migration_cost >= 0)) {
    memset(rep, 0, sizeof *rep);
    snprintf(rep->msg, sizeof rep->msg, "remap: bad arguments");
    return MORPH_EINVAL;
  }
  int rc = morph__map_ctx_init(&c, in, rep), k = c.k;
  remap m = {&c, old_node, malloc(sizeof(int) * (size_t)k), 0, malloc(sizeof(int) * (size_t)k),
             malloc(sizeof(int) * (size_t)k)};
  int *tmp = malloc(sizeof(int) * (size_t)k);
  if (!rc && (!m.seeds || !m.cand || !m.old_idx || !tmp))
    rc = morph__map_say(&c, MORPH_ENOMEM, "out of memory");
  if (!rc) {
    rep->used = MORPH_MAP_TOFA;
    rc = do_remap(&m, migration_cost, tmp);
  }
  if (!rc) {
    for (int r = 0; r < k; r++)
      rep->moved += old_node[r] >= 0 && tmp[r] != old_node[r];
    morph__map_summarize(&c, tmp);
    memcpy(node, tmp, sizeof(int) * (size_t)k);
  }
  free(m.seeds), free(m.cand), free(m.old_idx), free(tmp);
  morph__map_ctx_free(&c);
  return rc;
}
