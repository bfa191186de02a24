/*
 * morph/topology.h - the machine as the placement sees it: nodes, the links
 * between them and the route a message takes; how likely each node is to
 * fail; and what a link costs (paper 004, Eq. 1).
 *
 * Four kinds of topology (docs/topology.md has the file format):
 *  - torus: a 3-D torus of any shape, X x Y x Z nodes, one link between
 *    neighbours in each dimension, dimension-order routing (x, then y, then
 *    z, each the shorter way around its ring; on a tie the way of growing
 *    coordinates);
 *  - fattree: leaves of nodes under one spine (node - leaf - spine - leaf -
 *    node), the trivial hierarchy;
 *  - flat: a hostfile's nodes behind one switch, every pair two links apart;
 *  - graph: nodes and explicit links, shortest-path routing (fewest links,
 *    ties to the lowest node).
 * Nodes are numbered 0..n-1 in file order (generated tori: x fastest), the
 * order a resource manager allocates them in; vertices n and up are
 * switches. Every topology is connected (loading checks it).
 *
 * Error contract. Every int function returns MORPH_OK (or a documented
 * non-negative value) or a negative code of morph/error.h. Objects keep a
 * message of their last failure (morph_topo_errmsg, morph_faults_errmsg);
 * parse errors name the file, the line and the field ("t.topo:4: node
 * 'n7': z: 9 is outside 0..7"). A failed load leaves the object as it was.
 * Objects are used by one thread at a time; there is no global state.
 */
#ifndef MORPH_TOPOLOGY_H
#define MORPH_TOPOLOGY_H

#include <stddef.h>

#include "morph/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum morph_topo_kind {
  MORPH_TOPO_NONE = 0, /* created, nothing loaded yet */
  MORPH_TOPO_TORUS,
  MORPH_TOPO_FATTREE,
  MORPH_TOPO_FLAT,
  MORPH_TOPO_GRAPH
} morph_topo_kind;

typedef struct morph_topo morph_topo;

/* One link of a route, from vertex `from` to vertex `to` (nodes are
 * 0..n-1, switches n and up). */
typedef struct morph_link {
  int from, to;
} morph_link;

/* An empty topology. Errors: MORPH_EINVAL, MORPH_ENOMEM (*out NULL). */
int morph_topo_create(morph_topo **out);

/* Frees a topology; NULL is fine. */
void morph_topo_destroy(morph_topo *t);

/* Message of the last failure ("" after success). Never NULL. */
const char *morph_topo_errmsg(const morph_topo *t);

/* Reads a topology file (docs/topology.md), or a plain hostfile ("name",
 * "name slots=N" or "name:N" lines), which gives a flat topology. Replaces
 * what t held. Errors: MORPH_EIO, MORPH_EPARSE (file, line and field in
 * the message; also a disconnected graph or an incomplete torus),
 * MORPH_ENOMEM; t unchanged on failure. */
int morph_topo_load(morph_topo *t, const char *path);

/* The same from text in memory; `name` stands for the file in messages.
 * Errors: those of morph_topo_load but MORPH_EIO. */
int morph_topo_parse(morph_topo *t, const char *text, const char *name);

/* Generated topologies, nodes named node0, node1, ... Errors: MORPH_EINVAL
 * (a size below 1 or more than 65536 nodes), MORPH_ENOMEM. */
int morph_topo_torus(morph_topo *t, int x, int y, int z);
int morph_topo_fattree(morph_topo *t, int leaves, int per_leaf);
int morph_topo_flat(morph_topo *t, int nodes);

/* The kind of t (MORPH_TOPO_NONE before a load and for NULL), and its
 * name ("torus", ...; "?" outside the enum). Each never fails. */
morph_topo_kind morph_topo_kind_of(const morph_topo *t);
const char *morph_topo_kind_name(morph_topo_kind kind);

/* Number of nodes (0 before a load and for NULL). Never fails. */
int morph_topo_nodes(const morph_topo *t);

/* Name of node i; NULL outside 0..n-1 (and for NULL t). */
const char *morph_topo_node_name(const morph_topo *t, int node);

/* Index of the node with this name. Errors: MORPH_ENOENT. */
int morph_topo_find(const morph_topo *t, const char *name);

/* Torus only: dims[3] and the coordinates of a node. Errors: MORPH_EINVAL
 * (not a torus, or node out of range). */
int morph_topo_dims(const morph_topo *t, int dims[3]);
int morph_topo_coords(const morph_topo *t, int node, int xyz[3]);

/* The links a message from node `from` to node `to` crosses, in order;
 * returns their number (0 from a node to itself) and writes at most max
 * of them. Errors: MORPH_EINVAL (bad node, or links NULL with max > 0). */
int morph_topo_route(const morph_topo *t, int from, int to, morph_link *links, int max);

/* The longest route of this topology, in links (an upper bound for the
 * buffers of morph_topo_route); 0 before a load. Never fails. */
int morph_topo_max_hops(const morph_topo *t);

/* Outage probabilities, one per node, in [0, 1]. A node with a non-zero
 * probability is "faulty" for placement. morphd will estimate them from
 * its heartbeats; a file can set them for experiments. */
typedef struct morph_faults morph_faults;

/* All zero, for the n nodes of t. Errors: MORPH_EINVAL, MORPH_ENOMEM. */
int morph_faults_create(const morph_topo *t, morph_faults **out);

/* Frees f; NULL is allowed. */
void morph_faults_destroy(morph_faults *f);
/* Message of the last failure ("" after success and for NULL). Never NULL. */
const char *morph_faults_errmsg(const morph_faults *f);

/* Number of nodes the object covers (0 for NULL). Never fails. */
int morph_faults_nodes(const morph_faults *f);

/* Errors: MORPH_EINVAL (node out of range, p outside [0, 1]; unchanged). */
int morph_faults_set(morph_faults *f, int node, double p);

/* 0 for a node out of range. */
double morph_faults_get(const morph_faults *f, int node);

/* Number of nodes with a non-zero probability (0 for NULL). Never fails. */
int morph_faults_count(const morph_faults *f);

/* Reads "NODE PROBABILITY" lines (node names of t; '#' comments) over the
 * current values: nodes not named keep theirs. Errors: MORPH_EIO,
 * MORPH_EPARSE (file, line and field; f unchanged). */
int morph_faults_load(morph_faults *f, const morph_topo *t, const char *path);

/* What crossing one link costs. The default is paper 004's Eq. 1: the base
 * cost c (1 unless the model says otherwise) plus 100 c when the node at
 * either end has a non-zero outage probability (switches never fail), so
 * that a route through a node likely to fail costs more than the longest
 * fault-free route. Replace fn to try other penalties. */
typedef double (*morph_link_cost_fn)(const morph_topo *t, const morph_faults *f, morph_link l,
                                     const void *arg);

typedef struct morph_cost_model {
  morph_link_cost_fn fn; /* NULL: morph_link_cost_eq1 */
  const void *arg;       /* for fn; for Eq. 1, a double *c (NULL: 1) */
} morph_cost_model;

/* Eq. 1 for one link; f may be NULL (no faults). Never fails. */
double morph_link_cost_eq1(const morph_topo *t, const morph_faults *f, morph_link l,
                           const void *arg);

/* The cost of the route from node u to node v: the sum of its links'
 * costs under the model (m NULL: Eq. 1 with c = 1). 0 for u == v; a
 * negative error code for a bad node. */
double morph_route_cost(const morph_topo *t, const morph_faults *f, const morph_cost_model *m,
                        int u, int v);

#ifdef __cplusplus
}
#endif
#endif /* MORPH_TOPOLOGY_H */
