/*
 * morph/map.h - which node each rank of a job runs on (paper 004, TOFA).
 *
 * Input: a communication matrix (who sends how much to whom, morph prof
 * writes one), the topology and its outage probabilities (morph/
 * topology.h), and the nodes free for the job. Output: rank -> node.
 * Strategies (docs/topology.md explains each):
 *  - default: Slurm's order, the first free nodes in node order;
 *  - random:  free nodes drawn at random (seeded);
 *  - greedy:  pairs by decreasing traffic, each process placed on the free
 *             node cheapest to reach from its partner (Eq. 1 costs, so it
 *             keeps off nodes likely to fail while fault-free ones remain);
 *  - tofa:    Listing 1.1: the first window of consecutive free fault-free
 *             nodes large enough, mapped with Scotch on that sub-machine;
 *             without one, Scotch on the most compact set of free nodes
 *             (fault-free first) with Eq. 1 costs (the paper maps on the
 *             whole machine, which spreads a small job over all of it);
 *  - box:     morph's own, on a torus: the most compact sub-box of free
 *             fault-free nodes (4x4x4 for 64 ranks; only the last plane
 *             may be partial), the one whose routes cost least under
 *             Eq. 1, mapped with Scotch on the torus cut down to it
 *             (SCOTCH_archSub); without one, or on another topology, tofa.
 * morph_map_remap re-places a job that grows or shrinks with Scotch's
 * remapping: staying ranks pay a migration cost to move, so a resize does
 * not shuffle the job.
 *
 * Every strategy places one rank per node. When a strategy cannot do
 * better (Scotch fails, no node is fault-free, no traffic is known) it
 * falls back to the default order, says why in the report and still
 * succeeds: placement never fails a job that fits.
 *
 * Error contract: MORPH_OK or a negative code of morph/error.h with the
 * reason in report->msg; `node` is written only on success. No global
 * state; one call at a time per input.
 */
#ifndef MORPH_MAP_H
#define MORPH_MAP_H

#include <stdint.h>

#include "morph/error.h"
#include "morph/topology.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum morph_map_strategy {
  MORPH_MAP_DEFAULT = 0,
  MORPH_MAP_RANDOM,
  MORPH_MAP_GREEDY,
  MORPH_MAP_TOFA,
  MORPH_MAP_BOX,
  MORPH_MAP_COUNT
} morph_map_strategy;

/* "default", "random", "greedy", "tofa", "box"; "?" outside the enum.
 * Never NULL. */
const char *morph_map_strategy_name(morph_map_strategy s);

/* Errors: MORPH_EINVAL for an unknown name (*s unchanged). */
int morph_map_strategy_parse(const char *name, morph_map_strategy *s);

typedef struct morph_map_input {
  const morph_topo *topo;
  const morph_faults *faults;   /* NULL: no node fails */
  const morph_cost_model *cost; /* NULL: Eq. 1, c from the topology */
  int nprocs;                   /* ranks to place, >= 1 */
  const uint64_t *traffic;      /* nprocs * nprocs, [i * nprocs + j] from i to j
                                   (bytes or messages); NULL: unknown */
  int traffic_n;                /* the matrix's size, checked against nprocs */
  const int *available;         /* free nodes; NULL: every node */
  int navailable;
  unsigned seed;                /* random strategy and Scotch */
  const char *scotch_strategy;  /* Scotch mapping strategy string; NULL: default */
} morph_map_input;

/* What happened, for logs and tests. */
typedef struct morph_map_report {
  morph_map_strategy used;  /* the strategy asked for, or DEFAULT after a fallback */
  int fallback;             /* 1: the default order was used instead, msg says why */
  int tofa_window;          /* tofa: 1 = consecutive fault-free window found (line 14) */
  int box[3];               /* box: the sub-box's shape; 0 0 0 without one (tofa then) */
  int on_faulty;            /* ranks placed on nodes with a non-zero probability */
  int moved;                /* remap: staying ranks that changed node */
  double cost;              /* sum over rank pairs of traffic x route cost */
  char msg[512];            /* warning or error text; "" when all went as asked */
} morph_map_report;

/* Places in->nprocs ranks with strategy s; node[r] is the node of rank r.
 * Errors: MORPH_EINVAL (missing topology or arguments, an unknown or
 * repeated available node), MORPH_ESIZE (fewer free nodes than ranks; a
 * traffic matrix whose size is not nprocs); report->msg says which. */
int morph_map_compute(morph_map_strategy s, const morph_map_input *in, int *node,
                      morph_map_report *report);

/* Re-places a job after a resize with Scotch's remapping. old_node[r] is
 * where rank r ran before (-1 for a new rank), for r < in->nprocs;
 * migration_cost is what moving a staying rank costs, in units of the
 * heaviest pair's traffic sent over one hop (0: free to move; 10: as much
 * as sending that traffic ten hops further). Nodes of staying ranks must be in `available`
 * to be kept. Errors as morph_map_compute; falls back to keeping staying
 * ranks in place and adding the nearest free nodes for new ones. */
int morph_map_remap(const morph_map_input *in, const int *old_node, double migration_cost,
                    int *node, morph_map_report *report);

/* Sum over pairs (i, j) of traffic(i -> j) x route cost(node i, node j).
 * Never fails: 0 without traffic (or for NULL arguments). */
double morph_map_cost(const morph_map_input *in, const int *node);

/* The nodes a job placed as node[] depends on: those its ranks run on and
 * those the routes between ranks that exchange traffic cross (all pairs
 * when the traffic is unknown). touched[] has one entry per node, set to
 * 1 or 0. Errors: MORPH_EINVAL, MORPH_ENOMEM. */
int morph_map_footprint(const morph_map_input *in, const int *node, unsigned char *touched);

/* 1 if the job touches a failed node (failed[v] != 0): one of its nodes
 * fails, or one of its routes crosses one, whose links are then down
 * (paper 004, section 5.2); 0 if not. Errors: those of
 * morph_map_footprint. */
int morph_map_touches(const morph_map_input *in, const int *node, const unsigned char *failed);

#ifdef __cplusplus
}
#endif
#endif /* MORPH_MAP_H */
