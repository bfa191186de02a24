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
 *   limit.c       time limits: followed, enforced, the policy's estimates
 *   health.c      node monitoring: heartbeats (beat.c), outage estimates
 *   end.c         jobs that end: BYE, exit, cancel, a node lost
 *   resize.c      expand / shrink: backend requests, RESIZE, ACK
 *   start.c       decisions journal first: batches, undo, starting jobs
 *   lifecycle.c   the job table, recording a job's end, books
 *   wire.c        writing to and closing client connections
 *   backend.c     the backend seam (backend.h): embedded.c, later slurm.c
 *   journal*.c    the SQLite journal
 *   crash.c       the test hook MORPH_TEST_CRASH_AT (docs/testing.md)
 *   loopstat.c    the loop's and decisions' times, a line a minute at -v
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
#include "rms/loopstat.h"
#include "proto/listener.h"
#include "proto/protocol.h"

/* Connections (conn.c): how many at once, how many one user may hold that
 * are not a job's relay, how long a new one may stay silent and a command
 * connection idle, and how much output may wait for a peer that does not
 * read; past any of them the connection is closed, so that no peer can
 * hold the daemon or lock the others out. */
#define MORPH__MAX_CLIENTS 1024
#define MORPH__USER_CONNS 64
#define MORPH__FIRST_LINE_S 10.0
#define MORPH__IDLE_S 60.0
#define MORPH__OUT_MAX (8 << 20)
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
  int64_t job;     /* MORPH__C_JOB: the job it speaks for (0: not yet) */
  uid_t uid;       /* who: the kernel's word on a Unix socket, the MUNGE */
  gid_t gid;       /* credential's over TCP */
  morph__seal seal; /* TCP: every line sealed (proto/seal.h) */
  char peer[64];   /* "unix" or "address:port", for the log */
  double last;     /* morph__now() of its connection or its last line */
  int dead;        /* gone or not reading: closed at the end of the turn */
  size_t len;
  char *buf;       /* MORPH__LINE_MAX bytes */
  size_t olen, ocap;
  char *out;       /* what the peer has not taken yet */
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
  const char *admin_group; /* its members act on every job, like root */
  int verbose;
  const char *crash_at; /* test hook: MORPH_TEST_CRASH_AT, a point of crash.c; NULL: none */
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
  morph__listener listener;
  morph__client clients[MORPH__MAX_CLIENTS];
  gid_t admin_gid;    /* opt.admin_group's gid; (gid_t)-1: none */
  double refusal_said; /* morph__now() when refused connections were last logged */
  long refusals;      /* refused since then */
  int dirty;          /* something changed: decide soon */
  double next_decide; /* morph__wall() of the next periodic decision */
  int stop;           /* leave the loop */
  int decisions;      /* decisions taken, for status */
  morph__loopstat stat; /* loop and decision times, logged at -v */
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
/* Takes every connection the listener has ready (never waits). */
void morph__conn_accept(morph__daemon *d);
void morph__conn_read(morph__daemon *d, int i);
/* Closes connections past their time limits (first line, idle). */
void morph__conn_expire(morph__daemon *d);
/* Closes client i and tells the job protocol if it was a relay. */
void morph__conn_drop(morph__daemon *d, int i);

/* wire.c: one message or one JSON reply (reference stolen) to client i,
 * sealed on TCP, sent as far as the peer takes it now and the rest queued
 * for morph__wire_flush; closing a client without telling anyone.
 * Errors: MORPH_ECONN (the peer is gone, or MORPH__OUT_MAX bytes wait for
 * it: it is closed), MORPH_ENOMEM. */
int morph__wire_msg(morph__daemon *d, int i, const morph__msg *m);
int morph__wire_json(morph__daemon *d, int i, json_t *reply);
/* Sends what waits for client i, as far as the peer takes it (the loop
 * calls it when the socket is writable). Errors: MORPH_ECONN (closed). */
int morph__wire_flush(morph__daemon *d, int i);
void morph__wire_close(morph__daemon *d, int i);

