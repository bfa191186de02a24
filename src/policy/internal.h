/*
 * Internal interface of the policy engine: the working state of one decision
 * (morph__pass), the helpers every policy uses to count units and emit
 * actions, and the policy table.
 *
 * A decision runs in three steps: the resize policy's `before` hook (shrinks
 * that must happen whatever the queue, e.g. mtct halving), the start policy
 * (fcfs or easy), then the resize policy's `after` hook (expansions, and
 * DMRlib's shrink-to-start). Every step counts units through the helpers
 * below, which keep the count of free units exact, so no step can ask for
 * more than there is. Policies decide counts only: which nodes and slots
 * is the placement stage's choice (morph/place.h, src/place/).
 */
#ifndef MORPH_POLICY_INTERNAL_H
#define MORPH_POLICY_INTERNAL_H

#include <morph/policy.h>

/* A min-tree over the pending queue: finds the first pending job (in queue
 * order) whose req_min is at most a value, in O(log n). Started jobs are
 * removed. */
typedef struct morph__mintree {
  int *v;   /* 2 * size entries, leaves at [size, 2 * size) */
  int size; /* power of two >= number of pending jobs */
  int cap;  /* allocated entries */
} morph__mintree;

/* Scratch arrays reused from one decision to the next (owned by the policy). */
typedef struct morph__scratch {
  int *node_booked;    /* validation: slots held per node by running jobs */
  int nodes_cap;
  int *size;           /* per running job: size after this decision */
  char *touched;       /* per running job: already has an action */
  int running_cap;
  char *started;       /* per pending job: started in this decision */
  int pending_cap;
  double *ends;        /* easy: (end time, units) pairs of running jobs,
                          then room for as many to sort them */
  int ends_cap;
  int *pairs;          /* granularity: (headroom, job) pairs; rdmr: (release,
                          job); edmr: (tier, job, units) triples, two per job */
  int pairs_cap;
  morph__mintree tree;
} morph__scratch;

typedef struct morph__pass {
  const morph_policy_snapshot *snap;
  const morph_policy_params *params;
  morph_policy_actions *out;
  morph__scratch *s;
  long total_free;  /* free units (slots or whole nodes) on UP nodes */
  int backfills;    /* the start policy starts jobs past a blocked head
                       (easy): units no queued job can use now still find
                       a taker among the later ones */
  char *msg;        /* the policy's error message buffer */
  size_t msgsize;
} morph__pass;

/* A phase of a decision; returns MORPH_OK or MORPH_ENOMEM. */
typedef int (*morph__phase_fn)(morph__pass *run);

typedef struct morph__start_entry {
  const char *name;
  const char *description;
  morph__phase_fn start;
  int backfills;          /* starts jobs past a blocked head (morph__pass) */
} morph__start_entry;

typedef struct morph__resize_entry {
  const char *name;
  const char *description;
  morph__phase_fn before; /* before starts; may be NULL */
  morph__phase_fn after;  /* after starts; may be NULL */
} morph__resize_entry;

/* The tables (table.c). */
extern const morph__start_entry morph__start_table[];
extern const int morph__start_count;
extern const morph__resize_entry morph__resize_table[];
extern const int morph__resize_count;

/* Phases (one file each). */
/* Starts queue jobs in order until one does not fit; returns that job's
 * index (npending if none is left) or a negative error. */
int morph__fcfs_prefix(morph__pass *run);
int morph__fcfs_start(morph__pass *run);
int morph__easy_start(morph__pass *run);
/* easy.c: the pending job `head`'s shadow time (when enough units are
 * free for its req_min, from running jobs' and this decision's starts'
 * expected ends; INFINITY if never) and the units left over then. */
void morph__easy_reserve(const morph__pass *run, int head, double *shadow, long *extra);
/* easy.c: when a job started (or starting) at `start` is expected to end:
 * start + its walltime (default_walltime without one), not before now;
 * INFINITY without either. */
double morph__expected_end(const morph__pass *run, const morph_policy_job *job, double start);
int morph__dmr_after(morph__pass *run);
/* Algorithm 2's line 6 for every job that may be resized (dmr.c): a job
 * above its floor (morph__shrink_floor, or its min with to_min) shrinks
 * when that lets a pending job start, which starts on the released units. */
