/*
 * morphd: one context struct passed to every function (there is no global
 * state except the stop-signal flag of common/signals.c), one file per
 * concern. Control flows one way, each file calling only those below it:
 *
 *   daemon.c      the poll() loop, shutdown                  (setup.c: start)
 *   conn.c        client connections: accept, read lines, kinds
 *   relay_srv.c   the job protocol (morph run --server): HELLO ... BYE
 *   cli_srv.c     the command protocol of `morph submit|status|cancel|...`
 *   status_srv.c  the reply to `morph status`
 *   events.c      what the backend reports: grown, released, ended, node
 *   sched.c       the policy adapter: snapshot, decide, carry out actions
 *   health.c      node monitoring: heartbeats (beat.c), outage estimates
 *   end.c         jobs that end: BYE, exit, cancel, a node lost
 *   resize.c      expand / shrink: backend requests, RESIZE, ACK
 *   lifecycle.c   the job table, starting a job, recording its end, books
 *   wire.c        writing to and closing client connections
 *   backend.c     the backend seam (backend.h): embedded.c, later slurm.c
 *   journal*.c    the SQLite journal
 */
#ifndef MORPH_RMS_MORPHD_H
#define MORPH_RMS_MORPHD_H

#include <jansson.h>
#include <limits.h>
#include <stdint.h>

#include "common/clock.h"
#include "common/log.h"
#include "morph/place.h"
#include "morph/policy.h"
#include "rms/backend.h"
#include "rms/beat.h"
#include "rms/job.h"
#include "rms/journal.h"
#include "proto/protocol.h"

#define MORPH__MAX_CLIENTS 128
#define MORPH__PLACE_PARAMS_MAX 8 /* --topology, --faults, --place-param */
#define MORPH__LINE_MAX 65536
/* Longer than the limits the job side puts on each step of a resize
 * (libmorph's 30 s spawn, morph run's 30 s leave and 30 s + 60 s
 * relaunch), so that normally the job side gives up first and answers. */
#define MORPH__RESIZE_TIMEOUT 300.0

typedef enum morph__ctype {
  MORPH__C_FREE = 0, /* slot unused */
  MORPH__C_NEW,      /* connected, first line not seen yet */
  MORPH__C_JOB,      /* a morph run relay (job protocol) */
  MORPH__C_CLI       /* a morph command (JSON requests with "cmd") */
} morph__ctype;

typedef struct morph__client {
  int fd;
  morph__ctype type;
  int64_t job; /* MORPH__C_JOB: the job it speaks for (0: not yet) */
  size_t len;
  char *buf;   /* MORPH__LINE_MAX bytes */
} morph__client;

typedef struct morph__daemon_opts {
  const char *dir;      /* state folder: socket, journal, job outputs */
  const char *socket;   /* NULL: <dir>/morphd.sock */
  const char *journal;  /* NULL: <dir>/journal.db */
  const char *backend;  /* "embedded" (NULL: the same) */
  const char *hostfile; /* embedded: NULL: this machine with `slots` slots */
  int slots;
  const char *policy;   /* policy engine name */
  morph_policy_params params;
  const char *placement; /* placement strategy name (morph/place.h) */
  morph_place_param place_params[MORPH__PLACE_PARAMS_MAX]; /* topology=FILE, ... */
  int nplace_params;
  double interval;      /* seconds between periodic decisions */
  double resize_timeout; /* seconds a job has to answer a RESIZE (<= 0:
                            MORPH__RESIZE_TIMEOUT) */
  const char *launcher; /* morph-run; NULL: next to morph-daemon */
  const char *checkpoint_dir; /* embedded: a folder every node sees, given
                                 to each job's morph run (--checkpoint-dir),
                                 whose HELLO then lets a move off a failing
                                 node be a relaunch; NULL: none */
  double heartbeat;     /* seconds between heartbeat rounds; 0: no node monitoring */
  int heartbeat_port;   /* 0: 22 */
  int heartbeat_window; /* heartbeats the estimate looks at; 0: MORPH__BEAT_WINDOW_DEFAULT */
  int verbose;
} morph__daemon_opts;

typedef struct morph__daemon {
  morph__daemon_opts opt;
  morph__sayer log;     /* "morphd HH:MM:SS: ...", -v for level 1 */
  char sock[108], jpath[PATH_MAX], outdir[PATH_MAX];
  morph__backend *be;   /* every resource action goes through it */
  morph__journal *journal;
  morph_policy *policy;
  morph_place *place;
  morph_policy_actions acts;
  morph__job **jobs; /* by ascending id */
  int njobs, capjobs;
  int64_t next_job;
  int next_resize;
  int listen_fd;
  morph__client clients[MORPH__MAX_CLIENTS];
  int dirty;          /* something changed: decide soon */
  double next_decide; /* morph__wall() of the next periodic decision */
  int stop;           /* leave the loop */
  int decisions;      /* decisions taken, for status */
  char failed_why[512]; /* why the last decision failed; "": it did not */
  morph__beat beat;   /* health.c: heartbeats (no nodes: off) */
  unsigned char *beat_failing; /* per node: failing for the placement, as last said */
  int beat_unused;    /* said that the placement ignores the estimates */
  char errmsg[512];
} morph__daemon;


/* setup.c: folders, backend, policy, journal (the jobs it holds are
 * adopted by the backend), socket. Errors: the failing step's, with
 * d->errmsg. */
int morph__daemon_init(morph__daemon *d, const morph__daemon_opts *opt);

/* daemon.c */
int morph__daemon_run(morph__daemon *d);
void morph__daemon_fini(morph__daemon *d);

