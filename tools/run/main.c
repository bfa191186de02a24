/*
 * morph run: the command line of the per-job launcher (src/launch). It
 * starts an MPI application with mpirun / mpiexec, is the server its rank 0
 * connects to (MORPH_SOCKET), sends it the decisions of a schedule or of
 * morphd, carries out relaunches and reports every reconfiguration. See
 * docs/run.md and docs/protocol.md.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "launch/launch.h"
#include "morph/error.h"

static const char usage_text[] =
  "usage: morph run [options] -n N [--] program [arguments...]\n"
  "\n"
  "Starts an MPI program with mpirun/mpiexec, serves its malleability\n"
  "requests (MORPH_SOCKET) and carries out its relaunches.\n"
  "\n"
  "  -n, --np N              initial number of processes (required)\n"
  "      --min N --max N --pref N\n"
  "                          malleability limits, passed to the job as MORPH_MIN,\n"
  "                          MORPH_MAX, MORPH_PREF; their defaults are those variables\n"
  "                          (set by sbatch --morph=min:max:pref), the options override\n"
  "      --mechanism M       auto | live | relaunch (MORPH_MECHANISM; default auto)\n"
  "      --schedule LIST     resizes, e.g. \"4@it100,2@it300,3@t5.5,2@it400:relaunch\";\n"
  "                          with hosts: \"4@it100 onto node3\", \"2@it300 off node3\",\n"
  "                          \"move@it50 off node1 onto node3\" (docs/run.md)\n"
  "      --schedule-file F   the same, one or more entries per line, # comments\n"
  "      --mpi FLAVOUR       openmpi | mpich | auto (default: from the program)\n"
  "      --mpirun PROG       launcher (default mpirun.openmpi / mpiexec.mpich)\n"
  "      --mpi-arg ARG       extra launcher argument (repeatable)\n"
  "      --hostfile FILE     hosts for the launcher (else --oversubscribe on this host)\n"
  "      --rankfile FILE     Open MPI: each rank's host and slot, the placement's order\n"
  "      --server PATH       relay to morphd's socket (with --job-id)\n"
  "      --listen HOST:PORT  the job reaches morph run over TCP (MUNGE) here, for\n"
  "                          rank 0 on another host (\"*:0\": any address, any port)\n"
  "      --job-id ID         job id (MORPH_JOB_ID; default run-<pid>)\n"
  "      --checkpoint-dir D  relaunch checkpoints here (MORPH_CHECKPOINT_DIR; default\n"
  "                          /dev/shm, else /tmp): a folder every host sees\n"
  "      --report FILE       CSV of every reconfiguration\n"
  "      --timeout S         end the job after S seconds, exit status 124\n"
  "      --start-timeout S   a relaunched job must connect within S (default 60)\n"
  "      --leave-timeout S   leavers of a shrink must be gone within S (default 30)\n"
  "      --exit-timeout S    mpirun must end within S after the job ends (default 30)\n"
  "      --grace S           from SIGTERM to SIGKILL when stopping the job (default 5)\n"
  "      --no-recovery       Open MPI: no --enable-recovery (any lost process ends the job)\n"
  "  -v, --verbose           more messages (twice: every protocol message)\n"
  "  -h, --help              this text\n"
  "\n"
  "Exit status: the job's (from its goodbye; 1 if a process died outside a\n"
  "reconfiguration or the job ended without goodbye); 124 after --timeout;\n"
  "128+signal when stopped by a signal; 2 for a usage error; 127 when the program\n"
  "is not found on this host (126: not executable); 125 when morph run itself fails.\n";

enum {
  OPT_MIN = 256, OPT_MAX, OPT_PREF, OPT_MECH, OPT_SCHED, OPT_SCHED_FILE, OPT_MPI, OPT_MPIRUN,
  OPT_MPI_ARG, OPT_HOSTFILE, OPT_RANKFILE, OPT_LISTEN, OPT_SERVER, OPT_JOB_ID, OPT_REPORT,
  OPT_CKPT_DIR,
  OPT_TIMEOUT, OPT_START_TIMEOUT,
  OPT_LEAVE_TIMEOUT, OPT_EXIT_TIMEOUT, OPT_GRACE, OPT_NO_RECOVERY
};

static const struct option long_opts[] = {
  {"np", required_argument, NULL, 'n'},
  {"min", required_argument, NULL, OPT_MIN},
  {"max", required_argument, NULL, OPT_MAX},
  {"pref", required_argument, NULL, OPT_PREF},
  {"mechanism", required_argument, NULL, OPT_MECH},
  {"schedule", required_argument, NULL, OPT_SCHED},
  {"schedule-file", required_argument, NULL, OPT_SCHED_FILE},
  {"mpi", required_argument, NULL, OPT_MPI},
  {"mpirun", required_argument, NULL, OPT_MPIRUN},
  {"mpi-arg", required_argument, NULL, OPT_MPI_ARG},
  {"hostfile", required_argument, NULL, OPT_HOSTFILE},
  {"rankfile", required_argument, NULL, OPT_RANKFILE},
  {"listen", required_argument, NULL, OPT_LISTEN},
  {"server", required_argument, NULL, OPT_SERVER},
  {"job-id", required_argument, NULL, OPT_JOB_ID},
  {"checkpoint-dir", required_argument, NULL, OPT_CKPT_DIR},
  {"report", required_argument, NULL, OPT_REPORT},
  {"timeout", required_argument, NULL, OPT_TIMEOUT},
  {"start-timeout", required_argument, NULL, OPT_START_TIMEOUT},
  {"leave-timeout", required_argument, NULL, OPT_LEAVE_TIMEOUT},
  {"exit-timeout", required_argument, NULL, OPT_EXIT_TIMEOUT},
  {"grace", required_argument, NULL, OPT_GRACE},
  {"no-recovery", no_argument, NULL, OPT_NO_RECOVERY},
  {"verbose", no_argument, NULL, 'v'},
  {"help", no_argument, NULL, 'h'},
  {NULL, 0, NULL, 0},
};

static int bad(const char *fmt, const char *arg)
{
  fprintf(stderr, "morph run: ");
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "\n(see morph run --help)\n");
  return 2;
}

static int get_count(const char *arg, int zero_ok, int *out)
{
  char *end;
  long v = strtol(arg, &end, 10);
  if (*arg == '\0' || *end || v < (zero_ok ? 0 : 1) || v > 1000000)
    return bad("'%s' is not a valid number of processes", arg);
  *out = (int)v;
  return 0;
}

static int get_seconds(const char *arg, double *out)
{
  char *end;
  double v = strtod(arg, &end);
  if (*arg == '\0' || *end || !isfinite(v) || v < 0)
    return bad("'%s' is not a valid number of seconds", arg);
  *out = v;
  return 0;
}

static int add_mpi_arg(struct morph__launch_opts *o, const char *arg)
{
  const char **p = realloc(o->cmd.args, (size_t)(o->cmd.n_args + 1) * sizeof *p);
  if (!p)
    return bad("%s", "out of memory");
  o->cmd.args = p;
  o->cmd.args[o->cmd.n_args++] = arg;
  return 0;
}

static int add_schedule(struct morph__launch_opts *o, const char *arg, int is_file)
{
  char err[512];
  int rc = is_file ? morph__launch_sched_parse_file(&o->sched, arg, err, sizeof err)
                   : morph__launch_sched_parse_list(&o->sched, arg, err, sizeof err);
  return rc == MORPH_OK ? 0 : bad("%s", err);
}

static int get_choice(int value, const char *arg, const char *what, int *out)
{
  if (value < 0) {
    fprintf(stderr, "morph run: unknown %s '%s'\n", what, arg);
    return 2;
  }
  *out = value;
  return 0;
}

/* Options about sizes and the job's behaviour. */
static int job_option(struct morph__launch_opts *o, int c, const char *arg)
{
  int mpi = 0;
  switch (c) {
  case 'n': return get_count(arg, 0, &o->np);
  case OPT_MIN: return get_count(arg, 0, &o->min);
  case OPT_MAX: return get_count(arg, 0, &o->max);
  case OPT_PREF: return get_count(arg, 0, &o->pref);
  case OPT_MECH: return get_choice(morph__launch_mech_parse(arg), arg, "mechanism", &o->mechanism);
  case OPT_SCHED: return add_schedule(o, arg, 0);
  case OPT_SCHED_FILE: return add_schedule(o, arg, 1);
  case OPT_MPI:
    if (get_choice(morph__launch_mpi_parse(arg), arg, "MPI (openmpi, mpich, auto)", &mpi))
      return 2;
    o->cmd.mpi = (enum morph__launch_mpi)mpi;
    return 0;
  }
  return -1;
}

