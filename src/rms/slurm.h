/*
 * rms/slurm, internal: morphd as a companion of an unmodified Slurm, through
 * libslurm (docs/slurm.md). Slurm owns the nodes and the queue and starts
 * every job; morphd claims the jobs whose `morph run` says HELLO, and
 * grows and shrinks them:
 *
 *   slurm.c       the ops: open, claim, adopt, release (a job update naming
 *                 the nodes to keep), drop, stop (cancel), events
 *   slurm_load.c  reading Slurm: pictures of the job and node tables
 *                 (libslurm, "no change since"), how often (an RPC budget)
 *   slurm_view.c  the picture turned into the view (node units); the
 *                 queue of events not delivered yet
 *   slurm_grow.c  grows: an expander allocation (--dependency=expand:J)
 *                 whose nodes are merged into the job
 *   slurm_stat.c  the RPCs the backend sends slurmctld: counted, a line
 *                 a minute at -v, and their budget (RATE a second)
 *
 * Every libslurm call needs SLURM_CONF (open refuses to start without it:
 * Slurm would otherwise look for its controller in DNS). Slurm is read in
 * next(), when slurm_load.c says a picture is due; read() answers from
 * that picture, so a decision and the books check see the same Slurm
 * state as the events that went before them. What morphd does itself (a
 * merge, a release) shows in the view at once: the claim's nodes are
 * morphd's until a table loaded after the change shows it.
 *
 * What a node counts as used: every node that a running (or completing)
 * Slurm job holds, plus the pieces the backend holds for a claimed job
 * while Slurm does not show them yet or any more (a grow until its GROWN
 * is delivered, a release until its RELEASED is), and the nodes a claimed
 * job held when Slurm last showed it running until morphd drops the claim
 * (Slurm ended it, by scancel, a time limit or a node failure, before
 * morphd has heard of the end). morphd's books (the
 * claimed jobs' alloc + extra, and the other jobs of the view) must equal
 * that: this is how a disagreement between Slurm and morph shows up as an
 * `invariant` event.
 */
#ifndef MORPH_RMS_SLURM_H
#define MORPH_RMS_SLURM_H

#include <slurm/slurm.h>
#include <stdint.h>
#include <sys/types.h>

#include "rms/backend.h"

/* libslurm exports these (what scontrol and squeue print) without
 * declaring them in its public headers (Slurm's src/common/slurm_protocol_defs.h). */
extern char *slurm_job_state_string(uint32_t inx);
extern char *slurm_job_reason_string(enum job_state_reason inx);
extern char *slurm_node_state_string(uint32_t inx);

#define MORPH__SL_NAME_GROW "morph-grow" /* expander job names: morph-grow-<J> */

/* A job morphd has claimed (its id is Slurm's). */
typedef struct morph__sl_claim {
  int64_t id;
  int ppu;              /* processes per node (the job's size / its nodes) */
  morph__alloc holds;   /* counted as used whatever Slurm shows (see above) */
  int grow_req;         /* a grow in flight: morphd's request id; 0: none */
  uint32_t expander;    /* its expander allocation; 0: not (or no more) in Slurm */
  morph__alloc grow;    /* the pieces asked for */
  double grow_deadline; /* wall clock: refused if not granted by then */
  int ended;            /* ENDED reported (said again on later calls) */
  morph__alloc last;    /* its nodes in the last picture in which it held them,
                           or as morphd last changed them (pinned) */
  time_t pinned;        /* when morphd last changed its nodes: Slurm's record
                           counts again from a table loaded after it */
  job_info_msg_t *exp;  /* its pending expander's own record, last loaded */
} morph__sl_claim;

/* What the backend asks slurmctld, one RPC each (slurm_stat.c). */
typedef enum morph__sl_rpc_kind {
  MORPH__SL_RPC_JOBS,  /* slurm_load_jobs */
  MORPH__SL_RPC_NODES, /* slurm_load_node */
  MORPH__SL_RPC_JOB,   /* slurm_load_job (one job) */
  MORPH__SL_RPC_ALLOC, /* slurm_allocate_resources */
  MORPH__SL_RPC_UPDATE,/* slurm_update_job */
  MORPH__SL_RPC_KILL,  /* slurm_kill_job */
  MORPH__SL_RPC_KINDS
} morph__sl_rpc_kind;

#define MORPH__SL_STAT_WINDOW_S 60.0

typedef struct morph__sl_stat {
  double since;                    /* morph__now() when the window began */
  long rpc[MORPH__SL_RPC_KINDS];   /* RPCs of each kind in the window */
  long same[MORPH__SL_RPC_KINDS];  /* of the table loads: answered "no change since" */
  long pictures, pictures_same;    /* pictures taken; with every load unchanged */
  double load_ms, load_max;        /* their loads (libslurm calls), sum and max */
  double view_ms, view_max;        /* building the view from them */
} morph__sl_stat;

/* An event not delivered yet, and the holds it lets go of when it is. */
typedef struct morph__sl_queued {
  morph__backend_event ev;
  morph__alloc unhold;
} morph__sl_queued;

