/*
 * The backend seam of morphd. Everything that touches resources (nodes,
 * slots, processes) goes through one small ops struct, one file per
 * backend, named like Slurm plugins:
 *
 *   rms/embedded  embedded.c: morphd's own pool (this machine or a
 *                 hostfile), jobs started as `morph run` children
 *   rms/slurm     slurm.c: Slurm owns nodes and queue (libslurm); jobs
 *                 started by Slurm become morphd's when they claim it
 *
 * morphd's scheduler asks the policy engine what to do and the backend to
 * do it; it never books a slot, starts, signals or reaps a process itself.
 * A new backend is one new file with one morph__backend_ops and its line
 * in the table of backend.c.
 *
 * Requests and events. read, start, hold, drop, stop and adopt complete
 * before they return. grow and release are requests: MORPH_OK means
 * "accepted", and exactly one event (GROWN or RELEASED, carrying the
 * request id `req`) reports the completion later: during the next
 * morph__backend_next() call (embedded), or seconds later (Slurm: an
 * expander allocation takes about 0.4 s and may be refused). A request that
 * returns an error reports nothing. drop forgets the job's requests in
 * flight: they never report. Other events (a job ended, a node changed
 * state) come when the backend sees them; morph__backend_next() is where
 * it looks (reaping children, checking hosts), so morphd calls it every
 * turn of its loop.
 *
 * Jobs. The backend is given morphd's job record and reads id, argv, cwd,
 * out, err, kind, min/max/pref, size, state, start, pid, alloc and extra; it
 * writes only `pid` and, on start, `adopted`. What a job holds is, in morphd's books, job->alloc (where its
 * processes run) plus job->extra (held without processes: a grow not yet
 * taken up, slots booked ahead, pieces being released); the backend keeps
 * its own record of the same and morphd compares the two after every
 * decision (morph__jobs_check_books).
 *
 * Pieces are {node index in the view, slots}, as in the policy engine.
 * Node indices are stable for the life of a journal (hostfile order,
 * Slurm's node table order).
 *
 * Error contract: MORPH_OK or a negative MORPH_E* code, as documented per
 * call; MORPH_ENOSYS always means "not this backend's to do" (the
 * wrappers below return it for an op a backend leaves NULL) and changes
 * nothing.
 */
#ifndef MORPH_RMS_BACKEND_H
#define MORPH_RMS_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "common/log.h"
#include "morph/policy.h"
#include "rms/job.h"

/* A node as the backend shows it. `used` counts the slots held by anyone
 * (morphd's jobs and, under Slurm, jobs that are not morphd's). */
typedef struct morph__node {
  char host[64];
  int slots;
  int used;
  int settling; /* of `used`: slots of jobs that ended, booked until their
                   processes are seen gone from the node (embedded) */
  morph_policy_node_state state; /* only UP nodes receive new pieces */
} morph__node;

/* The node and allocation snapshot. Memory is the backend's, valid until
 * its next call. `running` and `pending` are jobs that are not morphd's
 * (Slurm: jobs submitted without morph, given kind RIGID so the policy
 * never resizes them; embedded: none); their `alloc` pieces use the same
 * node indices. morphd puts them in the policy's snapshot and leaves the
 * actions on them (a START) to their resource manager. */
typedef struct morph__backend_view {
  morph_policy_unit unit; /* what a size counts: slots, or whole nodes */
  const morph__node *nodes;
  int nnodes;
  const morph_policy_job *running;
  int nrunning;
  const morph_policy_job *pending; /* in the backend's queue order */
  int npending;
  int grow_above_master; /* 1: morphd's jobs grow only onto nodes numbered
                            above their first node (Slurm 22.05: a job grown
                            below its batch host may end NODE_FAIL,
                            docs/slurm.md); placement gets it as
                            morph_policy_job.expand_from */
} morph__backend_view;

typedef enum morph__backend_event_kind {
  MORPH__BE_GROWN = 1, /* a grow request completed */
  MORPH__BE_RELEASED,  /* a release request completed: processes gone there */
  MORPH__BE_ENDED,     /* a job's processes are gone */
  MORPH__BE_NODE,      /* a node changed state */
  MORPH__BE_QUEUE      /* a job that is not morphd's came into the queue and
                          waits for nodes (Slurm): decide now, since a shrink
                          may be what it waits for, not at the next interval */
} morph__backend_event_kind;

