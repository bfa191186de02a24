/*
 * The lifecycle of a launch: setting up (socket, report, environment,
 * relay, first mpirun) and cleaning up. The event loop in between is
 * loop.c's.
 */
#include "launch.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "child.h"
#include "common/clock.h"
#include "hosts.h"
#include "monitor.h"
#include "morph/error.h"
#include "ckptdir.h"
#include "mpirun.h"
#include "relaunch.h"
#include "relay.h"
#include "report.h"
#include "server.h"
#include "session.h"
#include "common/signals.h"
#include "state.h"

static void set_count(const char *name, int value)
{
  char v[32];
  snprintf(v, sizeof v, "%d", value);
  setenv(name, v, 1);
}

/* The documented variables the job reads (docs/run.md). They are set in
 * morph run's own environment so that every mpirun inherits them. */
static void export_env(struct morph__launch *r)
{
  const struct morph__launch_opts *o = r->opt;
  setenv("MORPH_SOCKET", r->sock, 1);
  setenv("MORPH_JOB_ID", o->job_id, 1);
  if (o->checkpoint_dir)
    setenv("MORPH_CHECKPOINT_DIR", o->checkpoint_dir, 1);
  else if (r->mon.watch.n > 0 && !getenv("MORPH_CHECKPOINT_DIR"))
    morph__say(&r->log, 1, "relaunch checkpoints go to each host's own /dev/shm or /tmp: "
                           "give --checkpoint-dir a folder every host sees");
  if (o->min)
    set_count("MORPH_MIN", o->min);
  if (o->max)
    set_count("MORPH_MAX", o->max);
  if (o->pref)
    set_count("MORPH_PREF", o->pref);
  if (o->mechanism >= 0)
    setenv("MORPH_MECHANISM", morph__launch_mech_name(o->mechanism), 1);
  unsetenv("MORPH_RESTART");
  morph__launch_mpi_prepare_env(o->cmd.mpi);
}

/* Watches the job's processes on the hosts of its hostfile when it names
 * another host than this one (watch.h). An unknown host is an error. */
static int watch_hosts(struct morph__launch *r)
{
  char err[320];
  const char *hf = r->opt->cmd.hostfile;
  int rc = hf ? morph__launch_watch_open(&r->mon.watch, hf, r->opt->job_id, r->app_exe,
                                         r->opt->timeout, err, sizeof err)
              : MORPH_EINVAL;
  if (rc == MORPH_ENOENT) {
    morph__say(&r->log, 0, "%s", err);
    return rc;
  }
  if (rc != MORPH_OK) {
    morph__say(&r->log, 0, "%s: crashes and leavers on other hosts will not be seen",
               hf ? err : "the job's processes run on other hosts and no --hostfile names them");
    r->app_exe[0] = '\0';
  } else if (r->mon.watch.n > 0) {
    morph__say(&r->log, 1, "watching the job's processes on the %d hosts of %s",
               r->mon.watch.n, hf);
  }
  return MORPH_OK;
}

/* The program's resolved path, to recognise its processes in /proc, here
 * or on the job's other hosts (the same path there: a shared folder). A
 * program that is not here is refused before mpirun starts: Open MPI's
 * mpirun with --enable-recovery never ends when it cannot start one, and
 * morph run could not watch its processes anyway. Exit status 127 (126:
 * found but not executable), as env and timeout do. Errors: MORPH_ENOENT,
 * those of watch_hosts. */
static int find_app(struct morph__launch *r)
{
  char path[PATH_MAX];
  const char *app = r->opt->cmd.app[0];
  r->app_exe[0] = '\0';
  if (morph__launch_which(app, path, sizeof path) != 0 || !realpath(path, r->app_exe)) {
    int exists = strchr(app, '/') && access(app, F_OK) == 0;
    r->app_exe[0] = '\0';
    r->exit_code = exists ? 126 : 127;
    morph__say(&r->log, 0, "%s: %s", app,
               exists ? "not executable" : strchr(app, '/') ? "no such program"
                                                            : "no such program in PATH");
    return MORPH_ENOENT;
  }
  return r->opt->cmd.hostfile || r->opt->listen ? watch_hosts(r) : MORPH_OK;
}

/* 1 if a schedule entry names hosts. */
static int sched_names_hosts(const struct morph__launch_sched *s)
{
  for (int i = 0; i < s->n; i++)
    if (s->e[i].onto[0] || s->e[i].off[0])
      return 1;
  return 0;
}

/* The hosts a schedule names must be the job's: those of its hostfile
 * (read by watch_hosts), else this host. A typo is refused at start, not
 * found as a process placed elsewhere in the middle of the run. Errors:
 * MORPH_ENOENT (said). */
static int check_schedule_hosts(struct morph__launch *r)
{
  const struct morph__launch_watch *w = &r->mon.watch;
  if (!sched_names_hosts(&r->opt->sched) || (r->opt->cmd.hostfile && !r->app_exe[0]))
    return MORPH_OK; /* no hosts named, or the hostfile's hosts are not known here */
  char me[256] = "localhost", from[320], err[768];
  const char *local[2] = {me, "localhost"}, *names[64];
  int n = 0;
  for (; n < w->n && n < 64; n++)
    names[n] = w->h[n].name;
  if (n == 0) {
    gethostname(me, sizeof me - 1);
    snprintf(from, sizeof from, "%s", r->opt->cmd.hostfile ? "its --hostfile names only this host"
                                                          : "no --hostfile: this host only");
  } else {
    snprintf(from, sizeof from, "--hostfile %s", r->opt->cmd.hostfile);
  }
  int rc = morph__launch_sched_check_known(&r->opt->sched, n ? names : local, n ? n : 2, from, err,
                                           sizeof err);
  if (rc != MORPH_OK)
    morph__say(&r->log, 0, "%s", err);
  return rc;
}