/* Options about the launcher, the relay and time limits. */
static int run_option(struct morph__launch_opts *o, int c, const char *arg)
{
  switch (c) {
  case OPT_MPIRUN: o->cmd.mpirun = arg; return 0;
  case OPT_MPI_ARG: return add_mpi_arg(o, arg);
  case OPT_HOSTFILE: o->cmd.hostfile = arg; return 0;
  case OPT_RANKFILE: o->cmd.rankfile = arg; return 0;
  case OPT_LISTEN: o->listen = arg; return 0;
  case OPT_CKPT_DIR: o->checkpoint_dir = arg; return 0;
  case OPT_SERVER: o->server = arg; return 0;
  case OPT_JOB_ID: o->job_id = arg; return 0;
  case OPT_REPORT: o->report = arg; return 0;
  case OPT_TIMEOUT: return get_seconds(arg, &o->timeout);
  case OPT_START_TIMEOUT: return get_seconds(arg, &o->start_timeout);
  case OPT_LEAVE_TIMEOUT: return get_seconds(arg, &o->leave_timeout);
  case OPT_EXIT_TIMEOUT: return get_seconds(arg, &o->exit_timeout);
  case OPT_GRACE: return get_seconds(arg, &o->grace);
  case OPT_NO_RECOVERY: o->cmd.no_recovery = 1; return 0;
  case 'v': o->verbose++; return 0;
  }
  return bad("%s", "unknown option");
}

