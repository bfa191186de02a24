/* The helpers strategies choose units with. Each one checks what it is
 * asked against the free pool, the released pieces or the job's pieces,
 * so a strategy can neither double-book nor give back what is not its
 * job's, and appends the piece to the action being placed. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"

int morph__plan_fail(morph__plan *pl, int rc, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(pl->msg, pl->msgsize, fmt, ap);
  va_end(ap);
  return rc;
}

/* Appends `slots` on node to the action being placed. Consecutive pieces
 * on one node merge (slot units), keeping lists short. */
static int append(morph__plan *pl, int node, int slots)
{
  morph_policy_actions *a = pl->out;
  morph_policy_action *act = &a->v[pl->act];
  if (act->alloc_count > 0 && !pl->whole && a->allocs[a->nallocs - 1].node == node) {
    a->allocs[a->nallocs - 1].slots += slots;
    return MORPH_OK;
  }
  if (a->nallocs == a->cap_allocs) {
    int cap = a->cap_allocs ? 2 * a->cap_allocs : 256;
    morph_policy_alloc *v = realloc(a->allocs, (size_t)cap * sizeof(*v));
    if (!v)
      return morph__plan_fail(pl, MORPH_ENOMEM, "out of memory for allocation pieces");
    a->allocs = v;
    a->cap_allocs = cap;
  }
  a->allocs[a->nallocs++] = (morph_policy_alloc){.node = node, .slots = slots};
  act->alloc_count++;
  return MORPH_OK;
}

/* A strategy asked for more than there is: its bug, named. */
static int overdrawn(morph__plan *pl, const char *what, int node, int units, int have)
{
  return morph__plan_fail(pl, MORPH_EINVAL, "action %d: strategy %s %d units on node index %d, "
                          "%d available", pl->act, what, units, node, have);
}

int morph__plan_node_up(const morph__plan *pl, int node)
{
  return pl->snap->nodes[node].state == MORPH_POLICY_NODE_UP;
}

int morph__plan_free_units(const morph__plan *pl, int node)
{
  int f = node < pl->floor ? 0 : pl->s->free[node];
  return pl->whole ? f > 0 : f;
}

int morph__plan_first_free(morph__plan *pl)
{
  while (pl->cursor < pl->snap->nnodes && pl->s->free[pl->cursor] == 0)
    pl->cursor++;
  int i = pl->cursor > pl->floor ? pl->cursor : pl->floor;
  while (i < pl->snap->nnodes && pl->s->free[i] == 0)
    i++;
  return i;
}

int morph__plan_book(morph__plan *pl, int node, int units)
{
  int have = node >= 0 && node < pl->snap->nnodes ? morph__plan_free_units(pl, node) : 0;
  if (units < 1 || units > have)
    return overdrawn(pl, "booked", node, units, have);
  int slots = pl->whole ? pl->s->free[node] : units;
  pl->s->free[node] -= slots;
  pl->total_free -= units;
  pl->placed += units;
  return append(pl, node, slots);
}

int morph__plan_reuse_count(const morph__plan *pl)
{
  return pl->nreuse;
}

int morph__plan_reuse_node(const morph__plan *pl, int k)
{
  return pl->s->reuse[k].node;
}

int morph__plan_reuse_units(const morph__plan *pl, int k)
{
  int slots = pl->s->reuse[k].slots;
  return pl->whole ? slots > 0 : slots;
}

int morph__plan_reuse(morph__plan *pl, int k, int units)
{
  int have = k >= 0 && k < pl->nreuse ? morph__plan_reuse_units(pl, k) : 0;
  if (units < 1 || units > have)
    return overdrawn(pl, "reused", k < 0 || k >= pl->nreuse ? -1 : pl->s->reuse[k].node, units,
                     have);
  morph_policy_alloc *piece = &pl->s->reuse[k];
  int slots = pl->whole ? piece->slots : units;
  piece->slots -= slots;
  pl->reused += units;
  pl->placed += units;
  return append(pl, piece->node, slots);
}

int morph__plan_releasable(const morph__plan *pl, int k)
{
  return pl->s->left[k];
}

int morph__plan_release(morph__plan *pl, int k, int units)
{
  int have = k >= 0 && k < pl->job->nalloc ? pl->s->left[k] : 0;
  int node = k >= 0 && k < pl->job->nalloc ? pl->job->alloc[k].node : -1;
  if (units < 1 || units > have)
    return overdrawn(pl, "released", node, units, have);
  pl->s->left[k] -= units;
  pl->placed += units;
  return append(pl, node, pl->whole ? pl->job->alloc[k].slots : units);
}
