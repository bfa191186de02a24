/*
 * Mapping internals (morph/map.h): the context every strategy gets, the
 * strategies behind one small ops struct (one file each: map_default.c,
 * map_random.c, map_greedy.c, map_tofa.c, map_box.c), and the helpers they share.
 */
#ifndef MORPH_PLACE_MAP_INTERNAL_H
#define MORPH_PLACE_MAP_INTERNAL_H

#include <stdarg.h>

#include "morph/map.h"

typedef struct morph__mapctx {
  const morph_map_input *in;
  int n;                   /* nodes of the topology */
  int k;                   /* ranks to place */
  int *avail;              /* free nodes, in node order */
  int navail;
  unsigned char *is_avail; /* per node */
  double *w;               /* k * k symmetric traffic (i <-> j), NULL if unknown */
  double *cache;           /* n * n route costs (< 0: not computed), NULL if too big */
  morph_map_report *rep;
} morph__mapctx;

typedef struct morph__mapper {
  const char *name;
  /* Writes node[0..k-1]; on failure returns a negative code with the reason
   * in c->rep->msg, and the caller falls back to the default order. */
  int (*map)(morph__mapctx *c, int *node);
} morph__mapper;

extern const morph__mapper morph__map_default;
extern const morph__mapper morph__map_random;
extern const morph__mapper morph__map_greedy;
extern const morph__mapper morph__map_tofa;
extern const morph__mapper morph__map_box;

/* The context of a call (map.c): checks the input (the reason in
 * rep->msg) and builds the free-node list and symmetric weights. Free it
 * with morph__map_ctx_free even after a failure. */
int morph__map_ctx_init(morph__mapctx *c, const morph_map_input *in, morph_map_report *rep);
void morph__map_ctx_free(morph__mapctx *c);

/* Fills rep->cost and rep->on_faulty for a placement. */
void morph__map_summarize(morph__mapctx *c, const int *node);

/* Route cost between two nodes under the input's faults and cost model. */
double morph__map_route_cost(const morph__mapctx *c, int u, int v);

/* Outage probability of a node (0 without faults). */
double morph__map_pf(const morph__mapctx *c, int node);

/* Free nodes a placement should prefer: the fault-free ones first, then
 * the others by increasing probability; *fault_free says how many come
 * first. The array has c->navail entries; free it. NULL: out of memory. */
int *morph__map_pool(const morph__mapctx *c, int *fault_free);

/* The k nodes of pool[0..npool) that form the most compact set: every
 * pool node is tried as a centre, the k nearest to it (route cost) are
 * taken, and the set with the smallest sum of pairwise costs wins. If
 * seeds are given (nseeds > 0) they are kept and the set grows from them
 * instead. Writes out[0..k-1]. Errors: MORPH_ESIZE, MORPH_ENOMEM. */
int morph__map_compact(const morph__mapctx *c, const int *pool, int npool, const int *seeds,
                       int nseeds, int k, int *out);

/* Scotch (scotch.c): maps the k ranks one per node onto cand[0..k-1],
 * the target built from route costs (a native torus sub-architecture
 * when no node fails). old[r], if not NULL, is the index in cand of rank
 * r's current node or -1, and migration weighs moving it
 * (SCOTCH_graphRemap). native: use Scotch's own architecture cut down to
 * the candidates even if nodes elsewhere may fail (the caller knows no
 * route between candidates crosses one). Errors: MORPH_EINVAL (Scotch refused the graph, the
 * architecture or the strategy; message in c->rep->msg), MORPH_ENOMEM. */
int morph__scotch_map(morph__mapctx *c, const int *cand, const int *old, double migration,
                      int native, int *node);

/* Keeps Scotch's mapping node[] or replaces it by the candidates in their
 * own order, rank r on cand[r], whichever costs less (map_common.c). */
void morph__map_keep_cheaper(const morph__mapctx *c, const int *cand, int *node);

/* rep->msg formatting; returns rc. */
int morph__map_say(morph__mapctx *c, int rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