/* conn.c */
void morph__conn_accept(morph__daemon *d);
void morph__conn_read(morph__daemon *d, int i);
/* Closes client i and tells the job protocol if it was a relay. */
void morph__conn_drop(morph__daemon *d, int i);

/* wire.c: one message or one JSON reply (reference stolen) to client i;
 * closing a client without telling anyone. Errors: MORPH_ECONN (the peer
 * is gone or stopped reading), MORPH_ENOMEM. */
int morph__wire_msg(morph__daemon *d, int i, const morph__msg *m);
int morph__wire_json(morph__daemon *d, int i, json_t *reply);
void morph__wire_close(morph__daemon *d, int i);

/* relay_srv.c */
void morph__relay_message(morph__daemon *d, int i, const morph__msg *m);
/* A relay connection closed: the job keeps running. */
void morph__relay_lost(morph__daemon *d, int i);

/* cli_srv.c: answers one request (the reply is sent; returns nothing). */
void morph__cli_request(morph__daemon *d, int i, json_t *req);
/* status_srv.c: the reply to "status" (new reference). */
json_t *morph__cli_status(morph__daemon *d, json_t *req);

/* health.c: heartbeats to the backend's nodes when opt.heartbeat > 0,
 * resumed from the journal. Errors: MORPH_EINVAL (bad settings),
 * MORPH_ENOMEM, the backend's read errors. */
int morph__health_init(morph__daemon *d);
/* Records what the heartbeats answered (journal, placement, a decision
 * when a node starts or stops failing); never waits. */
void morph__health_tick(morph__daemon *d);
void morph__health_fini(morph__daemon *d);

/* events.c: handles every event the backend has now. */
void morph__events_drain(morph__daemon *d);

/* sched.c: a decision of the policy engine, carried out. Returns the
 * engine's error (logged and journaled), or MORPH_OK. */
int morph__sched_decide(morph__daemon *d);
/* The state node i of the backend's view has for the policy: an UP node
 * the placement expects to fail (morph_place_failing) is DRAINING. */
morph_policy_node_state morph__sched_node_state(const morph__daemon *d, const morph__node *n,
                                                int i);

/* end.c */
/* The job's processes are gone: settle a resize in flight, give its
 * pieces back, record how it ended (cancelled, failed with its fault,
 * or by status). Nothing for a job that has ended already. */
void morph__job_end(morph__daemon *d, morph__job *job, int status, const char *text);
/* Errors: MORPH_ESTATE (the job has ended already). */
int morph__job_cancel(morph__daemon *d, morph__job *job);
/* Stops every running job (they end when their processes are gone). */
void morph__jobs_kill_all(morph__daemon *d);
/* A node went down: jobs with processes there are stopped and will end
 * as failed, saying why. */
void morph__jobs_node_down(morph__daemon *d, int node, const char *why);

/* resize.c. expand and shrink return the resize id, or 0 if nothing was
 * started (job busy or not connected, or the backend refused). */
int morph__resize_expand(morph__daemon *d, morph__job *job, int to, const morph__alloc *pieces);
int morph__resize_shrink(morph__daemon *d, morph__job *job, int to, const morph__alloc *pieces);
void morph__resize_ack(morph__daemon *d, morph__job *job, const morph__msg *ack);
void morph__resize_grown(morph__daemon *d, morph__job *job, const morph__backend_event *ev);
void morph__resize_released(morph__daemon *d, morph__job *job, const morph__backend_event *ev);
/* After a restart: what a resize in flight still needs (a grow whose
 * RESIZE was never sent is given back; a release is asked again). */
void morph__resize_resume(morph__daemon *d, morph__job *job);
/* Every RESIZE the job has not answered within opt.resize_timeout is
 * closed as failed (MORPH_ETIMEDOUT): the job keeps its old size, the
 * pieces of a grow go back to the backend, a shrink keeps its slots. */
void morph__resize_expire(morph__daemon *d);
/* The job ended with a resize in flight: close it as failed and put the
 * starts that waited for it back in the queue. */
void morph__resize_abort(morph__daemon *d, morph__job *job, int outcome, const char *why);

/* lifecycle.c */
morph__job *morph__job_find(morph__daemon *d, int64_t id);
int morph__job_add(morph__daemon *d, morph__job *job); /* takes ownership */
void morph__job_save(morph__daemon *d, morph__job *job);
/* Starts a pending job on `pieces` at `size` through the backend.
 * Errors: MORPH_EBUSY (pieces taken) and MORPH_ENOSYS (the backend's
 * resource manager starts jobs): the job stays pending; MORPH_ESPAWN or
 * MORPH_EIO: the job has failed. */
int morph__job_start(morph__daemon *d, morph__job *job, const morph__alloc *pieces, int size);
/* A job its resource manager started (Slurm) said HELLO with that
 * manager's id `id`: it becomes morphd's, RUNNING (the backend's claim
 * fills its nodes). Errors: the backend's claim errors (why in err),
 * MORPH_ENOMEM; no record then. */
int morph__job_claim(morph__daemon *d, int64_t id, const morph__msg *m, char *err,
                     size_t errsize);
/* Writes down that the job is over in `state` (journal, log); its pieces
 * must have been dropped already. */
void morph__job_record_end(morph__daemon *d, morph__job *job, morph__jstate state, int status,
                           const char *text);
/* STARTING jobs that waited for resize rz_id go back to the queue. */
void morph__jobs_requeue(morph__daemon *d, int rz_id, const char *why);
/* Checks that the backend's node counts equal what the jobs hold; logs
 * and journals a violation. Returns MORPH_OK or MORPH_EINVAL. */
int morph__jobs_check_books(morph__daemon *d);

#endif
