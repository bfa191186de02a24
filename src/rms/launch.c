/*
 * Starting a job: morph-run in its own session (so a Ctrl-C meant for a
 * terminal does not reach it and it survives morphd), stdout and stderr in
 * the job's files, relaying to morphd's socket under the job's id.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "morph/error.h"
#include "rms/morphd.h"

#define MAX_ARGS 24

/* Writes "host slots=N" lines of the job's allocation. */
static int write_hostfile(morph__daemon *d, const morph__job *job, char *path, size_t size)
{
  snprintf(path, size, "%s/%lld.hosts", d->outdir, (long long)job->id);
  FILE *f = fopen(path, "w");
  if (!f)
    return MORPH_EIO;
  for (int i = 0; i < job->alloc.n; i++)
    fprintf(f, "%s slots=%d\n", d->pool.nodes[job->alloc.v[i].node].host, job->alloc.v[i].slots);
  return fclose(f) == 0 ? MORPH_OK : MORPH_EIO;
}

/* The morph-run command line; numbers live in nums. */
static int build_argv(morph__daemon *d, const morph__job *job, const char *hostfile,
                      char nums[6][32], char **argv, int cap)
{
  int n = 0;
  argv[n++] = d->launcher;
  argv[n++] = "--server", argv[n++] = d->sock;
  snprintf(nums[0], 32, "%lld", (long long)job->id);
  argv[n++] = "--job-id", argv[n++] = nums[0];
  snprintf(nums[1], 32, "%d", job->size);
  argv[n++] = "-n", argv[n++] = nums[1];
  if (morph_job_kind_malleable(job->kind)) {
    snprintf(nums[2], 32, "%d", job->min);
    snprintf(nums[3], 32, "%d", job->max);
    snprintf(nums[4], 32, "%d", job->pref);
    argv[n++] = "--min", argv[n++] = nums[2];
    argv[n++] = "--max", argv[n++] = nums[3];
    argv[n++] = "--pref", argv[n++] = nums[4];
  }
  if (hostfile)
    argv[n++] = "--hostfile", argv[n++] = (char *)hostfile;
  argv[n++] = "--";
  for (int i = 0; i < job->argc && n < cap - 1; i++)
    argv[n++] = job->argv[i];
  argv[n] = NULL;
  return n;
}

static void redirect(const char *path, int fd)
{
  int f = path && *path ? open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644) : -1;
  if (f < 0)
    f = open("/dev/null", O_WRONLY);
  if (f >= 0 && f != fd) {
    dup2(f, fd);
    close(f);
  }
}

/* In the child: never returns. */
static void exec_child(const morph__job *job, char **argv)
{
  setsid();
  if (job->cwd && *job->cwd && chdir(job->cwd) != 0)
    _exit(126);
  int in = open("/dev/null", O_RDONLY);
  if (in >= 0 && in != 0) {
    dup2(in, 0);
    close(in);
  }
  redirect(job->out, 1);
  redirect(job->err, 2);
  execv(argv[0], argv);
  fprintf(stderr, "morphd: cannot run %s: %s\n", argv[0], strerror(errno));
  _exit(127);
}

int morph__job_launch(morph__daemon *d, morph__job *job)
{
  char hostfile[PATH_MAX + 32], nums[6][32];
  char *argv[MAX_ARGS + 256];
  if (job->argc > 255)
    return MORPH_EINVAL;
  if (!d->pool.local && write_hostfile(d, job, hostfile, sizeof hostfile) != MORPH_OK)
    return MORPH_EIO;
  build_argv(d, job, d->pool.local ? NULL : hostfile, nums, argv, MAX_ARGS + 256);
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0)
    return MORPH_ESPAWN;
  if (pid == 0)
    exec_child(job, argv);
  job->pid = pid;
  job->child = 1;
  return MORPH_OK;
}