typedef struct morph__backend_event {
  morph__backend_event_kind kind;
  int64_t job;    /* GROWN, RELEASED, ENDED: morphd's job id */
  int req;        /* GROWN, RELEASED: the id given with the request */
  int outcome;    /* GROWN: MORPH_OK (the pieces asked for are the job's)
                     or why not (none of them is); RELEASED: MORPH_OK (the
                     pieces are free) or why not (they stay the job's) */
  int status;     /* ENDED: exit status (128 + signal), -1 unknown */
  int cancelled;  /* ENDED: the resource manager cancelled the job (scancel) */
  int known;      /* ENDED: 1 status is real (reaped, or told by the RM);
                     0 the processes vanished out of sight; the backend says
                     so again on later calls until the job is dropped, so
                     morphd may wait for the job's own BYE first */
  int node;       /* NODE: index in the view */
  morph_policy_node_state state; /* NODE: its new state */
  char hosts[512];/* GROWN: where the joiners go, one entry per slot
                     ("h1,h1,h2"); "" means the launcher's default */
  char text[256]; /* what happened, for the log and the journal */
} morph__backend_event;

/* What morphd gives a backend when it opens it. Fields a backend does not
 * use are ignored; new settings are new fields, not new parameters. */
typedef struct morph__backend_conf {
  const char *socket;   /* morphd's socket: the jobs' relays connect here */
  const char *outdir;   /* folder for per-job files (hostfiles) */
  const char *launcher; /* morph-run; NULL: next to the running program */
  const char *checkpoint_dir; /* embedded: morph run's --checkpoint-dir; NULL: none */
  const char *hostfile; /* embedded: "host slots=N" lines; NULL: this machine */
  int slots;            /* embedded: slots of this machine */
  const morph__sayer *log;
} morph__backend_conf;

typedef struct morph__backend morph__backend;

/* One backend. Every op gets the instance its open made. */
typedef struct morph__backend_ops {
  const char *name; /* "embedded", "slurm" */

  /* Creates the instance. Errors: MORPH_EINVAL, MORPH_EIO, MORPH_EPARSE
   * (bad configuration; message naming file/line/field in err),
   * MORPH_ENOMEM. On error *out is NULL. After a successful open the
   * backend reports every node that is not UP with a NODE event. */
  int (*open)(const morph__backend_conf *conf, morph__backend **out, char *err,
              size_t errsize);
  /* Frees the instance; jobs keep running. */
  void (*close)(morph__backend *b);

  /* Reads the current node and allocation snapshot. Errors: MORPH_EIO
   * (the resource manager cannot be read now; *v is empty). */
  int (*read)(morph__backend *b, morph__backend_view *v);

  /* Books job->alloc and starts the job's processes on it at job->size
   * (morphd has set both, and journaled the start). The same start asked
   * again (morphd restarted before it journaled the pid) runs once: if
   * its processes started already they are taken on and job->adopted is
   * set. Errors: MORPH_EBUSY (a piece is taken; nothing done),
   * MORPH_ENOSYS (the resource manager starts jobs itself), MORPH_ESPAWN
   * or MORPH_EIO (the processes could not be started; nothing stays
   * booked). On success job->pid is set when known. */
  int (*start)(morph__backend *b, morph__job *job);

  /* A job its resource manager started asks to be morphd's: its `morph
   * run` said HELLO with the resource manager's job id, which morphd put
   * in job->id, with job->size (processes) and the limits. The backend
   * checks that the job runs and can be resized, fills job->alloc (its
   * nodes, the master's first, in the order of its ranks), job->ppu and
   * what it knows of the job (name, submit and start times, cwd, outputs,
   * argv), books it and watches it. Errors: MORPH_ENOENT (no such running
   * job), MORPH_EINVAL (it cannot be morphd's: why in err), MORPH_EIO,
   * MORPH_ENOMEM, MORPH_ENOSYS (the backend starts its jobs itself);
   * nothing booked then. */
  int (*claim)(morph__backend *b, morph__job *job, char *err, size_t errsize);

  /* Books pieces for a job that does not run on them yet (a START that
   * waits for a shrink takes what is free now), all or nothing.
   * Errors: MORPH_EBUSY, MORPH_EINVAL (a bad piece), MORPH_ENOSYS; nothing
   * booked then. */
  int (*hold)(morph__backend *b, const morph__job *job, const morph__alloc *pieces);

  /* Asks that pieces be added to a running job's allocation. MORPH_OK: a
   * GROWN event follows; until then morphd counts the pieces as the job's.
   * Errors (no event, nothing booked): MORPH_EBUSY (taken now),
   * MORPH_ESTATE (the resource manager is ending the job), MORPH_EINVAL
   * (also: a piece below the job's first node where the view says
   * grow_above_master), MORPH_ENOSYS. */
  int (*grow)(morph__backend *b, const morph__job *job, int req, const morph__alloc *pieces);

  /* Asks that pieces the job holds go back once the processes on them are
   * gone (morphd calls it after the job said its leavers exited; the
   * backend may check again where they ran). MORPH_OK: a RELEASED event
   * follows. Errors (no event, the pieces stay the job's): MORPH_EINVAL
   * (the job does not hold them), MORPH_ENOSYS. */
  int (*release)(morph__backend *b, const morph__job *job, int req,
                 const morph__alloc *pieces);

  /* The job holds nothing from now on: everything the backend has booked
   * for it goes back (its processes have ended, or it never started) and
   * its requests in flight are forgotten. Never fails. */
  void (*drop)(morph__backend *b, const morph__job *job);

  /* Asks the job's processes to end (morph run stops mpirun and says BYE);
   * its pieces stay booked until drop. Errors: MORPH_ESTATE (no process of
   * it is known), MORPH_ENOSYS. */
  int (*stop)(morph__backend *b, const morph__job *job);

  /* After morphd restarted: the job (RUNNING or STARTING in the journal)
   * holds job->alloc and job->extra; book them and watch its processes
   * (job->pid, when > 0). Errors: MORPH_EINVAL (the backend has no such
   * pieces, e.g. a smaller pool; message in err, nothing booked). */
  int (*adopt)(morph__backend *b, morph__job *job, char *err, size_t errsize);

  /* The job's processes said BYE with a signal's status: did the resource
   * manager end the job (time limit, scancel, node failure), which would
   * have signalled them? If so, says how in its own words in text ("Slurm:
   * job TIMEOUT") and sets *cancelled when it was a cancel, so that the
   * record names the cause whichever of the BYE and the resource manager's
   * own end is heard first. Errors: MORPH_ENOENT (not ended by it, as far as
   * it knows), MORPH_EIO (it cannot be asked now), MORPH_ENOSYS. */
  int (*ended_by)(morph__backend *b, const morph__job *job, char *text, size_t size,
                  int *cancelled);

  /* Fills *ev with the next event and returns 1, or returns 0 when there
   * is none now. Never blocks. */
  int (*next)(morph__backend *b, morph__backend_event *ev);
} morph__backend_ops;

