/*
 * The MPI launcher command line: which MPI the application uses, and the
 * mpirun / mpiexec arguments that make a job malleable under it. A unit of
 * its own, with no launch context: whoever starts a malleable job (morph
 * run, a resource manager's backend) builds its command here from a
 * struct morph__launch_mpicmd.
 */
#ifndef MORPH_LAUNCH_MPICMD_H
#define MORPH_LAUNCH_MPICMD_H

#include <stddef.h>

enum morph__launch_mpi {
  MORPH__LAUNCH_MPI_AUTO,
  MORPH__LAUNCH_MPI_OPENMPI,
  MORPH__LAUNCH_MPI_MPICH
};

/* What the launcher command is made of, besides the number of processes.
 * Nothing is copied: the strings and arrays stay the caller's. */
struct morph__launch_mpicmd {
  enum morph__launch_mpi mpi; /* flavour; AUTO only until detected */
  const char *mpirun;         /* launcher program; NULL: the flavour's default */
  const char *hostfile;       /* NULL: none */
  const char *rankfile;       /* Open MPI: rank -> host and slot, the placement's order
                                 ("rank R=HOST slot=S" lines); NULL: none */
  const char **args;          /* extra launcher arguments (--mpi-arg) */
  int n_args;
  int no_recovery; /* Open MPI without --enable-recovery */
  char **app;      /* application and its arguments, NULL-terminated */
  char **env;      /* NAME=VALUE the job's processes get (morph__launch_mpi_unwrap_env) */
  int n_env;
  const char *session_base; /* Open MPI: orte_tmpdir_base of the job on every host
                               (launch/session.h); NULL: Open MPI's default */
};

/* A growable, NULL-terminated argument vector owning its strings. */
struct morph__launch_argv {
  char **v;
  int n, cap;
};

/* Flavour from its name (auto, openmpi, mpich); -1 if unknown. */
int morph__launch_mpi_parse(const char *name);
const char *morph__launch_mpi_name(enum morph__launch_mpi mpi);

/* A program started through `env NAME=VALUE... PROG ARGS` (a wrapper
 * the job's later processes would not get: joiners are spawned as PROG):
 * c->app becomes PROG ARGS, c->env the assignments, which are set in our
 * environment and given to every process of the job (Open MPI: -x NAME;
 * MPICH passes the whole environment). Anything else, including env with
 * options or without a program, is left as it is. Returns how many
 * assignments were taken. */
int morph__launch_mpi_unwrap_env(struct morph__launch_mpicmd *c);

/* Finds prog like execvp would; 0 and the path in out, or -1. */
int morph__launch_which(const char *prog, char *out, size_t size);

/* Guesses the MPI of an application: the ".ompi" / ".mpich" suffix our
 * build gives binaries, else the libmpi that ldd shows, else the first
 * launcher installed. `why` says how it was decided. */
enum morph__launch_mpi morph__launch_mpi_detect(const char *app, char *why, size_t whysize);

/* Exports the variables the launcher itself needs (Open MPI as root). */
void morph__launch_mpi_prepare_env(enum morph__launch_mpi mpi);

/* True if the launcher keeps the job running when one of its processes is
 * lost (Open MPI with --enable-recovery, unless no_recovery): morph run
 * must then stop a broken job itself. MPICH's hydra and Open MPI without
 * recovery end the whole job on their own. */
int morph__launch_mpi_recovers(const struct morph__launch_mpicmd *c);

/* Builds the launcher command for `np` processes into *out: launcher,
 * its options, every MORPH_* variable of the environment exported to the
 * ranks, then c->args, "-n np", the application and its arguments.
 * Decide c->mpi first (AUTO falls back to plain `mpirun` with Open MPI's
 * options). MPICH gets the hostfile (Open MPI's "host slots=n" or hydra's
 * "host:n" lines) as hydra's -hosts list. Errors: MORPH_EINVAL (a rankfile
 * with MPICH, whose hydra has none: give it an ordered hostfile; or, with
 * MPICH, a hostfile naming no host), MORPH_EIO (MPICH: the hostfile cannot
 * be read), MORPH_ENOMEM; *out is freed on every error. */
int morph__launch_mpi_command(const struct morph__launch_mpicmd *c, int np,
                              struct morph__launch_argv *out);

/* The base of the job's Open MPI session folders that the command sets:
 * c->session_base with Open MPI, unless the user chose one (an
 * OMPI_MCA_*tmpdir_base variable, or an argument naming tmpdir_base);
 * else NULL (Open MPI's own default, or MPICH, which has none). */
const char *morph__launch_mpi_session_base(const struct morph__launch_mpicmd *c);

/* Appends a copy of s. Errors: MORPH_ENOMEM. */
int morph__launch_argv_push(struct morph__launch_argv *a, const char *s);
void morph__launch_argv_free(struct morph__launch_argv *a);

/* The hostfile at path (Open MPI's "host slots=n" or hydra's "host:n"
 * lines) as a host list, "node1:2,node2" (proto/hosts.h: a host without a
 * count is one process), in *out (malloc'ed). MPICH gets it as hydra's
 * -hosts; morph run keeps it for a relaunch's placement (hosts.h).
 * Errors: MORPH_EIO (cannot be read), MORPH_EINVAL (a bad line, or no
 * host), MORPH_ENOMEM; *out is NULL then. */
int morph__launch_hostfile_list(const char *path, char **out);

#endif
