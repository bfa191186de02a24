/*
 * The per-job launcher behind `morph run` (docs/run.md): it starts an MPI
 * application with mpirun / mpiexec, is the server its rank 0 connects to
 * (MORPH_SOCKET), sends it the decisions of a schedule or of morphd,
 * carries out relaunches, watches its processes and reports every
 * reconfiguration.
 *
 * struct morph__launch is the context of one launch, passed to every
 * function of the library; there is no other state except the flag of the
 * stopping signals (signals.c). Its lifecycle:
 *
 *   struct morph__launch_opts o;
 *   morph__launch_opts_init(&o);        defaults (opts.h); then set np,
 *   ...                                 app and the rest, and check them
 *   morph__launch_opts_check(&o, err, sizeof err);
 *   struct morph__launch l;
 *   if (morph__launch_init(&l, &o) == MORPH_OK)
 *     morph__launch_run(&l);
 *   int status = morph__launch_fini(&l);
 *   morph__launch_opts_free(&o);
 *
 * init sets the context up and starts mpirun; run is the event loop until
 * mpirun has ended for good; fini follows init whatever init returned,
 * once, and cleans up. The options must outlive the context. A launch
 * owns its process: it sets environment variables inherited by mpirun,
 * installs handlers for SIGINT, SIGTERM and SIGHUP, ignores SIGPIPE and
 * becomes the child subreaper; one launch per process at a time.
 *
 * A launch goes through phases. Normally the job RUNs; a relaunch ACK
 * moves it to RELAUNCH_EXIT (the old mpirun ends), then RESTART (mpirun at
 * the new size, waiting for HELLO) and, if that fails, ROLLBACK (mpirun at
 * the old size from the same checkpoint). ENDING: the job said BYE or its
 * connection dropped, mpirun must end. DONE: mpirun ended for good.
 *
 * The parts, one file each, listed from the bottom up: each calls only
 * parts listed before it, none calls back into the loop or the lifecycle,
 * and there are no callbacks.
 *   schedule.c mpicmd.c opts.c procs.c watch.c child.c signals.c leave.c   no context
 *   state.c      the launch's clock and phase changes
 *   report.c     the CSV and the human line of each reconfiguration
 *   relay.c      the connection to morphd
 *   monitor.c    the crash monitor
 *   decision.c   completing the outstanding decision
 *   mpirun.c     starting and stopping mpirun for the job
 *   relaunch.c   the relaunch phases
 *   resize.c     from the job's ACK to a complete reconfiguration
 *   server.c     the job's socket and what the job sends
 *   dispatch.c   the next decision to the job
 *   loop.c       the event loop (morph__launch_run)
 *   launch.c     init and fini
 */
#ifndef MORPH_LAUNCH_LAUNCH_H
#define MORPH_LAUNCH_LAUNCH_H

#include <limits.h>
#include <stdio.h>
#include <sys/types.h>

#include "common/log.h"
#include "errscan.h"
#include "opts.h"
#include "proto/hosts.h"
#include "proto/listener.h"
#include "proto/protocol.h"
#include "session.h"
#include "watch.h"

enum morph__launch_phase {
  MORPH__LAUNCH_PH_RUNNING,
  MORPH__LAUNCH_PH_RELAUNCH_EXIT,
  MORPH__LAUNCH_PH_RESTART,
  MORPH__LAUNCH_PH_ROLLBACK,
  MORPH__LAUNCH_PH_ENDING,
  MORPH__LAUNCH_PH_DONE
};

/* The decision sent to the job and not yet complete. */
struct morph__launch_decision {
  int active;
  int id;            /* our id, on the job's side of the relay */
  int upstream_id;   /* morphd's id; 0 for a schedule entry */
  int size;          /* requested size */
  int mechanism;
  int64_t iteration; /* at_iteration sent (-1: now) */
  int move;          /* a move (RESIZE with `from`): size unchanged */
  char hosts[512];   /* the RESIZE's hosts (proto/hosts.h; "": none named) */
  double sent;       /* run clock */
  double acked;      /* when the ACK arrived (0: not yet) */
  morph__msg ack;    /* the job's ACK, completed by settle/relaunch */
};

/* The upstream connection to morphd and what still has to reach it. */
struct morph__launch_relay {
  morph__conn conn;      /* fd -1: not connected */
  char secret[72];       /* the job's relay secret: from morphd (the
                            documented variable MORPH_JOB_SECRET at start,
                            or its WELCOME), said in every HELLO */
  double next_try;       /* run clock of the next connection attempt */
  morph__msg backlog[16];/* ACKs and BYE waiting for a connection */
  int n_backlog;
  morph__msg last_ack;   /* the last ACK sent (kind ERROR: none yet): said
                            again after each reconnection, since a morphd
                            killed before it read one lost it */
  morph__msg queue[16];  /* RESIZEs from morphd not yet sent to the job */
  int n_queue;
};

