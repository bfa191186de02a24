/*
 * morphd, the daemon of the embedded backend: one context struct passed to
 * every function (there is no global state except the documented signal
 * flag in daemon.c), one file per concern:
 *
 *   setup.c       folders, pool, policy, journal, socket
 *   daemon.c      the poll() loop, shutdown
 *   conn.c        client connections: accept, lines in and out, kinds
 *   relay_srv.c   the job protocol (morph run --server): HELLO ... BYE
 *   cli_srv.c     the command protocol of `morph submit|status|cancel|...`
 *   status_srv.c  the reply to `morph status`
 *   lifecycle.c   jobs: add, end, cancel, reap children, orphans, invariant
 *   launch.c      starting a job's morph-run with the slots it got
 *   sched.c       the policy adapter: snapshot, decide, carry out actions
 *   resize.c      expand / shrink over the relay and their ACKs
 *   journal*.c    the SQLite journal; pool.c, alloc.c the slots
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
#include "rms/job.h"
#include "rms/journal.h"
#include "rms/pool.h"
#include "proto/protocol.h"

#define MORPH__MAX_CLIENTS 128
#define MORPH__LINE_MAX 65536

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
  const char *hostfile; /* NULL: this machine with `slots` slots */
  int slots;
  const char *policy;   /* policy engine name */
  morph_policy_params params;
  const char *placement; /* placement strategy name (morph/place.h) */
  double interval;      /* seconds between periodic decisions */
  const char *launcher; /* morph-run; NULL: next to morph-daemon */
  int verbose;
} morph__daemon_opts;

typedef struct morph__daemon {
  morph__daemon_opts opt;
  morph__sayer log;     /* "morphd HH:MM:SS: ...", -v for level 1 */
  char sock[108], jpath[PATH_MAX], launcher[PATH_MAX], outdir[PATH_MAX];
  morph__pool pool;
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
  double next_check;  /* of the next look at reattached jobs */
  int stop;           /* leave the loop */
  int decisions;      /* decisions taken, for status */
  char errmsg[512];
} morph__daemon;


/* daemon.c */
int morph__daemon_init(morph__daemon *d, const morph__daemon_opts *opt);
/* Reads the journal's jobs into the daemon and rebooks their slots. */
int morph__daemon_load(morph__daemon *d);
int morph__daemon_run(morph__daemon *d);
void morph__daemon_fini(morph__daemon *d);
/* Signal flag setup (SIGINT, SIGTERM stop the loop; jobs keep running). */
void morph__daemon_signals(void);

/* conn.c */
void morph__conn_accept(morph__daemon *d);
void morph__conn_read(morph__daemon *d, int i);
void morph__conn_drop(morph__daemon *d, int i);
int morph__conn_send_msg(morph__daemon *d, int i, const morph__msg *m);
int morph__conn_send_json(morph__daemon *d, int i, json_t *reply);

/* relay_srv.c */
void morph__relay_message(morph__daemon *d, int i, const morph__msg *m);
/* A relay connection closed: the job keeps running. */
void morph__relay_lost(morph__daemon *d, int i);

/* cli_srv.c: answers one request (the reply is sent; returns nothing). */
void morph__cli_request(morph__daemon *d, int i, json_t *req);
/* status_srv.c: the reply to "status" (new reference). */
json_t *morph__cli_status(morph__daemon *d, json_t *req);

/* lifecycle.c */
morph__job *morph__job_find(morph__daemon *d, int64_t id);
int morph__job_add(morph__daemon *d, morph__job *job); /* takes ownership */
void morph__job_save(morph__daemon *d, morph__job *job);
void morph__job_end(morph__daemon *d, morph__job *job, int status, const char *text);
int morph__job_cancel(morph__daemon *d, morph__job *job);
void morph__jobs_reap(morph__daemon *d);
void morph__jobs_check_orphans(morph__daemon *d);
/* Rebooks the pool from the jobs (after loading the journal). */
int morph__jobs_rebook(morph__daemon *d);
/* Checks that the pool's counts equal the jobs' bookings; logs and
 * journals a violation. Returns MORPH_OK or MORPH_EINVAL. */
int morph__jobs_check_books(morph__daemon *d);
/* Stops every running job (SIGTERM to its morph run). */
void morph__jobs_kill_all(morph__daemon *d);

/* launch.c: starts morph-run for a job that holds its slots in job->alloc.
 * Errors: MORPH_ESPAWN (fork failed; job unchanged), MORPH_EIO. */
int morph__job_launch(morph__daemon *d, morph__job *job);

/* sched.c */
int morph__sched_decide(morph__daemon *d);
/* Books `pieces` and starts the job on them at `size`. Errors: MORPH_EBUSY
 * (slots taken; job unchanged), MORPH_ESPAWN (the job has failed). */
int morph__sched_start(morph__daemon *d, morph__job *job, const morph__alloc *pieces, int size);

/* resize.c */
int morph__resize_send(morph__daemon *d, morph__job *job, morph__rop op, int to,
                       const morph__alloc *pieces, int depends);
void morph__resize_ack(morph__daemon *d, morph__job *job, const morph__msg *ack);
/* The job ended or was lost with a resize in flight: resolve it as failed. */
void morph__resize_abort(morph__daemon *d, morph__job *job, int outcome, const char *why);
/* A START that waited for a shrink: carry it out or put the job back. */
void morph__resize_release_waiters(morph__daemon *d, int rz_id, int shrink_ok);

#endif
