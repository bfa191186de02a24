/*
 * morph/sim.h - the workload simulator: a discrete-event simulation of a
 * cluster of nodes running a workload (morph/workload.h) under a policy of
 * the shared policy engine (morph/policy.h), with the same metrics as
 * `morph report` (morph/report.h).
 *
 * Model (docs/sim.md): nodes are whole units (one process per node, as in
 * paper 000). The scheduler (the policy's decide) runs after submissions,
 * completions and finished resizes, and every `interval` seconds while jobs
 * wait or malleable jobs run; the placement strategy (morph/place.h) then
 * chooses the nodes of its actions. A START runs the job on its nodes at once. An
 * EXPAND books its nodes at once; a resize (EXPAND or SHRINK) takes effect at
 * the job's next iteration end (its reconfiguration point), then pauses the
 * job for the reconfiguration cost; a SHRINK frees its nodes when done, and
 * a START that depends on it starts then. Jobs progress at 1 / T(n) of
 * their work per second at size n, T from the job's model.
 *
 * A simulator holds no global state: any number may run in one process.
 * Runs are deterministic: the same workload and configuration give the same
 * result, bit for bit.
 *
 * Error contract: int functions return MORPH_OK or a negative morph/error.h
 * code, with a message in morph_sim_errmsg().
 */
#ifndef MORPH_SIM_H
#define MORPH_SIM_H

#include <stddef.h>
#include <stdint.h>

#include "morph/error.h"
#include "morph/place.h"
#include "morph/policy.h"
#include "morph/report.h"
#include "morph/workload.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct morph_sim_config {
  int nodes;                  /* cluster size (128) */
  const char *policy;         /* policy engine name ("dmr+fcfs") */
  const char *placement;      /* placement strategy, morph/place.h ("firstfit") */
  const morph_place_param *place_params; /* its parameters (topology=FILE, ...), read */
  int nplace_params;                     /* by morph_sim_create() only */
  morph_policy_params params; /* engine parameters (defaults, sizes FACTOR:
                                 DMRlib resizes by multiples and divisors) */
  double interval;            /* seconds between periodic decisions (10) */
  double expand_cost;         /* fixed seconds of an expansion (0.8) */
  double shrink_cost;         /* fixed seconds of a shrink (0.25) */
  double bandwidth;           /* bytes/s per node for redistribution (1e10) */
  morph_impossible impossible;/* jobs larger than the cluster (SKIP) */
  int queue_depth;            /* pending jobs shown to the policy, in queue
                                 order; 0: all. Like Slurm's bf_max_job_test
                                 (500): keeps a decision's cost bounded when
                                 tens of thousands of jobs wait */
  int progress;               /* nonzero: progress lines on stderr (0) */
} morph_sim_config;

/* Fills the defaults given in parentheses. */
void morph_sim_config_init(morph_sim_config *cfg);

/* Counters of one run. */
typedef struct morph_sim_stats {
  size_t jobs;                /* input records: jobs and skipped records */
  size_t completed, skipped;
  size_t unfinished;          /* jobs that did not complete: an error */
  size_t events, decisions, starts, expands, shrinks;
  double sim_end;             /* simulated time of the last event, s */
  double wall_s;              /* wall-clock seconds the run took */
} morph_sim_stats;

typedef struct morph_sim morph_sim;

/* Checks a configuration as morph_sim_create does and writes the first
 * problem into buf ("" if none; unknown policy or placement: the valid
 * names).
 * Returns MORPH_OK or MORPH_EINVAL. */
int morph_sim_config_check(const morph_sim_config *cfg, char *buf, size_t len);

/* Creates a simulator. Errors: MORPH_EINVAL (nodes < 1, interval <= 0,
 * negative costs, bandwidth <= 0, unknown policy or placement;
 * morph_sim_config_check explains), MORPH_ENOMEM. *out is NULL on error. */
int morph_sim_create(const morph_sim_config *cfg, morph_sim **out);

/* Frees a simulator; NULL is fine. */
void morph_sim_destroy(morph_sim *sim);

/* Message of the last failure ("" if none); never NULL. */
const char *morph_sim_errmsg(const morph_sim *sim);

/* Simulates the workload from time 0 until every job has ended and adds
 * one record per input job to rep (created with units = nodes), skipped
 * ones included (jobs larger than the cluster, and the records the loader
 * skipped, wl->skips). The workload is only read and must be sorted by
 * submit time (every load function sorts). The simulator can run again.
 * Errors: MORPH_ESTATE (a job did not complete: the message names the
 * first five, stats->unfinished counts them; the records are added),
 * MORPH_ESIZE (a job larger than the cluster and impossible ==
 * REJECT; nothing simulated), MORPH_EINVAL (rep units differ from nodes),
 * MORPH_EPROTO (the policy returned an action the simulator cannot apply:
 * a bug; the message says which), the code of a failed decision or
 * placement (message "policy: ..." or "placement: ..."), MORPH_ENOMEM. On
 * error rep may hold part of the records. */
int morph_sim_run(morph_sim *sim, const morph_workload *wl, morph_report *rep,
                  morph_sim_stats *stats);

/* Seconds a resize of a job with this model from `from` to `to` nodes
 * takes: the fixed cost of the direction plus the data that changes owner,
 * data_bytes * (1 - min/max), over min(from, to) links of `bandwidth`.
 * Never fails: 0 when the size does not change or a size is below 1. */
double morph_sim_reconf_cost(const morph_sim_config *cfg, const morph_model *model, int from,
                             int to);

#ifdef __cplusplus
}
#endif
#endif /* MORPH_SIM_H */