typedef struct morph__sl {
  morph__backend base;
  const morph__sayer *log;
  /* Slurm's picture, as last loaded (slurm_load.c) */
  job_info_msg_t *jobs;
  uint32_t *by_id;     /* jobs->job_array's indices by job id */
  node_info_msg_t *nodes_msg;
  double nodes_at;     /* morph__now() of the last node table load */
  double picture_at;   /* morph__now() of the last picture */
  int picture_soon;    /* a picture as soon as the budget allows (a claim) */
  double grow_poll_at; /* morph__now() of the next poll of pending expanders */
  double tokens, tokens_at; /* the RPC budget and when it was counted */
  double load_s;       /* seconds of the last job table that changed */
  int stale;           /* the last load failed: decisions wait */
  pid_t probe;         /* while stale: a child pinging slurmctld; 0 none */
  /* the view built from it (memory kept between calls) */
  morph__node *nodes;
  int nnodes;
  morph_policy_node_state *prev_state; /* for NODE events; NULL before the first */
  uint32_t *prev_pending;              /* for QUEUE events: the pending jobs of */
  int nprev_pending;                   /* the last picture, by Slurm job id */
  double *refused_until;               /* per node: an expander could not get it */
  double refused_next;                 /* wall clock: the next of them to expire */
  unsigned char *mine;                 /* per node: a claimed job holds it */
  uint32_t *ours;                      /* claimed jobs and expanders, sorted ids */
  int nours;
  long built;                          /* views built */
  morph_policy_job *running, *pending;
  int nrunning, npending;
  morph_policy_alloc *pieces; /* the other jobs' allocations */
  int npieces;
  morph__sl_claim *claims;
  int nclaims, capclaims;
  morph__sl_queued *q;
  int nq, capq;
  morph__sl_stat st;
} morph__sl;

/* slurm_load.c */
/* Loads the job table, and the node table too if `nodes`, if the jobs
 * changed or if its copy is old, each unless Slurm says "no change
 * since"; rebuilds the view if anything changed. Errors: MORPH_EIO
 * (slurmctld did not answer; the old picture is kept and marked stale),
 * MORPH_ENOMEM. */
int morph__sl_refresh(morph__sl *s, int nodes, char *err, size_t errsize);
/* A picture if one is due (*took = 1): morph__sl_refresh, or while an
 * expander is pending its record alone. Errors: as morph__sl_refresh. */
int morph__sl_picture(morph__sl *s, int *took, char *err, size_t errsize);

/* slurm_view.c */
/* Indexes a new job table by job id (s->by_id). Errors: MORPH_ENOMEM. */
int morph__sl_index_jobs(morph__sl *s);
/* The job in the last picture; NULL if Slurm does not list it. O(log n). */
const slurm_job_info_t *morph__sl_job(const morph__sl *s, uint32_t id);
/* Builds the view from the tables as loaded (no RPC) and queues the NODE
 * and QUEUE events it shows. Errors: MORPH_ENOMEM. */
int morph__sl_build(morph__sl *s);
/* True if the job holds its nodes (running, suspended or completing). */
int morph__sl_job_holds(const slurm_job_info_t *j);
/* True if the job runs (or is suspended) and Slurm is not ending it. */
int morph__sl_job_runs(const slurm_job_info_t *j);
/* The job's nodes as pieces in rank order: its batch host first, then
 * Slurm's node order (what `morph run` puts in its hostfile).
 * Errors: MORPH_ENOMEM, MORPH_ENOENT (a node not in the node table). */
int morph__sl_job_nodes(const morph__sl *s, const slurm_job_info_t *j, morph__alloc *out);
/* Node index of a host name; -1 if unknown. */
int morph__sl_node_index(const morph__sl *s, const char *host);
/* "node1,node3" for the pieces (size bytes at most). */
void morph__sl_hostlist(const morph__sl *s, const morph__alloc *a, char *buf, size_t size);
/* The claim of job id; NULL if it is not morphd's. */
morph__sl_claim *morph__sl_claim_of(const morph__sl *s, int64_t id);
/* Slurm's message for its last error. */
const char *morph__sl_strerror(void);
/* True if job j is one of this backend's expanders (any claim's). */
int morph__sl_is_expander(const morph__sl *s, const slurm_job_info_t *j);
/* Queues an event; `unhold` (may be NULL) leaves the claim's holds when it
 * is delivered. Errors: MORPH_ENOMEM. */
int morph__sl_enqueue(morph__sl *s, const morph__backend_event *ev, const morph__alloc *unhold);
morph__backend_event morph__sl_event(morph__backend_event_kind kind, int64_t job, int req);

/* slurm_grow.c */
/* Submits the expander allocation of claim c's grow (c->grow). A refusal
 * by Slurm is not an error: it is queued as a GROWN event. Errors:
 * MORPH_ENOMEM (nothing submitted). */
int morph__sl_grow_submit(morph__sl *s, morph__sl_claim *c, const slurm_job_info_t *job);
/* Moves every grow in flight on: merge a granted expander into its job,
 * refuse one past its deadline, and queue the GROWN events. */
void morph__sl_grow_poll(morph__sl *s);
/* Cancels claim c's expander, if any (drop, refusal). */
void morph__sl_grow_cancel(morph__sl *s, morph__sl_claim *c);

/* slurm_stat.c */
/* Counts one RPC of kind k, out of the budget (morph__sl_spend); same: a
 * load answered "no change since". Every libslurm call that reaches
 * slurmctld goes through it. */
void morph__sl_rpc(morph__sl *s, morph__sl_rpc_kind k, int same);
/* The budget now: tokens left, one per RPC (below zero after a resize). */
double morph__sl_budget(morph__sl *s);
/* Counts one picture: same if no table changed; its loads' and view's times. */
void morph__sl_stat_picture(morph__sl *s, int same, double load_ms, double view_ms);
/* At the end of a window: its line at -v, and a new window. */
void morph__sl_stat_tick(morph__sl *s);

#endif
