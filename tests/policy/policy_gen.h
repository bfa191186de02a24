/* Random snapshots for property tests and the benchmark: a cluster filled
 * with running jobs of every kind up to a target load, and a pending queue.
 * Deterministic for a seed. */
#ifndef MORPH_TEST_POLICY_GEN_H
#define MORPH_TEST_POLICY_GEN_H

#include <morph/policy.h>

typedef struct policy_gen_spec {
  unsigned seed;
  int nnodes, slots_per_node;
  int njobs;          /* running + pending */
  double load;        /* share of nodes (or slots) to fill with running jobs */
  int max_run_size;   /* running jobs take 1..max_run_size units */
  int max_req;        /* pending requests ask 1..max_req units */
  morph_policy_unit unit;
  double bad_nodes;   /* share of nodes DOWN or DRAINING */
} policy_gen_spec;

/* Fills a snapshot in *snap with malloc'ed arrays; free with
 * policy_gen_free(). Returns 0, or -1 if out of memory. */
int policy_gen(const policy_gen_spec *spec, morph_policy_snapshot *snap);
void policy_gen_free(morph_policy_snapshot *snap);

#endif