/* The crash monitor (monitor.c): the application's processes as last seen
 * in /proc, or on every host of the job (watch), and how long there have
 * been fewer than the job needs. */
struct morph__launch_monitor {
  pid_t *pids;          /* application processes at the last look (here) */
  int n, cap;
  struct morph__launch_watch watch; /* n > 0: the job runs on other hosts */
  char where[256];      /* with watch: the count per host at the last look */
  int count;            /* how many; -1: not looked yet or /proc unreadable */
  pid_t last_gone;      /* the last one seen to disappear (0: none) */
  double next_look;     /* run clock */
  double short_since;   /* run clock since when too few are left; 0: not */
  int crashed;          /* confirmed: one died outside a reconfiguration */
  char aborted[512];    /* a process called MPI_Abort (errscan.h); "": none */
  int all_gone;         /* ENDING / RELAUNCH_EXIT: none is left */
};

struct morph__launch {
  struct morph__launch_opts *opt;
  morph__sayer log;          /* "morph run: ...", -v level 1, -vv level 2 */
  double t0;                 /* morph__now() at start */
  char dir[PATH_MAX];        /* private temporary folder */
  char sock[PATH_MAX];       /* the socket the job connects to */
  char app_exe[PATH_MAX];    /* resolved program, to count its processes */
  char session[PATH_MAX];    /* base of Open MPI's session folders (session.h) */
  struct morph__launch_shm shm; /* the job families whose segments to remove */
  const char *hostfile_given; /* --hostfile: every host a relaunch may have used */
  morph__listener listener; /* the job connects here (server.c) */
  morph__conn job;           /* fd -1: no job connected */
  int job_hello;             /* the current incarnation said HELLO */
  morph__msg hello;          /* its last HELLO */
  char bye_text[256];        /* text of the job's BYE, if any */
  int job_bye;
  int bye_status;            /* the job's outcome, from its BYE */
  int connected;             /* the current incarnation said HELLO (kept
                                after its connection closes) */
  pid_t mpirun;              /* 0: not running */
  int mpirun_code;           /* exit code once it ended */
  enum morph__launch_phase phase;
  double phase_deadline;     /* run clock; 0: none */
  int size;                  /* current number of processes */
  int restart_size;          /* RESTART: the size being started */
  int rollback_outcome;      /* ROLLBACK: why the restart failed */
  char rollback_note[256];
  char checkpoint[512];      /* RESTART/ROLLBACK: checkpoint in use */
  char old_checkpoints[8][512]; /* to remove at exit */
  int n_old_checkpoints;
  struct morph__launch_decision dec;
  int settling;              /* waiting for the leavers of a live shrink */
  int spawn_failed;          /* a live grow of this mpirun failed */
  /* The next iteration entry of the schedule, sent to the job while dec
   * settles (dispatch.c): the job applies it at its iteration even if the
   * leavers of dec are slow to exit. Its ACK waits here until dec is done. */
  struct morph__launch_decision early;
  int early_acked;
  morph__msg early_ack;
  int next_sched;            /* index of the next schedule entry */
  int next_id;
  int seq;                   /* completed reconfigurations */
  int n_ok, n_failed;
  struct morph__launch_relay relay;
  FILE *report;
  struct morph__launch_monitor mon;
  struct morph__launch_errscan err; /* mpirun's standard error, read (errscan.h) */
  morph__hostlist file_hosts; /* --hostfile's hosts and slots (hosts.h) */
  morph__hostlist placed;     /* where the job's processes run (hosts.h) */
  morph__hostlist left;       /* hosts the job left whole (hosts.h) */
  char hostdir[PATH_MAX];     /* private folder of that hostfile; "": none yet */
  char relaunch_hostfile[PATH_MAX]; /* mpirun's hostfile after a relaunch */
  int exit_code;             /* what morph run exits with */
};

/* Sets *r up for the options *o (kept; completed with the detected MPI and
 * the default job id "run-<pid>"), opens the job's socket and the report,
 * exports the job's variables, connects to morphd (failing that, retries
 * later) and starts mpirun. morph__launch_fini must follow, whatever this
 * returns. Errors: MORPH_EIO (no temporary folder, or the report cannot
 * be written), MORPH_ENOENT (a host of --hostfile has no address), the
 * socket's error (morph__listen), MORPH_ENOMEM or
 * MORPH_ESPAWN (mpirun did not start); the exit status is then 125. */
int morph__launch_init(struct morph__launch *r, struct morph__launch_opts *o);

/* The event loop: polls the job's socket and morphd's connection, and looks
 * at mpirun, the leavers, the schedule, the crash monitor and the time
 * limits, until mpirun has ended for good (phase DONE). */
void morph__launch_run(struct morph__launch *r);

/* Stops what is left of the job, removes leftover checkpoints, tells
 * morphd how the job ended, closes the report and removes the socket.
 * Returns the exit status of the launch (docs/run.md, "Stopping and exit
 * status"). */
int morph__launch_fini(struct morph__launch *r);

#endif
