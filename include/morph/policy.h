/*
 * morph/policy.h - the policy engine: a pure function from a snapshot of the
 * cluster (nodes, running jobs, pending queue) to a list of actions (start,
 * expand, shrink). The policy decides how many units each job gets or gives
 * back; the placement stage (morph/place.h) then decides where, filling each
 * action's allocation pieces. Callers run morph_policy_decide() then
 * morph_place_actions() on the same snapshot and list.
 *
 * The engine does no I/O, uses no MPI, reads no clock (the caller gives the
 * current time in the snapshot) and keeps no globals, so the daemon (morphd),
 * the simulator (morph-sim) and the unit tests run the same code, and one
 * process may hold any number of policies.
 *
 * Error contract: every function that can fail returns MORPH_OK (0) or a
 * negative MORPH_E* code from morph/error.h. Functions taking a morph_policy
 * keep a message of their last failure, read with morph_policy_errmsg().
 *
 * Units. Sizes (job sizes, requests, limits, action sizes) are counted in
 * units chosen by the snapshot:
 *   - MORPH_POLICY_UNIT_SLOT: a unit is one slot (one process); a job may
 *     take some slots of a node and share the node with other jobs. This is
 *     what morphd uses on one machine or a hostfile.
 *   - MORPH_POLICY_UNIT_NODE: a unit is one whole node; a job takes nodes
 *     exclusively (all their slots). This is what paper 000 and the
 *     simulator use (128 nodes, jobs sized in nodes).
 * Allocations always name nodes by their index in snapshot.nodes and carry
 * slot counts, so a caller can map them to hosts and processes either way.
 * A policy reads them only to count: free units on UP nodes, units a job
 * may release (on UP nodes, or on nodes that are not).
 *
 * Lifetime: morph_policy_create() / morph_policy_destroy(); actions with
 * morph_policy_actions_init() / morph_policy_actions_free(); a snapshot built
 * by the caller is the caller's memory and is only read; a snapshot made by
 * morph_policy_snapshot_clone() is owned by the engine and freed with
 * morph_policy_snapshot_free(). A morph_policy may be used by one thread at
 * a time; distinct policies are independent.
 */
#ifndef MORPH_POLICY_H
#define MORPH_POLICY_H

#include <stddef.h>
#include <stdint.h>

#include <morph/error.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What a unit of size means in a snapshot (see "Units" above). */
typedef enum morph_policy_unit {
  MORPH_POLICY_UNIT_SLOT = 0,
  MORPH_POLICY_UNIT_NODE = 1
} morph_policy_unit;

/* State of a node. Only UP nodes receive new allocations; jobs already on a
 * DRAINING or DOWN node keep it until they shrink or end. */
typedef enum morph_policy_node_state {
  MORPH_POLICY_NODE_UP = 0,
  MORPH_POLICY_NODE_DRAINING = 1,
  MORPH_POLICY_NODE_DOWN = 2
} morph_policy_node_state;

/* One node. `used` counts slots allocated to running jobs (0..slots). In
 * NODE units a node is free only if used == 0. */
typedef struct morph_policy_node {
  int64_t id;                    /* caller's id, copied into nothing, for the caller */
  int slots;                     /* total slots, >= 1 */
  int used;                      /* slots allocated to running jobs */
  morph_policy_node_state state;
} morph_policy_node;

/* A piece of an allocation: `slots` slots on node snapshot.nodes[node]. */
typedef struct morph_policy_alloc {
  int node;  /* index into snapshot.nodes */
  int slots; /* > 0; in NODE units always the node's total slots */
} morph_policy_alloc;

/* Job kinds of paper 000 Table 3: submission (rigid or moldable) crossed
 * with malleability. Only MALLEABLE and FLEXIBLE jobs are ever resized. */
typedef enum morph_policy_kind {
  MORPH_POLICY_JOB_RIGID = 0,     /* "fixed": rigid submission, not malleable */
  MORPH_POLICY_JOB_MOLDABLE = 1,  /* "pure moldable": moldable submission */
  MORPH_POLICY_JOB_MALLEABLE = 2, /* "pure malleable": rigid submission */
  MORPH_POLICY_JOB_FLEXIBLE = 3   /* moldable submission and malleable */
} morph_policy_kind;

