/*
 * What a launch is asked to do: the options of `morph run`, filled by its
 * command line (tools/run) or by any other caller. Parsing a command line
 * is not the library's business; defaults, the cross-checks between
 * options and freeing are.
 */
#ifndef MORPH_LAUNCH_OPTS_H
#define MORPH_LAUNCH_OPTS_H

#include <stddef.h>

#include "mpicmd.h"
#include "schedule.h"

struct morph__launch_opts {
  int np;                /* initial number of processes (-n) */
  int min, max, pref;    /* malleability limits (0: not given) */
  int mechanism;         /* MORPH__LAUNCH_MECH_* of decisions; -1: not given */
  /* The launcher command (mpicmd.h): the flavour (AUTO: detected by the
   * launch), --mpirun, --hostfile, --mpi-arg (cmd.args is malloc'ed and
   * owned, its strings are not), --no-recovery and the application. */
  struct morph__launch_mpicmd cmd;
  struct morph__launch_sched sched;
  const char *server;    /* morphd socket for the relay; NULL: none */
  const char *listen;    /* "host:port" the job connects to (TCP, MUNGE),
                            when rank 0 may be on another host; NULL: a
                            private Unix socket */
  const char *job_id;    /* job id; NULL: "run-<pid>", set by the launch */
  const char *checkpoint_dir; /* relaunch checkpoints (MORPH_CHECKPOINT_DIR),
                            a folder every host of the job sees; NULL: the
                            variable as inherited, else the job's default */
  char job_id_buf[64];
  const char *report;    /* CSV of reconfigurations; NULL: none */
  double timeout;        /* whole job; 0: none */
  double start_timeout;  /* a relaunched job must say HELLO within this */
  double leave_timeout;  /* leavers of a live shrink must be gone within */
  double exit_timeout;   /* mpirun must end within this after BYE/drop */
  double grace;          /* between SIGTERM and SIGKILL */
  int verbose;           /* 1: job events; 2: every protocol message */
};

/* Sets every option to its default (docs/run.md): nothing owned yet. */
void morph__launch_opts_init(struct morph__launch_opts *o);

/* Checks the options against each other once all are set: a program, a
 * job id with a server, -n and the schedule within [min, max].
 * Errors: MORPH_EINVAL, err says what is wrong in the words of the
 * command line. *o is not modified. */
int morph__launch_opts_check(const struct morph__launch_opts *o, char *err, size_t errsize);

/* Frees what *o owns (the schedule, the --mpi-arg array); idempotent. */
void morph__launch_opts_free(struct morph__launch_opts *o);

#endif
