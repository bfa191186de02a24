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

/* What the scheduler knows of a job's run time, and where a job is killed
 * (docs/sim.md "Estimates and time limits"). A job's time limit is given
 * for its largest request (req_max, its reference size); started at size n
 * below it, the limit stretches by req_max / n, and a resize to a size
 * further below it stretches what is left by the same ratio of ratios (the
 * most a job that scales no better than linearly slows down); a grow never
 * shortens it, and the pause of a resize does not count. A job still running at its
 * limit is killed there, like Slurm's TIMEOUT: recorded FAILED, counted
 * in stats.timeouts. EASY plans with the limit (running jobs: start +
 * limit; pending: the limit at req_min). */
typedef enum morph_sim_estimates {
  MORPH_SIM_EST_REQUESTED = 0, /* each job's walltime (SWF field 9, JSON
                                  "walltime"); a job without one gets the
                                  workload's largest (a partition's default
                                  limit is its maximum in Slurm); a workload
                                  without any runs as EXACT */
  MORPH_SIM_EST_EXACT,         /* the scheduler knows every running job's
                                  remaining time at its current size and a
                                  pending job's run time at req_min (an
                                  oracle no real system has); no limit */
  MORPH_SIM_EST_FACTOR         /* limit = estimate_factor x the job's run time
                                  at req_max (Mu'alem and Feitelson's f
                                  model); factor >= 1 */
} morph_sim_estimates;

typedef struct morph_sim_config {
  int nodes;                  /* cluster size (128) */
  const char *policy;         /* policy engine name ("mdmr+easy") */
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
  morph_sim_estimates estimates; /* REQUESTED */
  double estimate_factor;     /* FACTOR: limit over run time (1) */
} morph_sim_config;

/* Fills the defaults given in parentheses. */
void morph_sim_config_init(morph_sim_config *cfg);

/* Counters of one run. */
typedef struct morph_sim_stats {
  size_t jobs;                /* input records: jobs and skipped records */
  size_t completed, skipped;
  size_t unfinished;          /* jobs that did not complete: an error */
  size_t events, decisions, starts, expands, shrinks;
  size_t timeouts;            /* jobs killed at their time limit */
  morph_sim_estimates estimates; /* the mode the run used (REQUESTED falls
                                    back to EXACT without any walltime) */
  size_t default_limits;      /* REQUESTED: jobs without a walltime, given
                                 the workload's largest */
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
 * negative costs, bandwidth <= 0, an estimate factor below 1, an unknown
 * estimate mode, unknown policy or placement;
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

/* Parses "requested", "exact" or "f=K" (K >= 1) into *mode and *factor
 * (1 unless f=K). Errors: MORPH_EINVAL (anything else; nothing written). */
int morph_sim_estimates_parse(const char *text, morph_sim_estimates *mode, double *factor);

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