/* A job, running or pending. Sizes are in snapshot units.
 *
 * Submission request: req_min..req_max (rigid: req_min == req_max, like
 * `-N n`; moldable: like Slurm's `-N min-max`). Malleability limits
 * min / max / pref (paper 000 section 3.2, DMR_Set_parameters) are read
 * only for MALLEABLE and FLEXIBLE jobs; 0 < min <= pref <= max.
 *
 * Fields marked "running" are read only for running jobs. Unknown measures
 * are negative. */
typedef struct morph_policy_job {
  int64_t id;             /* caller's job id, copied into actions */
  morph_policy_kind kind;
  int req_min, req_max;   /* submission request */
  int min, max, pref;     /* malleability limits */
  double submit_time;     /* seconds on the caller's clock */
  double walltime;        /* requested walltime / estimate in s; <= 0 unknown */
  double sched_period;    /* inhibitor: no resize sooner than this many s after
                             the last change (paper 000 Table 5); 0 = none */
  /* running */
  int size;                       /* current size */
  const morph_policy_alloc *alloc; /* current allocation, nalloc pieces; the
                                      first piece holds the job's master
                                      process and is never released */
  int nalloc;
  double start_time;      /* when it started */
  double last_change;     /* when it started or last finished a resize */
  int resizing;           /* non-zero: a resize is in progress; left alone */
  int failed_resizes;     /* resizes that failed so far (no retry forever) */
  double efficiency;      /* measured parallel efficiency in 0..1 */
  double mtct_avg;        /* MPI time / loop time: average (paper 002 3.3.4) */
  double mtct_trend;      /* MPI time / loop time: trend (recent value) */
  int resize_to;          /* running and resizing: the size the resize in
                             progress goes to; 0 if the caller does not say.
                             rdmr counts the units of a shrink in progress as
                             soon free, so it does not shrink others for them */
  const uint64_t *traffic; /* the job's communication matrix (morph submit
                              --matrix): traffic_n * traffic_n, [i * n + j]
                              from rank i to j; NULL: unknown (every pair
                              alike). Read by the placement stage only */
  int traffic_n;
  int expand_from;         /* running: an EXPAND may take only nodes of index
                              >= expand_from (0: any node). Read by the
                              placement stage only, which trims an EXPAND to
                              the free units there (morph/place.h). morphd on
                              Slurm sets it past the job's batch host: Slurm
                              22.05 can end a job grown onto a node numbered
                              below it NODE_FAIL (docs/slurm.md) */
} morph_policy_job;

/* The input of a decision. Arrays are the caller's memory, read only by
 * morph_policy_decide(). `pending` is the queue in priority order (usually
 * submission order). Sizes should stay below 2^31 / 2 in total. */
typedef struct morph_policy_snapshot {
  double now;               /* current time, caller's clock, seconds */
  morph_policy_unit unit;
  morph_policy_node *nodes;
  int nnodes;
  morph_policy_job *running;
  int nrunning;
  morph_policy_job *pending;
  int npending;
  int priv_owned;           /* set by morph_policy_snapshot_clone(); 0 otherwise */
} morph_policy_snapshot;

typedef enum morph_policy_op {
  MORPH_POLICY_START = 1,  /* start pending job at size `to` on the allocation */
  MORPH_POLICY_EXPAND = 2, /* grow running job from `from` to `to`; allocation = added */
  MORPH_POLICY_SHRINK = 3, /* shrink running job from `from` to `to`; allocation = released */
  MORPH_POLICY_MIGRATE = 4 /* reserved; no policy emits it yet */
} morph_policy_op;

/* Which of its units a SHRINK may give back. The policy counts units; the
 * placement stage (morph/place.h) chooses them within this rule. */
typedef enum morph_policy_release {
  MORPH_POLICY_RELEASE_ANY = 0, /* any unit but the master's; placement gives
                                   back units on DOWN / DRAINING nodes first */
  MORPH_POLICY_RELEASE_UP = 1   /* only units on UP nodes: the policy counted
                                   them as capacity for waiting jobs */
} morph_policy_release;

/* One action. Its allocation, filled by morph_place_actions(), is
 * allocs[alloc_first .. alloc_first + alloc_count) of the
 * morph_policy_actions that holds it.
 *
 * `depends` is the index (in the same action list) of an action that must
 * complete before this one may be carried out, or -1. A START that uses slots
 * released by a SHRINK of the same decision depends on that SHRINK (DMRlib:
 * the pending job that caused the shrink gets those resources first); a
 * SHRINK serves at most one START. If the SHRINK fails, the caller drops the
 * START; nothing else is booked on them. */
