/*
 * morph submit --slurm: the job the Slurm way (docs/slurm.md). An sbatch
 * script asks Slurm for whole nodes (--exclusive: with CR_Core an expander
 * could otherwise be given one of the job's own nodes) and runs `morph run`,
 * which says HELLO to morphd with $SLURM_JOB_ID; morphd claims the job and
 * grows and shrinks its allocation. Inside the allocation morph run starts
 * mpirun, not srun (under srun --mpi=pmix MPI_Comm_spawn fails), with
 * Open MPI's ssh launcher and no Slurm host list (plm=rsh, ras=^slurm: its
 * Slurm launcher puts joiners on the old nodes, docs/slurm-internals.md), on a hostfile
 * of the batch host, the job's other nodes, then every node it may grow
 * onto. --no-requeue: morphd records a job's end once, a requeued job would
 * run unmanaged.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "submit.h"

/* One word, single-quoted for bash. */
static void quote(FILE *f, const char *s)
{
  fputc('\'', f);
  for (; *s; s++)
    fputs(*s == '\'' ? "'\\''" : (char[]){*s, 0}, f);
  fputc('\'', f);
}

/* morph-run next to this program (build tree and install alike). */
static void launcher(char *buf, size_t size)
{
  char self[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  self[n > 0 ? n : 0] = '\0';
  char *slash = strrchr(self, '/');
  if (slash)
    *slash = '\0';
  snprintf(buf, size, "%s/morph-run", slash ? self : ".");
}

static int bad(const char *why, int v)
{
  fprintf(stderr, "morph submit --slurm: %s (got %d; see morph submit --help)\n", why, v);
  return 2;
}

/* Sizes are processes; Slurm gives whole nodes of ppn processes each. */
static int check(const sub_opts *o)
{
  if (!o->server)
    return fprintf(stderr, "morph submit --slurm: --server HOST:PORT (morphd's address, as "
                           "the job's nodes reach it) is required\n"), 2;
  if (o->req_min != o->req_max)
    return bad("-n MIN-MAX is not supported with --slurm: give -n N and --min/--max", o->req_min);
  const int sizes[] = {o->req_min, o->min, o->max, o->pref};
  for (int i = 0; i < 4; i++)
    if (sizes[i] % o->ppn)
      return bad("every size (-n, --min, --max, --pref) must be a multiple of --ppn", sizes[i]);
  return 0;
}

static void header(FILE *f, const sub_opts *o)
{
  fputs("#!/bin/bash\n# Written by morph submit --slurm (docs/slurm.md).\n", f);
  fprintf(f, "#SBATCH --nodes=%d\n#SBATCH --ntasks-per-node=%d\n#SBATCH --exclusive\n",
          o->req_min / o->ppn, o->ppn);
  /* Slurm requeues a batch job whose node failed; morphd has recorded
   * that job's end and would refuse its second start under the same id. */
  fputs("#SBATCH --no-requeue\n", f);
  if (o->name)
    fprintf(f, "#SBATCH --job-name=%s\n", o->name);
  if (o->partition)
    fprintf(f, "#SBATCH --partition=%s\n", o->partition);
  /* Slurm's limits are whole minutes: rounded up, never shorter. */
  if (o->walltime > 0)
    fprintf(f, "#SBATCH --time=%.0f\n", ceil(o->walltime / 60.0));
  if (o->out)
    fprintf(f, "#SBATCH --output=%s\n", o->out);
  if (o->err)
    fprintf(f, "#SBATCH --error=%s\n", o->err);
}

static void body(FILE *f, const sub_opts *o, char **prog, int n)
{
  char run[PATH_MAX + 16];
  launcher(run, sizeof run);
  fputs("set -eu\n"
        "export OMPI_MCA_plm=rsh OMPI_MCA_ras=^slurm\n"
        "hosts=$(mktemp \"${TMPDIR:-/tmp}/morph-hosts-$SLURM_JOB_ID.XXXXXX\")\n"
        "trap 'rm -f \"$hosts\"' EXIT\n"
        "{ echo \"$SLURMD_NODENAME\"\n"
        "  scontrol show hostnames \"$SLURM_JOB_NODELIST\"\n"
        "  scontrol show hostnames \"$(sinfo -h -p \"$SLURM_JOB_PARTITION\" -o %N)\"\n"
        "} | awk '!seen[$0]++ { print $0 \" slots=\" ENVIRON[\"SLURM_NTASKS_PER_NODE\"] }' "
        ">\"$hosts\"\n",
        f);
  /* --no-recovery: written when morph run's crash monitor counted this
   * host only; it counts every host of the job now, but the example apps
   * on Slurm (morphd-apps) have not been measured without it. A
   * relaunch's checkpoint goes where every node of the job reads it: the
   * submit folder, unless MORPH_CHECKPOINT_DIR names another. */
  quote(f, run);
  fputs(" --server ", f);
  quote(f, o->server);
  fprintf(f, " --job-id \"$SLURM_JOB_ID\" -n %d --min %d --max %d --pref %d --no-recovery "
             "--checkpoint-dir \"${MORPH_CHECKPOINT_DIR:-$SLURM_SUBMIT_DIR}\" "
             "--hostfile \"$hosts\" --",
          o->req_min, o->min, o->max, o->pref);
  for (int i = 0; i < n; i++)
    fputc(' ', f), quote(f, prog[i]);
  fputc('\n', f);
}

/* sbatch FILE; prints Slurm's job id. */
static int sbatch(const char *file, int quiet)
{
  char cmd[PATH_MAX + 32];
  snprintf(cmd, sizeof cmd, "sbatch --parsable %s", file);
  FILE *p = popen(cmd, "r");
  char id[64] = "";
  if (!p || !fgets(id, sizeof id, p)) {
    if (p)
      pclose(p);
    fprintf(stderr, "morph submit --slurm: sbatch failed%s%s\n", p ? "" : ": ",
            p ? "" : strerror(errno));
    return 1;
  }
  int st = pclose(p);
  id[strcspn(id, ";\n")] = '\0';
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || !*id)
    return fprintf(stderr, "morph submit --slurm: sbatch failed\n"), 1;
  if (quiet)
    printf("%s\n", id);
  else
    printf("submitted Slurm job %s\n", id);
  return 0;
}

int submit_slurm(const sub_opts *o, char **prog, int n)
{
  int rc = check(o);
  if (rc)
    return rc;
  if (o->print) {
    header(stdout, o), body(stdout, o, prog, n);
    return 0;
  }
  char file[PATH_MAX];
  const char *tmp = getenv("TMPDIR");
  snprintf(file, sizeof file, "%s/morph-sbatch-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  int fd = mkstemp(file);
  FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
  if (!f)
    return fprintf(stderr, "morph submit --slurm: cannot write %s: %s\n", file, strerror(errno)),
           1;
  header(f, o), body(f, o, prog, n);
  fclose(f);
  rc = sbatch(file, o->quiet);
  unlink(file); /* slurmctld keeps its own copy */
  /* The sizes are checked here; limits the program sets itself are not,
   * and morphd rounds them (docs/slurm.md, "Limits in nodes"). */
  if (rc == 0 && !o->quiet)
    fprintf(stderr, "morph submit: morphd resizes this job in whole nodes of %d process(es); "
            "limits set inside the program are rounded: minimum up, maximum down\n", o->ppn);
  return rc;
}
