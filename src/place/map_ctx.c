/*
 * The context of one mapping call (map_internal.h): the input checked, the
 * free-node list, symmetric weights and the route-cost cache; and the
 * report's message and summary. Below the strategies and the entry points
 * (map.c), which all use it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "place/map_internal.h"

int morph__map_say(morph__mapctx *c, int rc, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(c->rep->msg, sizeof c->rep->msg, fmt, ap);
  va_end(ap);
  return rc;
}

void morph__map_ctx_free(morph__mapctx *c)
{
  free(c->avail);
  free(c->is_avail);
  free(c->w);
  free(c->cache);
}

/* Route costs are cached for machines of up to this many nodes (8 MiB). */
#define CACHE_MAX_NODES 1024

static void cache_init(morph__mapctx *c)
{
  if (c->n > CACHE_MAX_NODES || !(c->cache = malloc(sizeof(double) * (size_t)c->n * (size_t)c->n)))
    return; /* without the cache, costs are computed each time */
  for (size_t i = 0; i < (size_t)c->n * (size_t)c->n; i++)
    c->cache[i] = -1;
}

static int check_available(morph__mapctx *c)
{
  const morph_map_input *in = c->in;
  for (int i = 0; i < c->navail; i++) {
    int v = in->available ? in->available[i] : i;
    if (v < 0 || v >= c->n)
      return morph__map_say(c, MORPH_EINVAL, "available node %d is outside 0..%d", v, c->n - 1);
    if (c->is_avail[v])
      return morph__map_say(c, MORPH_EINVAL, "node %s is listed twice as available",
                            morph_topo_node_name(in->topo, v));
    c->is_avail[v] = 1;
  }
  for (int v = 0, j = 0; v < c->n; v++) /* node order */
    if (c->is_avail[v])
      c->avail[j++] = v;
  if (c->navail < c->k)
    return morph__map_say(c, MORPH_ESIZE, "%d ranks need %d nodes: the %s topology has %d, %d of "
                          "them free", c->k, c->k, morph_topo_kind_name(morph_topo_kind_of(in->topo)),
                          c->n, c->navail);
  return MORPH_OK;
}

/* Symmetric weights: placement cares about i <-> j, whatever the way. */
static int symmetric(morph__mapctx *c)
{
  const morph_map_input *in = c->in;
  if (!in->traffic)
    return MORPH_OK;
  if (in->traffic_n != c->k)
    return morph__map_say(c, MORPH_ESIZE, "the communication matrix is %d x %d but the job has %d "
                          "ranks", in->traffic_n, in->traffic_n, c->k);
  if (!(c->w = malloc(sizeof(double) * (size_t)c->k * (size_t)c->k)))
    return morph__map_say(c, MORPH_ENOMEM, "out of memory");
  for (int i = 0; i < c->k; i++)
    for (int j = 0; j < c->k; j++)
      c->w[i * c->k + j] = i == j ? 0
                                  : (double)in->traffic[i * c->k + j] + (double)in->traffic[j * c->k + i];
  return MORPH_OK;
}

int morph__map_ctx_init(morph__mapctx *c, const morph_map_input *in, morph_map_report *rep)
{
  memset(rep, 0, sizeof *rep);
  memset(c, 0, sizeof *c);
  c->in = in, c->rep = rep;
  if (!in->topo || morph_topo_nodes(in->topo) < 1 || in->nprocs < 1 ||
      (in->available && in->navailable < 0))
    return morph__map_say(c, MORPH_EINVAL, "mapping needs a loaded topology and at least one rank");
  if (in->faults && morph_faults_nodes(in->faults) != morph_topo_nodes(in->topo))
    return morph__map_say(c, MORPH_EINVAL, "the outage probabilities are for %d nodes, the "
                          "topology has %d", morph_faults_nodes(in->faults), morph_topo_nodes(in->topo));
  c->n = morph_topo_nodes(in->topo);
  c->k = in->nprocs;
  c->navail = in->available ? in->navailable : c->n;
  c->avail = malloc(sizeof(int) * (size_t)(c->navail > 0 ? c->navail : 1));
  c->is_avail = calloc((size_t)c->n, 1);
  if (!c->avail || !c->is_avail)
    return morph__map_say(c, MORPH_ENOMEM, "out of memory");
  int rc = check_available(c);
  if (!rc)
    cache_init(c);
  return rc ? rc : symmetric(c);
}

/* Cost and ranks on faulty nodes, for the report. */
void morph__map_summarize(morph__mapctx *c, const int *node)
{
  c->rep->on_faulty = 0;
  for (int r = 0; r < c->k; r++)
    c->rep->on_faulty += morph__map_pf(c, node[r]) > 0;
  c->rep->cost = morph_map_cost(c->in, node);
}
