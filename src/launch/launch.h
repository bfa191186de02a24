/*
 * The state of one `morph run` and the functions of its parts. One
 * struct morph__launch is passed to every function; there is no other state
 * except the signal flag (signals.c).
 *
 * A run goes through phases. Normally the job RUNs; a relaunch ACK moves it
 * to RELAUNCH_EXIT (the old mpirun ends), then RESTART (mpirun at the new
 * size, waiting for HELLO) and, if that fails, ROLLBACK (mpirun at the old
 * size from the same checkpoint). ENDING: the job said BYE or its
 * connection dropped, mpirun must end. DONE: mpirun ended for good.
 */
#ifndef MORPH_LAUNCH_LAUNCH_H
#define MORPH_LAUNCH_LAUNCH_H

#include <limits.h>
#include <stdio.h>
#include <sys/types.h>

#include "common/log.h"
#include "opts.h"
#include "proto/protocol.h"

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
  double sent;       /* run clock */
  double acked;      /* when the ACK arrived (0: not yet) */
  morph__msg ack;    /* the job's ACK, completed by settle/relaunch */
};

/* The upstream connection to morphd and what still has to reach it. */
struct morph__launch_relay {
  morph__conn conn;      /* fd -1: not connected */
  double next_try;       /* run clock of the next connection attempt */
  int lost_logged;
  morph__msg backlog[16];/* ACKs and BYE waiting for a connection */
  int n_backlog;
  morph__msg queue[16];  /* RESIZEs from morphd not yet sent to the job */
  int n_queue;
};

/* The crash monitor (monitor.c): the application's processes as last seen
 * in /proc, and how long there have been fewer than the job needs. */
struct morph__launch_monitor {
  pid_t *pids;          /* application processes at the last look */
  int n, cap;
  int count;            /* how many; -1: not looked yet or /proc unreadable */
  pid_t last_gone;      /* the last one seen to disappear (0: none) */
  double next_look;     /* run clock */
  double short_since;   /* run clock since when too few are left; 0: not */
  int crashed;          /* confirmed: one died outside a reconfiguration */
  int all_gone;         /* ENDING / RELAUNCH_EXIT: none is left */
};

struct morph__launch {
  struct morph__launch_opts *opt;
  morph__sayer log;          /* "morph run: ...", -v level 1, -vv level 2 */
  double t0;                 /* morph__now() at start */
  char dir[PATH_MAX];        /* private temporary folder */
  char sock[PATH_MAX];       /* the socket the job connects to */
  char app_exe[PATH_MAX];    /* resolved program, to count its processes */
  int listen_fd;
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
  int next_sched;            /* index of the next schedule entry */
  int next_id;
  int seq;                   /* completed reconfigurations */
  int n_ok, n_failed;
  struct morph__launch_relay relay;
  FILE *report;
  struct morph__launch_monitor mon;
  int exit_code;             /* what morph run exits with */
};

/* launch.c: the lifecycle. morph__launch_init sets *r up for the options *o
 * (kept, and completed: flavour, job id) and starts mpirun; whatever it
 * returns, morph__launch_fini must follow, and returns the exit status.
 * Errors: what the socket, the report or mpirun's start returned; the
 * exit status is then 125. */
int morph__launch_init(struct morph__launch *r, struct morph__launch_opts *o);
int morph__launch_fini(struct morph__launch *r);

/* Seconds since the run started. */
double morph__launch_clock(const struct morph__launch *r);

/* server.c: the socket the job connects to. */
int morph__launch_server_open(struct morph__launch *r);
void morph__launch_server_close(struct morph__launch *r);
void morph__launch_server_accept(struct morph__launch *r);
void morph__launch_server_read(struct morph__launch *r);
int morph__launch_job_send(struct morph__launch *r, const morph__msg *m);
void morph__launch_job_drop(struct morph__launch *r, const char *why);

/* dispatch.c: sends the next decision (morphd's first, then the schedule). */
void morph__launch_dispatch_tick(struct morph__launch *r);
void morph__launch_dispatch_lost(struct morph__launch *r, const char *why);

/* resize.c: from the job's ACK to a complete reconfiguration. */
void morph__launch_resize_ack(struct morph__launch *r, const morph__msg *ack);
void morph__launch_resize_settle_tick(struct morph__launch *r);
void morph__launch_resize_done(struct morph__launch *r, int outcome, int new_size,
                               const char *note);
/* The job ended or was stopped with a decision active: complete it as well
 * as can be said (never acknowledged: MORPH_ECONN). */
void morph__launch_resize_abandon(struct morph__launch *r, const char *why);

/* relaunch.c: the relaunch phases. */
int morph__launch_start_job(struct morph__launch *r, int np, const char *checkpoint);
int morph__launch_stop_mpirun(struct morph__launch *r);
void morph__launch_relaunch_begin(struct morph__launch *r);
void morph__launch_relaunch_exited(struct morph__launch *r);
void morph__launch_relaunch_hello(struct morph__launch *r);
void morph__launch_relaunch_tick(struct morph__launch *r);
void morph__launch_checkpoints_remove(struct morph__launch *r);

/* relay.c: the upstream connection to morphd. */
void morph__launch_relay_init(struct morph__launch *r);
void morph__launch_relay_tick(struct morph__launch *r);
void morph__launch_relay_read(struct morph__launch *r);
void morph__launch_relay_send(struct morph__launch *r, const morph__msg *m, int keep);
void morph__launch_relay_bye(struct morph__launch *r);
void morph__launch_relay_close(struct morph__launch *r);
int morph__launch_relay_pop(struct morph__launch *r, morph__msg *resize);

/* report.c: CSV and the human line of each reconfiguration. */
int morph__launch_report_open(struct morph__launch *r);
void morph__launch_report_resize(struct morph__launch *r, const morph__msg *ack, double t_settle);
void morph__launch_report_close(struct morph__launch *r);

/* monitor.c: watches the application's processes. A process that
 * disappears while no reconfiguration can explain it means the job is
 * broken (mpirun runs with --enable-recovery and would not stop it): the
 * tick sets mon.crashed. Once the job has ended (BYE, dropped connection,
 * relaunch checkpoint) and none of its processes is left, it shortens the
 * phase's time limit to END_GRACE seconds, because mpirun may never end
 * by itself (after a failed spawn). */
void morph__launch_monitor_tick(struct morph__launch *r);
/* A new mpirun starts: forget what the previous one's processes did. */
void morph__launch_monitor_reset(struct morph__launch *r);
void morph__launch_monitor_free(struct morph__launch *r);

/* loop.c: the event loop until mpirun has ended for good. */
void morph__launch_run(struct morph__launch *r);

/* signals.c */
void morph__launch_signals_install(void);
int morph__launch_signal_pending(void);

#endif
