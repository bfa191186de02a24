/*
 * Commands on another host (hostcmd.h).
 */
#include "common/hostcmd.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "morph/error.h"

#define NAME_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-"

int morph__host_name_ok(const char *h, size_t len)
{
  if (len == 0 || len >= 64)
    return 0;
  for (size_t i = 0; i < len; i++)
    if (!strchr(NAME_CHARS, h[i]))
      return 0;
  return 1;
}

int morph__host_word_ok(const char *s)
{
  return s && *s && strspn(s, NAME_CHARS "_/+") == strlen(s);
}

/* `-ef` compares the namespaces and the programs without a fork per
 * process; grep runs only for the host's processes of that program. */
int morph__host_job_test(char *buf, size_t size, const char *job, const char *exe)
{
  int n = -1;
  if (morph__host_word_ok(job) && (!exe || morph__host_word_ok(exe)))
    n = snprintf(buf, size, "[ $d/ns/net -ef /proc/self/ns/net ] && %s%s%s"
                 "grep -qsxzF MORPH_JOB_ID=%s $d/environ",
                 exe ? "[ $d/exe -ef " : "", exe ? exe : "", exe ? " ] && " : "", job);
  if (n < 0 || (size_t)n >= size) {
    snprintf(buf, size, "false");
    return MORPH_EINVAL;
  }
  return MORPH_OK;
}

static const char *agent(void)
{
  const char *a = getenv("OMPI_MCA_plm_rsh_agent");
  return a && *a ? a : "ssh";
}

static void child(const char *host, const char *script, int out)
{
  int null = open("/dev/null", O_RDWR);
  if (null >= 0)
    dup2(null, 0);
  if (out >= 0 && null >= 0)
    dup2(null, 2); /* a session read by a program: its answer says enough */
  if (out >= 0)
    dup2(out, 1);
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "bash -c '%s'", script);
  const char *a = agent();
  execlp(a, a, host, cmd, (char *)NULL);
  _exit(127);
}

pid_t morph__host_run(const char *host, const char *script, int *out)
{
  int fd[2] = {-1, -1};
  if (out && pipe2(fd, O_CLOEXEC) != 0)
    return -1;
  fflush(NULL);
  pid_t p = fork();
  if (p == 0)
    child(host, script, fd[1]);
  int e = errno;
  if (out) {
    close(fd[1]);
    if (p < 0)
      close(fd[0]);
    else
      fcntl(fd[0], F_SETFL, fcntl(fd[0], F_GETFL) | O_NONBLOCK);
    *out = p < 0 ? -1 : fd[0];
  }
  errno = e;
  return p;
}