/* access.c: who may do what. Root, morphd's own user and members of
 * opt.admin_group are administrators; every other user acts on the jobs
 * that user submitted. */
int morph__access_admin(const morph__daemon *d, uid_t uid, gid_t gid);
/* True if client i may act on job j (its owner or an administrator). */
int morph__access_job(const morph__daemon *d, int i, const morph__job *j);

/* relay_srv.c */
void morph__relay_message(morph__daemon *d, int i, const morph__msg *m);
/* A relay connection closed: the job keeps running. */
void morph__relay_lost(morph__daemon *d, int i);

/* cli_srv.c: answers one request (the reply is sent; returns nothing). */
void morph__cli_request(morph__daemon *d, int i, json_t *req);
/* status_srv.c: the reply to "status" for client i (new reference): the
 * details of a job (program, name, outputs, note) only to its owner and
 * the administrators. */
json_t *morph__cli_status(morph__daemon *d, int i, json_t *req);

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

/* limit.c: time limits (docs/morphd.md "Time limits"). tick follows
 * every running job's limit (its start, its resizes) and stops those past
 * it (they end failed, "TIMEOUT"; the limit is in the job's journal row);
 * pause marks a resize issued now;
 * estimate is what the policy plans with: a running job's limit from its
 * start, a pending job's at req_min, 0 without one. */
void morph__limits_tick(morph__daemon *d);
void morph__limit_pause(morph__job *job, double now);
double morph__limit_estimate(const morph__job *job);

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

/* resize.c. Each decision is journaled before it is carried out: a
 * _plan function changes the job and writes the resize in flight (in the
 * caller's transaction, committed with morph__journal_commit_first), then
 * _ask or _send carries it out. The plan functions return the resize id,
 * or 0 if nothing was planned (job busy or not connected). */
int morph__resize_expand_plan(morph__daemon *d, morph__job *job, int to,
                              const morph__alloc *pieces);
/* Asks the backend for the planned pieces; a refusal closes the resize as
 * failed, not counted against the job. Returns the backend's answer. */
int morph__resize_expand_ask(morph__daemon *d, morph__job *job);
int morph__resize_shrink_plan(morph__daemon *d, morph__job *job, int to,
                              const morph__alloc *pieces);
/* Sends the planned RESIZE; a job that cannot be told fails the resize
 * (not counted) and the starts waiting for it go back to the queue. */
int morph__resize_shrink_send(morph__daemon *d, morph__job *job);
/* Plan, commit and carry out in one: the resize id, or 0 if nothing was
 * started (job busy or not connected, journal not written, backend
 * refused). */
int morph__resize_expand(morph__daemon *d, morph__job *job, int to, const morph__alloc *pieces);
int morph__resize_shrink(morph__daemon *d, morph__job *job, int to, const morph__alloc *pieces);
void morph__resize_ack(morph__daemon *d, morph__job *job, const morph__msg *ack);
void morph__resize_grown(morph__daemon *d, morph__job *job, const morph__backend_event *ev);
/* The backend freed a shrink's pieces: journaled, then the starts that
 * waited for them are started (journal first; back to the queue if the
 * journal cannot take them). */
void morph__resize_released(morph__daemon *d, morph__job *job, const morph__backend_event *ev);
/* After a restart: what a resize in flight still needs (a grow whose
 * RESIZE was never sent is given back; a release is asked again). Not
 * inside a transaction: the backend is asked after the commit. */
void morph__resize_resume(morph__daemon *d, morph__job *job);
/* Every RESIZE the job has not answered within opt.resize_timeout is
 * closed as failed (MORPH_ETIMEDOUT): the job keeps its old size, the
 * pieces of a grow go back to the backend, a shrink keeps its slots. */
void morph__resize_expire(morph__daemon *d);
/* The job ended with a resize in flight: close it as failed and put the
 * starts that waited for it back in the queue. */
void morph__resize_abort(morph__daemon *d, morph__job *job, int outcome, const char *why);