static void choose_mpi(struct morph__launch *r)
{
  char why[256];
  if (r->opt->cmd.mpi != MORPH__LAUNCH_MPI_AUTO)
    return;
  r->opt->cmd.mpi = morph__launch_mpi_detect(r->opt->cmd.app[0], why, sizeof why);
  morph__say(&r->log, 1, "MPI: %s (%s)", morph__launch_mpi_name(r->opt->cmd.mpi), why);
}

/* Under Slurm morphd counts whole nodes of the job's processes per node:
 * the limits the program sets, in processes, are rounded (docs/slurm.md,
 * "Limits in nodes"). Said once, since the program's morph_options or
 * DMR_Set_parameters may not be multiples of it. */
static void say_node_units(struct morph__launch *r)
{
  const char *ppn = getenv("SLURM_NTASKS_PER_NODE");
  if (r->opt->server && getenv("SLURM_JOB_ID") && ppn && atoi(ppn) > 1)
    morph__say(&r->log, 0, "morphd resizes this Slurm job in whole nodes of %d processes; the "
               "job's own limits are rounded: minimum up, maximum down", atoi(ppn));
}

static int setup(struct morph__launch *r)
{
  /* Orphans of the launcher (a rank whose orted died) become our children,
   * so none escapes the final clean-up. */
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  morph__signals_install();
  choose_mpi(r);
  int rc = find_app(r);
  if (rc == MORPH_OK)
    rc = check_schedule_hosts(r);
  if (rc == MORPH_OK)
    rc = morph__launch_ckptdir_check(r->opt->checkpoint_dir ? r->opt->checkpoint_dir
                                                             : getenv("MORPH_CHECKPOINT_DIR"),
                                     &r->mon.watch, &r->log);
  int swept = morph__launch_session_sweep();
  if (swept > 0)
    morph__say(&r->log, 1, "removed %d temporary folder(s) of killed morph runs", swept);
  if (rc == MORPH_OK)
    rc = morph__launch_server_open(r);
  if (rc == MORPH_OK)
    rc = morph__launch_report_open(r);
  if (rc != MORPH_OK)
    return rc;
  export_env(r);
  /* Without it mpirun writes to our standard error directly; only the
   * cause of an MPI_Abort is then not named. */
  morph__launch_errscan_open(&r->err);
  morph__launch_relay_init(r);
  say_node_units(r);
  if ((rc = morph__launch_hosts_init(r, r->opt->np)) != MORPH_OK)
    return rc;
  return morph__launch_mpirun_start(r, r->opt->np, NULL);
}

int morph__launch_init(struct morph__launch *r, struct morph__launch_opts *o)
{
  memset(r, 0, sizeof *r);
  r->opt = o;
  r->log = (morph__sayer){.prog = "morph run", .verbose = o->verbose};
  r->t0 = morph__now();
  r->listener.fd = r->listener.reserve = -1;
  r->job.fd = -1;
  r->size = o->np;
  r->mon.count = -1;
  if (!o->job_id) {
    snprintf(o->job_id_buf, sizeof o->job_id_buf, "run-%ld", (long)getpid());
    o->job_id = o->job_id_buf;
  }
  if (morph__launch_session_name(r->session, sizeof r->session) == MORPH_OK)
    o->cmd.session_base = r->session;
  r->hostfile_given = o->cmd.hostfile;
  int rc = setup(r);
  if (rc != MORPH_OK && !r->exit_code)
    r->exit_code = 125;
  return rc;
}

/* Open MPI's session folders and shared-memory segments of the job, here
 * and on the hosts of its hostfiles (session.h), once no process of the
 * job is left: the given one, and a relaunch's, which may have hosts
 * added. */
static void remove_session(struct morph__launch *r)
{
  const char *base = morph__launch_mpi_session_base(&r->opt->cmd);
  const char *hf[2] = {r->hostfile_given, r->opt->cmd.hostfile};
  for (int i = 0; base && i < 2; i++) {
    int left = i && hf[1] == hf[0] ? 0 : morph__launch_session_remove(base, hf[i], &r->shm, 10.0);
    if (left > 0)
      morph__say(&r->log, 0, "%s was not removed on %d host(s) of %s", base, left, hf[i]);
  }
}

int morph__launch_fini(struct morph__launch *r)
{
  morph__launch_monitor_free(r); /* its sessions are not the job's leftovers */
  if (morph__launch_child_kill_leftovers(r->opt->grace) > 0)
    morph__say(&r->log, 0, "stopped processes of the job that outlived mpirun");
  morph__launch_errscan_close(&r->err);
  remove_session(r); /* before hosts_free removes the relaunch's hostfile */
  morph__launch_hosts_free(r);
  morph__launch_checkpoints_remove(r);
  morph__launch_relay_bye(r);
  morph__launch_relay_close(r);
  morph__launch_report_close(r);
  morph__launch_server_close(r);
  if (r->opt->sched.n > r->next_sched)
    morph__say(&r->log, 0, "%d schedule entries were not applied", r->opt->sched.n - r->next_sched);
  morph__say(&r->log, 1, "job ended with status %d after %.1f s; %d reconfigurations (%d failed)",
             r->exit_code, morph__launch_clock(r), r->seq, r->n_failed);
  return r->exit_code;
}
