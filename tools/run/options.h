/* Command-line options of `morph run`. */
#ifndef MORPH_RUN_OPTIONS_H
#define MORPH_RUN_OPTIONS_H

#include "mpicmd.h"
#include "schedule.h"

struct morph__run_opts {
  int np;                /* initial number of processes (-n) */
  int min, max, pref;    /* malleability limits (0: not given) */
  int mechanism;         /* MORPH__RUN_MECH_* of decisions; -1: not given */
  enum morph__mpi mpi;   /* chosen or detected flavour */
  const char *hostfile;  /* NULL: none */
  const char *mpirun;    /* launcher program; NULL: the flavour's default */
  const char **mpi_args; /* extra launcher arguments (--mpi-arg) */
  int n_mpi_args;
  struct morph__sched sched;
  const char *server;    /* morphd socket for the relay; NULL: none */
  const char *job_id;    /* job id (default "run-<pid>") */
  char job_id_buf[64];
  const char *report;    /* CSV of reconfigurations; NULL: none */
  double timeout;        /* whole job; 0: none */
  double start_timeout;  /* a relaunched job must say HELLO within this */
  double leave_timeout;  /* leavers of a live shrink must be gone within */
  double exit_timeout;   /* mpirun must end within this after BYE/drop */
  double grace;          /* between SIGTERM and SIGKILL */
  int no_recovery;       /* Open MPI without --enable-recovery */
  int verbose;
  char **app;            /* application and its arguments, NULL-terminated */
};

/* Parses argv into *o. Returns -1 to go on, or the exit status to leave with
 * (0 after --help, 2 after a usage error, already reported on stderr). */
int morph__opts_parse(struct morph__run_opts *o, int argc, char **argv);

/* Frees what parsing allocated. */
void morph__opts_free(struct morph__run_opts *o);

#endif
