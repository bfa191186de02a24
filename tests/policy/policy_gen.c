/* Random snapshots; see policy_gen.h. */
#include <stdlib.h>
#include <string.h>

#include "policy_gen.h"

static unsigned rnd(unsigned *s)
{
  *s = *s * 1103515245u + 12345u;
  return (*s >> 8) & 0xffffff;
}

static int pick(unsigned *s, int lo, int hi)
{
  return lo + (int)(rnd(s) % (unsigned)(hi - lo + 1));
}

static void limits(unsigned *s, morph_policy_job *j, int size)
{
  j->kind = (morph_policy_kind)pick(s, 0, 3);
  j->min = pick(s, 1, size);
  j->max = size + pick(s, 0, size);
  j->pref = pick(s, j->min, j->max);
  j->mtct_avg = pick(s, 0, 100) / 100.0;
  j->mtct_trend = pick(s, 0, 100) / 100.0;
  j->walltime = pick(s, 0, 4) ? pick(s, 10, 5000) : 0;
  j->efficiency = -1;
}

/* Places one running job of `size` units from node *next on; returns 0 if
 * the cluster is full. */
static int place(const policy_gen_spec *sp, morph_policy_snapshot *snap, morph_policy_job *j,
                 int size, int *next)
{
  morph_policy_alloc *a = malloc(sizeof(*a) * (size_t)size);
  int n = 0, left = size;
  while (a && left > 0 && *next < snap->nnodes) {
    morph_policy_node *node = &snap->nodes[*next];
    int take = sp->unit == MORPH_POLICY_UNIT_NODE ? node->slots : node->slots - node->used;
    if (sp->unit == MORPH_POLICY_UNIT_SLOT && take > left)
      take = left;
    a[n++] = (morph_policy_alloc){*next, take};
    node->used += take;
    left -= sp->unit == MORPH_POLICY_UNIT_NODE ? 1 : take;
    if (node->used == node->slots)
      (*next)++;
  }
  j->alloc = a;
  j->nalloc = n;
  j->size = size - left;
  return a && left == 0;
}

static void gen_running(const policy_gen_spec *sp, morph_policy_snapshot *snap, unsigned *s)
{
  long cap = (long)snap->nnodes * (sp->unit == MORPH_POLICY_UNIT_NODE ? 1 : sp->slots_per_node);
  long target = (long)(cap * sp->load), used = 0;
  int next = 0;
  while (snap->nrunning < sp->njobs && used < target) {
    morph_policy_job *j = &snap->running[snap->nrunning];
    memset(j, 0, sizeof(*j));
    j->id = snap->nrunning + 1;
    int ok = place(sp, snap, j, pick(s, 1, sp->max_run_size), &next);
    if (j->size == 0) {
      free((void *)j->alloc);
      break;
    }
    limits(s, j, j->size);
    j->req_min = j->req_max = j->size;
    j->start_time = snap->now - pick(s, 0, 4000);
    j->last_change = j->start_time;
    j->resizing = pick(s, 0, 19) == 0;
    snap->nrunning++;
    used += j->size;
    if (!ok)
      break;
  }
}

static void gen_pending(const policy_gen_spec *sp, morph_policy_snapshot *snap, unsigned *s)
{
  while (snap->nrunning + snap->npending < sp->njobs) {
    morph_policy_job *j = &snap->pending[snap->npending];
    memset(j, 0, sizeof(*j));
    j->id = 1000000 + snap->npending;
    int size = pick(s, 1, sp->max_req);
    limits(s, j, size);
    j->req_max = size;
    j->req_min = j->kind == MORPH_POLICY_JOB_MOLDABLE || j->kind == MORPH_POLICY_JOB_FLEXIBLE
                     ? pick(s, 1, size)
                     : size;
    j->submit_time = snap->now - pick(s, 0, 1000);
    snap->npending++;
  }
}

int policy_gen(const policy_gen_spec *sp, morph_policy_snapshot *snap)
{
  unsigned s = sp->seed * 2654435761u + 1;
  memset(snap, 0, sizeof(*snap));
  snap->now = 10000;
  snap->unit = sp->unit;
  snap->nodes = calloc((size_t)sp->nnodes + 1, sizeof(*snap->nodes));
  snap->running = calloc((size_t)sp->njobs + 1, sizeof(*snap->running));
  snap->pending = calloc((size_t)sp->njobs + 1, sizeof(*snap->pending));
  if (!snap->nodes || !snap->running || !snap->pending)
    return -1;
  snap->nnodes = sp->nnodes;
  for (int i = 0; i < sp->nnodes; i++) {
    int bad = rnd(&s) % 1000 < (unsigned)(sp->bad_nodes * 1000);
    snap->nodes[i] = (morph_policy_node){.id = i, .slots = sp->slots_per_node,
                                         .state = bad ? (morph_policy_node_state)pick(&s, 1, 2)
                                                      : MORPH_POLICY_NODE_UP};
  }
  gen_running(sp, snap, &s);
  gen_pending(sp, snap, &s);
  return 0;
}

void policy_gen_free(morph_policy_snapshot *snap)
{
  for (int j = 0; j < snap->nrunning; j++)
    free((void *)snap->running[j].alloc);
  free(snap->nodes);
  free(snap->running);
  free(snap->pending);
  memset(snap, 0, sizeof(*snap));
}