/* The program and its arguments, then the checks between options. */
static int finish(struct morph__launch_opts *o, char **argv)
{
  char err[512];
  o->cmd.app = argv + optind;
  morph__launch_mpi_unwrap_env(&o->cmd);
  if (morph__launch_opts_check(o, err, sizeof err) != MORPH_OK)
    return bad("%s", err);
  return 0;
}

/* The defaults of --min, --max and --pref: MORPH_MIN, MORPH_MAX and
 * MORPH_PREF, as morph's SPANK plugin sets them in a Slurm job (sbatch
 * --morph=min:max:pref, docs/slurm.md). Returns 0, or 2 after naming a
 * variable that is not a number of processes. */
static int env_limits(struct morph__launch_opts *o)
{
  const struct { const char *name; int *to; } vars[] = {
    {"MORPH_MIN", &o->min}, {"MORPH_MAX", &o->max}, {"MORPH_PREF", &o->pref}};
  for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
    const char *v = getenv(vars[i].name);
    if (!v || !*v)
      continue;
    char *end;
    long n = strtol(v, &end, 10);
    if (*end || n < 0 || n > 1000000) {
      fprintf(stderr, "morph run: %s='%s' (from the environment) is not a valid number of "
                      "processes\n", vars[i].name, v);
      return 2;
    }
    *vars[i].to = (int)n;
  }
  return 0;
}

/* Parses argv into *o. Returns -1 to go on, or the exit status to leave with
 * (0 after --help, 2 after a usage error, already reported on stderr). */
static int parse(struct morph__launch_opts *o, int argc, char **argv)
{
  morph__launch_opts_init(o);
  if (env_limits(o))
    return 2;
  int c;
  /* '+': stop at the program name, so its own options are left alone. */
  while ((c = getopt_long(argc, argv, "+n:vh", long_opts, NULL)) != -1) {
    if (c == 'h') {
      fputs(usage_text, stdout);
      return 0;
    }
    if (c == '?')
      return bad("%s", "bad option");
    int rc = job_option(o, c, optarg);
    if (rc < 0)
      rc = run_option(o, c, optarg);
    if (rc != 0)
      return rc;
  }
  int rc = finish(o, argv);
  return rc == 0 ? -1 : rc;
}

int main(int argc, char **argv)
{
  /* getopt's messages begin with argv[0]: the command as typed, not our path. */
  argv[0] = (char *)"morph run";
  struct morph__launch_opts o;
  int rc = parse(&o, argc, argv);
  if (rc >= 0) {
    morph__launch_opts_free(&o);
    return rc;
  }
  struct morph__launch r;
  if (morph__launch_init(&r, &o) == MORPH_OK)
    morph__launch_run(&r);
  rc = morph__launch_fini(&r);
  morph__launch_opts_free(&o);
  return rc;
}