int morph__dmr_shrink_pass(morph__pass *run, int to_min);
int morph__dmr_slurm_after(morph__pass *run);
int morph__rdmr_after(morph__pass *run);
int morph__edmr_after(morph__pass *run);
int morph__stepping_after(morph__pass *run);
int morph__mtct_before(morph__pass *run);
int morph__mtct_after(morph__pass *run);
int morph__mdmr_before(morph__pass *run);
int morph__mdmr_after(morph__pass *run);
int morph__granularity_before(morph__pass *run);
int morph__granularity_after(morph__pass *run);

/* Sets the run's message (printf style) and returns rc. */
int morph__pass_fail(morph__pass *run, int rc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Snapshot validation and free-pool set-up (validate.c). */
int morph__scratch_reserve(morph__scratch *s, const morph_policy_snapshot *snap);
void morph__scratch_free(morph__scratch *s);
/* Checks the snapshot; `booked` has room for one int per node. */
int morph__validate(const morph_policy_snapshot *snap, int *booked, char *msg, size_t size);
void morph__pass_count_free(morph__pass *run);

/* Units of one allocation piece: 1 in NODE units, its slots in SLOT units. */
int morph__piece_units(const morph_policy_snapshot *snap, const morph_policy_alloc *piece);

/* Size rules (sizes.c). Largest allowed size s with lo <= s <= want and
 * s < cur, or 0 if none. */
int morph__size_down(morph_policy_sizes rule, int cur, int lo, int want);
/* Largest allowed size s with cur < s <= hi, or 0 if none. */
int morph__size_up(morph_policy_sizes rule, int cur, int hi);

/* Smallest allowed size s with lo <= s < cur, or 0 if none. */
int morph__size_min(morph_policy_sizes rule, int cur, int lo);

/* Counting and emitting (run.c). */
int morph__resizable(const morph__pass *run, int j);
int morph__inhibited(const morph__pass *run, int j);
long morph__free_units(const morph__pass *run);
/* Units that shrinks in progress will free (running jobs that are
 * resizing to a smaller resize_to; callers that do not fill resize_to
 * give 0). */
long morph__incoming_units(const morph__pass *run);
/* Walks the jobs still pending in queue order, reserving each one's
 * req_min while `avail` plus `cap` (what shrinks could add) covers every
 * reservation; the first job not covered stops the walk, so no later job
 * is served before it (*blocked is set). Returns the units reserved. */
long morph__queue_reserve(const morph__pass *run, long avail, long cap, int *blocked);
/* Free units no waiting job is waiting for: walking the jobs still pending
 * in queue order, each holds its req_min while the free units cover it;
 * the first one they do not cover holds all the rest (0 spare). */
long morph__spare_units(const morph__pass *run);
/* The least size a shrink for waiting jobs may leave running job j at:
 * its preferred size (paper 000), or its min with shrink_floor=min. */
int morph__shrink_floor(const morph__pass *run, int j);
/* Appends an action (no pieces: placement fills them); returns its index
 * or MORPH_ENOMEM. */
int morph__emit(morph__pass *run, morph_policy_op op, int job_index, int from, int to, int depends);
/* Units of running job j on UP nodes that a shrink may release (the master
 * piece keeps one slot / its node). */
int morph__releasable_up(const morph__pass *run, int j);
/* Units of running job j on nodes that are not UP (the master's kept). */
int morph__bad_units(const morph__pass *run, int j);

/* Whole actions; each keeps the count of free units exact. A START takes
 * what the SHRINK it depends on releases first, the rest from free units;
 * an EXPAND takes free units; a SHRINK's units are free for nobody else
 * in this decision. Requires enough free units. */
int morph__start_job(morph__pass *run, int p, int n, int depends);
int morph__expand_job(morph__pass *run, int j, int to);
int morph__shrink_job(morph__pass *run, int j, int to, morph_policy_release release);

/* Pending-queue min-tree (run.c). */
int morph__tree_build(morph__mintree *t, const morph_policy_snapshot *snap, const char *started);
void morph__tree_remove(morph__mintree *t, int p);
/* First pending index whose req_min <= x, or -1. */
int morph__tree_first_le(const morph__mintree *t, long x);

#endif
