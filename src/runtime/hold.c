/*
 * Placeholders: a leaver of a live shrink that must not end (hold.h). It
 * becomes a sleeping process of a few hundred kilobytes that calls no MPI,
 * holds no data and no slot of morph's, and ends when the MPI daemon that
 * started it ends (at the job's end or relaunch).
 */
#include "runtime/hold.h"

#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

/* The name of this process's parent, "" if unknown. */
static void parent_name(char *buf, size_t n)
{
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/comm", (int)getppid());
  FILE *f = fopen(path, "r");
  buf[0] = '\0';
  if (f && fgets(buf, (int)n, f))
    buf[strcspn(buf, "\n")] = '\0';
  if (f)
    fclose(f);
}

void morph__hold_job(char *buf, size_t n)
{
  char parent[32];
  const char *job = getenv("OMPI_MCA_ess_base_jobid");
  buf[0] = '\0';
  if (!job || !*job)
    return;
  /* Only Open MPI's remote daemons forget a job; mpirun keeps every job's
   * data until the job ends. */
  parent_name(parent, sizeof parent);
  if (!strcmp(parent, "orted"))
    snprintf(buf, n, "%s", job);
}

/* Closes every descriptor above stderr, as the end of the process would:
 * peers see the connections close. stdout and stderr stay open, so the
 * daemon does not count the process as ended. */
static void close_above_stderr(void)
{
  int fds[1024], n = 0;
  DIR *d = opendir("/proc/self/fd");
  for (struct dirent *e; d && (e = readdir(d)) && n < 1024;) {
    int fd = atoi(e->d_name);
    if (fd > 2 && fd != dirfd(d))
      fds[n++] = fd;
  }
  if (d)
    closedir(d);
  for (int i = 0; i < n; i++)
    close(fds[i]);
}

void morph__hold_process(void)
{
  fflush(stdout);
  fflush(stderr);
  pid_t daemon = getppid();
  /* Ends with its daemon (which also kills it when the job ends). */
  if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != daemon)
    _exit(0);
  char env[160];
  const char *job = getenv("MORPH_JOB_ID");
  snprintf(env, sizeof env, "MORPH_HOLD_OF=%.100s", job ? job : "");
  close_above_stderr();
  char *argv[] = {"morph-hold", "infinity", NULL};
  char *envp[] = {env, NULL};
  execve("/bin/sleep", argv, envp);
  _exit(0);
}
