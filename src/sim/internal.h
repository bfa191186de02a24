/* Internal state of the simulator, shared by its files. */
#ifndef MORPH_SIM_INTERNAL_H
#define MORPH_SIM_INTERNAL_H

#include "morph/sim.h"

enum morph__ev_type { EV_SUBMIT, EV_POINT, EV_RESIZED, EV_END, EV_TICK, EV_LIMIT };

typedef struct morph__ev {
  double t;
  uint64_t seq;   /* insertion order: ties break the same way every run */
  int type, job;
  uint32_t gen;   /* END/POINT/RESIZED are stale when the job's gen moved,
                     LIMIT when its lgen did */
} morph__ev;

typedef struct morph__heap {
  morph__ev *v;
  size_t n, cap;
} morph__heap;

int morph__heap_push(morph__heap *h, morph__ev ev);
morph__ev morph__heap_pop(morph__heap *h);
void morph__heap_free(morph__heap *h);

enum morph__jstate { J_FUTURE, J_PENDING, J_STARTING, J_RUNNING, J_DONE, J_SKIPPED };
enum morph__rstate { R_NONE, R_WAIT_POINT, R_RECONF };

/* One job during a run. nodes[0..nn) are the nodes it computes on (nodes[0]
 * holds the master); delta[0..nd) the nodes a pending resize adds (booked)
 * or releases. */
typedef struct morph__sjob {
  const morph_wjob *w;
  int state, rstate;
  int req_min, req_max, min, max, pref; /* clamped to the cluster */
  int size, target;
  int *nodes, nn, ncap;
  int *delta, nd;
  int missing;            /* STARTING: nodes still held by a shrinking job */
  double done, last_t, rate;
  double start, end, last_change;
  uint32_t gen;
  double limit;           /* time limit in s at the reference size; 0: none */
  double limit_end;       /* running: when it is killed (limit.c) */
  double pause_from;      /* R_RECONF: when the pause began */
  uint32_t lgen;          /* its LIMIT events */
  int killed;             /* ended at its limit */
  morph_seg *seg;
  size_t nseg, segcap;
  int resizes;
} morph__sjob;

struct morph_sim {
  morph_sim_config cfg;
  char policy_name[64];
  morph_policy *pol;
  morph_place *place;
  char errmsg[512];
  /* One run. */
  const morph_workload *wl;
  morph__sjob *jobs;
  size_t njobs;
  int *owner, *next_owner; /* per node: job index or -1 */
  int nfree;
  morph__heap heap;
  uint64_t seq;
  int *pending;            /* queue order */
  size_t npend;
  int *running;            /* start order */
  size_t nrun;
  size_t ndone, future;    /* ended jobs; submissions still to come */
  morph_policy_node *pnodes;
  morph_policy_job *prun, *ppend;
  morph_policy_alloc *palloc;
  morph_policy_actions acts;
  double now;
  int dirty;               /* something changed since the last decision */
  double next_tick;        /* time of the scheduled tick, < 0 if none */
  double wake;             /* earliest end of a resize inhibitor */
  morph_sim_estimates est; /* the mode of this run (limit.c) */
  morph_sim_stats st;
};

/* The simulator's files call downwards only, in this order: sim.c (object,
 * loop) -> decide.c (a decision and its actions) -> events.c (job events)
 * -> snapshot.c (the policy's view) -> limit.c (estimates and time
 * limits) -> job.c (progress, cost) -> heap.c (event queue); fail.c (the
 * message) is used by all. */

/* fail.c: sets the message of the last failure and returns err. */
int morph__sim_fail(morph_sim *sim, int err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* heap.c: queues an event of `type` for `job` (-1: none) at time t. */
int morph__sim_push(morph_sim *sim, double t, int type, int job);

/* job.c */
void morph__sim_advance(morph_sim *sim, morph__sjob *j);
int morph__sim_schedule_end(morph_sim *sim, int job);
int morph__seg_push(morph__sjob *j, double t, int size);

/* limit.c: the run's estimate mode and every job's limit (setup); a
 * job's limit at start, while a resize pauses it and after; the estimates
 * the policy sees. */
void morph__sim_limits_setup(morph_sim *sim);
int morph__sim_limit_start(morph_sim *sim, int job);
void morph__sim_limit_pause(morph_sim *sim, int job);
int morph__sim_limit_resized(morph_sim *sim, int job, int from);
double morph__sim_estimate_pending(const morph_sim *sim, const morph__sjob *j);
double morph__sim_estimate_running(const morph_sim *sim, const morph__sjob *j);

/* snapshot.c: the queue's entries follow submissions and starts; the rest
 * of the snapshot is rebuilt for every decision. */
void morph__sim_pending_add(morph_sim *sim, int job);
void morph__sim_pending_remove(morph_sim *sim, int job);
void morph__sim_snapshot(morph_sim *sim, morph_policy_snapshot *s);

/* events.c */
int morph__sim_start(morph_sim *sim, int job);
void morph__sim_release(morph_sim *sim, int node);
int morph__sim_handle(morph_sim *sim, const morph__ev *ev);

/* decide.c */
int morph__sim_decide(morph_sim *sim);

#endif