/* Every instance starts with this; a backend's own state follows it. */
struct morph__backend {
  const morph__backend_ops *ops;
};

/* The backends built in (backend.c). */
extern const morph__backend_ops morph__embedded_ops;
extern const morph__backend_ops morph__slurm_ops; /* when libslurm was found */

/* Opens the backend called `name`. Errors: MORPH_EINVAL (unknown name:
 * err lists the names), MORPH_ENOSYS (known but not built yet: err says
 * so), or the backend's own open errors. On error *out is NULL. */
int morph__backend_open(const char *name, const morph__backend_conf *conf, morph__backend **out,
                        char *err, size_t errsize);
/* "embedded, slurm" (truncated to size, NUL-terminated). */
void morph__backend_names(char *buf, size_t size);

/* The ops, called through the instance, contracts as documented on
 * morph__backend_ops. A NULL op answers MORPH_ENOSYS; a NULL next has no
 * events, a NULL drop or adopt has nothing to do. */
const char *morph__backend_name(const morph__backend *b);
void morph__backend_close(morph__backend *b);
int morph__backend_read(morph__backend *b, morph__backend_view *v);
int morph__backend_start(morph__backend *b, morph__job *job);
int morph__backend_claim(morph__backend *b, morph__job *job, char *err, size_t errsize);
/* True if the backend starts morphd's jobs (it has a start op); false
 * where its resource manager starts them and morphd claims them. */
int morph__backend_starts_jobs(const morph__backend *b);
int morph__backend_hold(morph__backend *b, const morph__job *job, const morph__alloc *pieces);
int morph__backend_grow(morph__backend *b, const morph__job *job, int req,
                        const morph__alloc *pieces);
int morph__backend_release(morph__backend *b, const morph__job *job, int req,
                           const morph__alloc *pieces);
void morph__backend_drop(morph__backend *b, const morph__job *job);
int morph__backend_stop(morph__backend *b, const morph__job *job);
int morph__backend_adopt(morph__backend *b, morph__job *job, char *err, size_t errsize);
int morph__backend_ended_by(morph__backend *b, const morph__job *job, char *text, size_t size,
                            int *cancelled);
int morph__backend_next(morph__backend *b, morph__backend_event *ev);

/* Total size units the view has (slots, or nodes), all states. */
int morph__backend_view_units(const morph__backend_view *v);

#endif
