/* The topology object (morph/topology.h), shared by topology*.c. */
#ifndef MORPH_PLACE_TOPOLOGY_INTERNAL_H
#define MORPH_PLACE_TOPOLOGY_INTERNAL_H

#include <stdarg.h>

#include "morph/topology.h"

#define MORPH__TOPO_MAX_NODES 65536
#define MORPH__TOPO_MAX_GRAPH 2048 /* graph routes are an n x n table */

struct morph_topo {
  morph_topo_kind kind;
  int n;            /* nodes */
  char **names;     /* n names */
  int *by_name;     /* node indices sorted by name, for morph_topo_find */
  double base_cost; /* c of Eq. 1, from the file's link-cost line (default 1) */
  int dims[3];      /* torus */
  int (*xyz)[3];    /* torus: coordinates of each node */
  int *at;          /* torus: node at coordinate x + X * (y + Y * z) */
  int leaves;       /* fattree: switches n..n+leaves-1 are leaves, n+leaves the spine */
  int *leaf;        /* fattree: leaf of each node */
  int *next;        /* graph: next[u * n + v], u's neighbour on the way to v */
  int max_hops;
  char errmsg[512];
};

/* Everything a topology owns, freed; the struct zeroed but its errmsg. */
void morph__topo_clear(morph_topo *t);

/* Moves src's content into dst (whose old content is freed). */
void morph__topo_take(morph_topo *dst, morph_topo *src);

/* Names and the name index: names[i] = strdup'ed or generated "node<i>".
 * Errors: MORPH_ENOMEM; MORPH_EEXIST with *dup set to the later index of a
 * name given twice. */
int morph__topo_index_names(morph_topo *t, int *dup);

/* Completes a torus whose dims are set: the coordinate table and
 * max_hops. generated: coordinates follow node order, x fastest;
 * otherwise xyz holds them. */
int morph__topo_torus_finish(morph_topo *t, int generated);

/* Fat tree with leaf[] set, and flat: max_hops. */
void morph__topo_tree_finish(morph_topo *t);

/* Graph: builds next[] from the adjacency lists (adj[u] has deg[u]
 * neighbours); MORPH_EPARSE with *a, *b two nodes that cannot reach each
 * other when it is disconnected. */
int morph__topo_graph_finish(morph_topo *t, int **adj, const int *deg, int *a, int *b);

/* errmsg formatting; returns rc. */
int morph__topo_fail(morph_topo *t, int rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
