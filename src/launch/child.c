#include "child.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/clock.h"
#include "morph/error.h"
#include "procs.h"

int morph__launch_child_exit_code(int wstatus)
{
  if (WIFEXITED(wstatus))
    return WEXITSTATUS(wstatus);
  if (WIFSIGNALED(wstatus))
    return 128 + WTERMSIG(wstatus);
  return 125;
}

/* The child: own process group, default signal handling, standard error
 * to err_to if given, then exec. An exec failure travels back through the
 * close-on-exec pipe as an errno. */
static void child(char *const argv[], int errfd, int err_to)
{
  setpgid(0, 0);
  if (err_to >= 0)
    dup2(err_to, 2);
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
  signal(SIGHUP, SIG_DFL);
  signal(SIGPIPE, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, NULL);
  execvp(argv[0], argv);
  int e = errno;
  ssize_t w = write(errfd, &e, sizeof e);
  (void)w;
  _exit(127);
}

int morph__launch_child_start(char *const argv[], int err_to, pid_t *pid, char *err,
                              size_t errsize)
{
  int fd[2];
  if (pipe2(fd, O_CLOEXEC) != 0) {
    snprintf(err, errsize, "pipe: %s", strerror(errno));
    return MORPH_ESPAWN;
  }
  pid_t p = fork();
  if (p == 0)
    child(argv, fd[1], err_to);
  close(fd[1]);
  int e = 0;
  ssize_t n = p > 0 ? read(fd[0], &e, sizeof e) : -1;
  close(fd[0]);
  if (p < 0 || n > 0) {
    snprintf(err, errsize, "cannot run %s: %s", argv[0], strerror(p < 0 ? errno : e));
    if (p > 0)
      waitpid(p, NULL, 0);
    return MORPH_ESPAWN;
  }
  /* Also set here: whichever of parent and child runs first, the group
   * exists before anyone signals it. */
  setpgid(p, p);
  *pid = p;
  return MORPH_OK;
}

int morph__launch_child_reap(pid_t pid, int *code)
{
  int found = 0, st;
  pid_t p;
  while ((p = waitpid(-1, &st, WNOHANG)) > 0)
    if (p == pid) {
      *code = morph__launch_child_exit_code(st);
      found = 1;
    }
  return found;
}

/* Waits up to `limit` seconds for pid to end; 1 and its code if it did. */
static int wait_for(pid_t pid, double limit, int *code)
{
  double end = morph__now() + limit;
  do {
    if (morph__launch_child_reap(pid, code))
      return 1;
    morph__sleep(0.02);
  } while (morph__now() < end);
  return morph__launch_child_reap(pid, code);
}

int morph__launch_child_terminate(pid_t pid, double grace)
{
  int code = 128 + SIGKILL;
  kill(pid, SIGTERM);
  if (!wait_for(pid, grace, &code)) {
    kill(-pid, SIGKILL);
    morph__launch_procs_signal(getpid(), SIGKILL);
    /* SIGKILL cannot be refused; the bound only guards against a process
     * stuck in the kernel (D state). */
    wait_for(pid, 5, &code);
  }
  morph__launch_child_kill_leftovers(grace);
  return code;
}

int morph__launch_child_kill_leftovers(double grace)
{
  int code, n = morph__launch_procs_signal(getpid(), SIGTERM);
  if (n == 0)
    return 0;
  double end = morph__now() + grace;
  while (morph__now() < end && morph__launch_procs_signal(getpid(), 0) > 0) {
    morph__launch_child_reap(-2, &code);
    morph__sleep(0.05);
  }
  morph__launch_procs_signal(getpid(), SIGKILL);
  morph__sleep(0.05);
  morph__launch_child_reap(-2, &code);
  return n;
}
