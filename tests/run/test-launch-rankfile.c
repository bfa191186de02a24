/* The placement's rank order applied for real on one host: the command
 * morph run builds with --rankfile (Open MPI) is run, and each rank
 * reports the CPUs it may run on. Rank 0 is put on slot 1 and rank 1 on
 * slot 0, the reverse of Open MPI's own order, so the rankfile must be
 * what placed them. Needs two CPUs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "launch/mpicmd.h"
#include "morph/error.h"

/* Runs argv with stdout into buf; returns the exit status or -1. */
static int run(char **argv, char *buf, size_t size)
{
  int fd[2];
  if (pipe(fd) != 0)
    return -1;
  pid_t pid = fork();
  if (pid == 0) {
    dup2(fd[1], 1);
    close(fd[0]);
    execvp(argv[0], argv);
    _exit(127);
  }
  close(fd[1]);
  size_t len = 0;
  ssize_t n;
  while (len < size - 1 && (n = read(fd[0], buf + len, size - 1 - len)) > 0)
    len += (size_t)n;
  buf[len] = '\0';
  close(fd[0]);
  int st = 0;
  waitpid(pid, &st, 0);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int main(void)
{
  if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
    printf("skipped: one CPU\n");
    return 77;
  }
  char host[256], rankfile[] = "/tmp/test-launch-rankfile-XXXXXX", out[4096];
  gethostname(host, sizeof host);
  int fd = mkstemp(rankfile);
  FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
  if (!f)
    return perror("rankfile"), 1;
  fprintf(f, "rank 0=%s slot=1\nrank 1=%s slot=0\n", host, host);
  fclose(f);
  setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
  setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
  char *app[] = {"sh", "-c",
                 "echo rank=$OMPI_COMM_WORLD_RANK "
                 "cpus=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)",
                 NULL};
  struct morph__launch_mpicmd c = {.mpi = MORPH__LAUNCH_MPI_OPENMPI, .rankfile = rankfile,
                                   .app = app};
  struct morph__launch_argv a = {0}, b = {0};
  int rc = morph__launch_mpi_command(&c, 2, &a), bad = 0;
  if (rc == MORPH_OK)
    rc = run(a.v, out, sizeof out);
  printf("%s", out);
  if (rc != 0 || !strstr(out, "rank=0 cpus=1\n") || !strstr(out, "rank=1 cpus=0\n"))
    bad = printf("FAIL: want rank 0 on CPU 1 and rank 1 on CPU 0 (status %d)\n", rc);
  c.mpi = MORPH__LAUNCH_MPI_MPICH;
  if (morph__launch_mpi_command(&c, 2, &b) != MORPH_EINVAL)
    bad = printf("FAIL: MPICH has no rankfile, the command must be refused\n");
  morph__launch_argv_free(&a);
  morph__launch_argv_free(&b);
  unlink(rankfile);
  return bad ? 1 : 0;
}