typedef struct morph_policy_action {
  morph_policy_op op;
  int64_t job;        /* job id */
  int job_index;      /* index in snapshot.pending (START) or .running */
  int from, to;       /* size before and after (START: from = 0) */
  int alloc_first, alloc_count;
  int depends;        /* action index or -1 */
  morph_policy_release release; /* SHRINK: which units may go (ANY otherwise) */
} morph_policy_action;

/* A growable list of actions and their allocation pieces. Reuse one list
 * across decisions to avoid allocations: morph_policy_decide() empties it
 * first. */
typedef struct morph_policy_actions {
  morph_policy_action *v;
  int n, cap;
  morph_policy_alloc *allocs;
  int nallocs, cap_allocs;
} morph_policy_actions;

/* How a malleable job may be resized (DMRlib's default redistribution wants
 * sizes that are multiples or divisors of the current one). */
typedef enum morph_policy_sizes {
  MORPH_POLICY_SIZES_ANY = 0,    /* any size within min..max */
  MORPH_POLICY_SIZES_FACTOR = 1, /* new size is a multiple or divisor of the current */
  MORPH_POLICY_SIZES_POW2 = 2    /* new size is current * 2^k or current / 2^k */
} morph_policy_sizes;

/* Parameters common to all policies; each policy reads those it needs.
 * Fill with morph_policy_params_default(), then change fields directly or by
 * name with morph_policy_params_set(). */
typedef struct morph_policy_params {
  double mtct_lower;        /* mtct: both MTCT values below -> double (0.2) */
  double mtct_upper;        /* mtct: any MTCT value above -> halve (0.5) */
  int max_failed_resizes;   /* jobs with this many failures are not resized (3) */
  double sched_period;      /* inhibitor for jobs whose sched_period is 0 (0 s) */
  morph_policy_sizes sizes; /* allowed resize sizes (ANY) */
  double default_walltime;  /* easy: estimate for jobs without walltime; <= 0
                               means such running jobs never end (3600 s) */
  double step_period;       /* stepping: seconds between two steps of a job (60 s) */
  int step_units;           /* stepping: units added per step (1) */
  int shrink_to_min;        /* dmr, dmr-slurm, rdmr: a shrink for a waiting job
                               may go down to the job's min instead of stopping
                               at its preferred size as paper 000 says (0) */
  int shrink_jobs;          /* rdmr: at most this many running jobs shrink for
                               the waiting jobs in one decision; 0: no limit (0) */
} morph_policy_params;

typedef struct morph_policy morph_policy;

/* Fills *params with the defaults given in parentheses above. */
void morph_policy_params_default(morph_policy_params *params);

/* Sets one parameter by name, for command lines and configuration files:
 * keys "mtct_lower", "mtct_upper", "max_failed_resizes", "sched_period",
 * "sizes" (any | factor | pow2), "default_walltime", "step_period",
 * "step_units" (an integer >= 1), "shrink_floor" (pref | min: sets
 * shrink_to_min), "shrink_jobs" (an integer >= 0).
 * Errors: MORPH_EINVAL for an unknown key or a malformed or out-of-range
 * value. On error *params is unchanged. */
int morph_policy_params_set(morph_policy_params *params, const char *key, const char *value);

/* Creates the policy called `name` (see morph_policy_names(); names are
 * "<start>" or "<resize>" or "<resize>+<start>", e.g. "easy", "dmr",
 * "dmr+easy", "rdmr+easy"). `params` may be NULL for the defaults; it is copied.
 * Errors: MORPH_EINVAL for NULL name or out, an unknown name or
 * inconsistent params (mtct_lower > mtct_upper, negative counts);
 * MORPH_ENOMEM. On error *out is NULL; morph_policy_create_error() gives the
 * message (for an unknown name it lists the valid names). */
int morph_policy_create(const char *name, const morph_policy_params *params, morph_policy **out);

/* Checks what morph_policy_create() checks, without creating anything, and
 * writes the message of the first problem into buf ("" if none; truncated to
 * size, NUL-terminated if size > 0). Returns MORPH_OK or MORPH_EINVAL, as
 * morph_policy_create() would (apart from MORPH_ENOMEM). The engine keeps no
 * global "last error", so this is how a caller explains a failed create. */
int morph_policy_create_error(const char *name, const morph_policy_params *params, char *buf,
                              size_t size);

/* Frees the policy; NULL is allowed. */
void morph_policy_destroy(morph_policy *policy);

