/*
 * Internal interface of the placement stage: the operations a strategy
 * implements (morph__place_ops), the working state of one
 * morph_place_actions() call (morph__plan) and the helpers strategies
 * choose units with.
 *
 * The driver (plan.c) walks the actions in order. For each one it checks
 * that the action matches the snapshot and that its counts fit, so a
 * strategy may assume they do; it calls the strategy's operation, which
 * chooses units only through the helpers below (they keep the free pool
 * exact, enforce the master and release rules and append the pieces); then
 * it checks that the strategy placed exactly the action's units.
 */
#ifndef MORPH_PLACE_INTERNAL_H
#define MORPH_PLACE_INTERNAL_H

#include <morph/place.h>

typedef struct morph__plan morph__plan;

/* A strategy: one file, one of these, one row in table.c. `job` is the
 * pending job (START) or the running job with its current allocation;
 * `units` is what the action adds or releases. Each operation returns
 * MORPH_OK or an error of a helper (MORPH_ENOMEM). */
typedef struct morph__place_ops {
  const char *name;
  const char *description;
  /* Makes the strategy's context from its parameters; NULL if it has
   * none and takes no parameter. Errors: MORPH_EINVAL (message in msg),
   * MORPH_ENOMEM; *ctx is not set then. */
  int (*create)(const morph_place_param *params, int nparams, void **ctx, char *msg,
                size_t size);
  void (*destroy)(void *ctx); /* NULL if create is */
  /* START: `units` units on UP nodes. If the START depends on a SHRINK, the
   * pieces it released come first (morph__plan_reuse*): exactly
   * min(units, released) of them must be used. */
  int (*start)(morph__plan *pl, const morph_policy_job *job, int units);
  /* EXPAND: `units` free units on UP nodes. */
  int (*expand)(morph__plan *pl, const morph_policy_job *job, int units);
  /* SHRINK: `units` units of the job's pieces (morph__plan_releasable). */
  int (*shrink)(morph__plan *pl, const morph_policy_job *job, int units);
  /* 1 if `node` is about to fail (morph_place_failing()); NULL: never. */
  int (*failing)(const void *ctx, int node);
  /* morph_place_outage_set(); NULL: MORPH_ENOSYS. */
  int (*outage_set)(void *ctx, int node, double p);
  /* morph_place_node_name(); NULL: no topology. */
  const char *(*node_name)(const void *ctx, int node);
} morph__place_ops;

/* The strategy table (table.c). */
extern const morph__place_ops *const morph__place_table[];
extern const int morph__place_count;

/* The strategies (one file each). */
extern const morph__place_ops morph__firstfit_ops;
/* mapped.c: the strategies of morph/map.h (paper 004) */
extern const morph__place_ops morph__tofa_ops;
extern const morph__place_ops morph__greedy_ops;
extern const morph__place_ops morph__box_ops;
extern const morph__place_ops morph__random_ops;

/* Scratch arrays kept from one call to the next (owned by the placement). */
typedef struct morph__place_scratch {
  int *free;          /* per node: free slots for new allocations */
  int nodes_cap;
  char *touched;      /* per running job: has an action */
  int running_cap;
  char *started;      /* per pending job: started */
  int pending_cap;
  char *serves;       /* per action: a SHRINK that serves a START */
  int actions_cap;
  morph_policy_alloc *reuse; /* START after a SHRINK: released pieces, slots left */
  int reuse_cap;
  int *left;          /* SHRINK: slots piece k of the job may still release */
  int left_cap;
} morph__place_scratch;

struct morph_place {
  const morph__place_ops *ops;
  void *ctx;
  morph__place_scratch s;
  char errmsg[512];
};

struct morph__plan {
  const morph_policy_snapshot *snap;
  morph_policy_actions *out;
  morph__place_scratch *s;
  void *ctx;         /* the strategy's context */
  int whole;         /* NODE units: a unit is a whole node */
  long total_free;   /* free units on UP nodes */
  int cursor;        /* nodes below it have no free slot: free only falls */
  int floor;         /* EXPAND: nodes below it are not free for this action
                        (the job's expand_from); 0 otherwise */
  int act;           /* index of the action being placed */
  int placed;        /* units it has got so far */
  int nreuse, reused;/* START after a SHRINK: released pieces, units taken */
  const morph_policy_job *job; /* SHRINK: the job giving units back */
  char *msg;
  size_t msgsize;
};

/* Sets the placement's message (printf style) and returns rc. */
int morph__plan_fail(morph__plan *pl, int rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Helpers for strategies (plan.c). A node is named by its index in
 * snap->nodes; amounts are in the snapshot's units (in NODE units one
 * unit is one whole node). */
int morph__plan_node_up(const morph__plan *pl, int node);
/* Free units on node: 0 on nodes that are not UP, or not wholly free in
 * NODE units, or below the floor of the EXPAND being placed. */
int morph__plan_free_units(const morph__plan *pl, int node);
/* Lowest node index with a free unit (at or above the floor), or
 * snap->nnodes if none. */
int morph__plan_first_free(morph__plan *pl);
/* Books `units` (1..free units) on node for the current START / EXPAND.
 * Errors: MORPH_EINVAL (more than is free: a strategy's bug), MORPH_ENOMEM. */
int morph__plan_book(morph__plan *pl, int node, int units);
/* START after a SHRINK: number of released pieces, the node and the units
 * still unused of piece k, and booking `units` of them. */
int morph__plan_reuse_count(const morph__plan *pl);
int morph__plan_reuse_node(const morph__plan *pl, int k);
int morph__plan_reuse_units(const morph__plan *pl, int k);
int morph__plan_reuse(morph__plan *pl, int k, int units);
/* SHRINK: units piece k of the job may still release (0 for its master's
 * last unit and, under MORPH_POLICY_RELEASE_UP, on nodes that are not UP),
 * and releasing `units` of them. Errors as morph__plan_book(). */
int morph__plan_releasable(const morph__plan *pl, int k);
int morph__plan_release(morph__plan *pl, int k, int units);

#endif