/* start.c: decisions carried out journal first. A batch notes each job's
 * state before a decision changes it; the changes are written in one
 * transaction, committed first, and undone if the journal does not take
 * them, so nothing is started, sent or asked of the backend that the
 * journal does not hold. */
typedef enum morph__act {
  MORPH__ACT_NONE = 0, /* journaled only (a start that waits for a shrink) */
  MORPH__ACT_START,
  MORPH__ACT_EXPAND,
  MORPH__ACT_SHRINK
} morph__act;

typedef struct morph__step {
  morph__job *job;
  morph__act act;
  int rz;             /* START: its start record; EXPAND, SHRINK: the resize */
  morph__job_mark mark;
} morph__step;

typedef struct morph__batch {
  morph__step *v;
  int n, cap;
} morph__batch;

/* Notes the job's state before a decision changes it: a new step (valid
 * until the next call), or NULL when out of memory (decide nothing then). */
morph__step *morph__batch_add(morph__batch *b, morph__job *job);
/* Commits the open transaction first (morph__journal_commit_first); if
 * the journal does not take it, every job of the batch is put back as
 * noted (pieces held ahead go back to the backend) and the error is
 * returned. */
int morph__batch_commit(morph__daemon *d, morph__batch *b);
/* Starts the batch's START steps (after its commit) and commits their
 * pids. `who` names the crash points ("start", "waiter"). */
void morph__batch_start(morph__daemon *d, morph__batch *b, const char *who);
void morph__batch_free(morph__batch *b);
/* The job becomes RUNNING at `size` on `pieces`, journaled (start
 * record, size, event, row) in the caller's transaction; nothing runs
 * yet. Returns the start record's id, or MORPH_ENOMEM (job unchanged). */
int morph__start_plan(morph__daemon *d, morph__job *job, const morph__alloc *pieces, int size);
/* Starts the planned job through the backend (which, after a restart,
 * may find the job's morph run started already and take it on) and
 * writes its pid. `rz`: its start record (0: none), closed as failed if
 * it does not start. Errors: MORPH_EBUSY, MORPH_ENOMEM (the job is back
 * in the queue), MORPH_ESPAWN, MORPH_EIO (it has failed). */
int morph__start_act(morph__daemon *d, morph__job *job, int rz, const char *who);
/* Starts a pending job on `pieces` at `size`: journaled and committed
 * first, then started. Errors: MORPH_ENOSYS (the backend's resource
 * manager starts jobs) and the journal's MORPH_EIO: the job stays pending,
 * nothing recorded; then morph__start_act's. */
int morph__job_start(morph__daemon *d, morph__job *job, const morph__alloc *pieces, int size);

/* crash.c: kills morphd (SIGKILL) if opt.crash_at is "<who>-<step>". */
void morph__crash_point(const morph__daemon *d, const char *who, const char *step);
/* 1 if `point` is a crash point; the names, space-separated, into buf. */
int morph__crash_known(const char *point);
void morph__crash_names(char *buf, size_t size);

/* lifecycle.c */
morph__job *morph__job_find(morph__daemon *d, int64_t id);
int morph__job_add(morph__daemon *d, morph__job *job); /* takes ownership */
void morph__job_save(morph__daemon *d, morph__job *job);
/* Takes the job out of the table and frees it: a submission the journal
 * did not take. */
void morph__job_forget(morph__daemon *d, morph__job *job);
/* Writes the record of a start (op start, done at `now`) and returns its id. */
int morph__job_journal_start(morph__daemon *d, const morph__job *job, double now);
/* A job its resource manager started (Slurm) said HELLO with that
 * manager's id `id` over a connection of user `uid`: it becomes morphd's,
 * RUNNING, with a new relay secret (the backend's claim fills its nodes
 * and its owner). Errors: the backend's claim errors (why in err),
 * MORPH_EPERM (the job is not uid's), MORPH_EIO (no secret),
 * MORPH_ENOMEM; no record then. */
int morph__job_claim(morph__daemon *d, int64_t id, const morph__msg *m, uid_t uid, char *err,
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