/* The name the policy was created with ("dmr+fcfs" for "dmr"); "" for
 * NULL. Never NULL. */
const char *morph_policy_name(const morph_policy *policy);

/* Decides what to do now. Empties *actions, then appends START / EXPAND /
 * SHRINK actions in the order they should be carried out (shrinks that free
 * resources for a start come before it), with counts only: no action has
 * pieces (alloc_count 0, nallocs 0) until morph_place_actions() chooses
 * them. The counts always fit: taken in order, every START and EXPAND finds
 * enough free units on UP nodes (a START that depends on a SHRINK first
 * takes what that SHRINK releases), and every SHRINK enough units its job
 * may release under its `release` rule, so placement never fails on them.
 * The actions never move a job outside its limits and never touch a job
 * whose resize is in progress.
 * Errors: MORPH_EINVAL for NULL arguments or an inconsistent snapshot (the
 * message names the node or job: used > slots, allocation sizes that do not
 * add up to the job size, more slots booked on a node than it has, bad
 * limits); MORPH_ENOMEM. On error *actions is empty (n == 0) and the policy
 * is usable. */
int morph_policy_decide(morph_policy *policy, const morph_policy_snapshot *snap,
                        morph_policy_actions *actions);

/* Message of the policy's last failure ("" if none); never NULL. */
const char *morph_policy_errmsg(const morph_policy *policy);

/* Writes the valid policy names, separated by ", ", into buf (truncated to
 * size, always NUL-terminated if size > 0). Returns the full length. Never
 * fails. */
size_t morph_policy_names(char *buf, size_t size);

/* Number of entries in the policy table (never fails), and the name and
 * one-line description of entry i (NULL if out of range). */
int morph_policy_count(void);
const char *morph_policy_table_name(int i);
const char *morph_policy_table_description(int i);

/* Initialises an empty action list (no allocation yet). */
void morph_policy_actions_init(morph_policy_actions *actions);

/* Frees the list's memory and leaves it empty and reusable. */
void morph_policy_actions_free(morph_policy_actions *actions);

/* Checks that `actions` applied to `snap` is feasible: jobs and sizes
 * exist and match, limits and requests hold, every allocation piece is on an
 * UP node (for START / EXPAND), released pieces are the job's own, keep its
 * master and follow the action's `release` rule, units a SHRINK releases are
 * booked only by the one START that depends on it, and no node is booked
 * above its slots (NODE units: whole free nodes only).
 * Writes the first problem to msg (may be NULL).
 * Errors: MORPH_EINVAL if infeasible or arguments are NULL. Nothing is
 * modified. */
int morph_policy_actions_check(const morph_policy_snapshot *snap,
                               const morph_policy_actions *actions, char *msg, size_t msgsize);

/* Checks a snapshot as morph_policy_decide() does (nodes, limits,
 * allocations adding up, no node holding more than `used`) and writes the
 * first problem, naming the node or job, to msg (may be NULL).
 * Errors: MORPH_EINVAL (inconsistent or NULL), MORPH_ENOMEM. Nothing is
 * modified. */
int morph_policy_snapshot_check(const morph_policy_snapshot *snap, char *msg, size_t msgsize);

/* Deep-copies a snapshot into engine-owned memory so that it can be
 * modified by morph_policy_snapshot_apply().
 * Errors: MORPH_EINVAL (NULL), MORPH_ENOMEM. On error *out is NULL. */
int morph_policy_snapshot_clone(const morph_policy_snapshot *src, morph_policy_snapshot **out);

/* Applies actions as if each completed at once: STARTed jobs move from
 * pending to the end of running (in action order, start_time and
 * last_change = now), resized jobs get their new size and allocation
 * (last_change = now), node `used` counts follow. Pending jobs keep their
 * relative order.
 * Errors: MORPH_EINVAL if snap was not made by morph_policy_snapshot_clone()
 * or the actions fail morph_policy_actions_check() (msg says why);
 * MORPH_ENOMEM. On error the snapshot is unchanged. */
int morph_policy_snapshot_apply(morph_policy_snapshot *snap, const morph_policy_actions *actions,
                                char *msg, size_t msgsize);

/* Frees a snapshot made by morph_policy_snapshot_clone(); NULL allowed. */
void morph_policy_snapshot_free(morph_policy_snapshot *snap);

#ifdef __cplusplus
}
#endif
#endif /* MORPH_POLICY_H */
