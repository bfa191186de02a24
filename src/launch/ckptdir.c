#include "ckptdir.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/hostcmd.h"
#include "common/safedir.h"
#include "morph/error.h"

#define ASK_LIMIT_S 15

/* Waits for the hosts' answers: exit status 0 (seen), else not seen; ok[i]
 * 1, 0, or -1 (no answer in time: the child is killed). */
static void collect(pid_t *p, int *ok, int n)
{
  struct timespec nap = {0, 20 * 1000 * 1000};
  int left = n;
  for (long k = 0; left > 0 && k < ASK_LIMIT_S * 50L; k++) {
    nanosleep(&nap, NULL);
    for (int i = 0; i < n; i++) {
      int st;
      if (p[i] > 0 && waitpid(p[i], &st, WNOHANG) == p[i])
        ok[i] = WIFEXITED(st) && WEXITSTATUS(st) == 0, p[i] = 0, left--;
    }
  }
  for (int i = 0; i < n; i++)
    if (p[i] > 0)
      kill(p[i], SIGKILL), waitpid(p[i], NULL, 0), ok[i] = -1;
}

/* The hosts of the job that do not see `marker`, comma-separated in bad;
 * those that did not answer in `silent`. */
static void ask_hosts(const struct morph__launch_watch *w, const char *marker, char *bad,
                      char *silent, size_t size)
{
  pid_t *p = calloc((size_t)w->n + 1, sizeof *p);
  int *ok = calloc((size_t)w->n + 1, sizeof *ok);
  char script[PATH_MAX + 16];
  snprintf(script, sizeof script, "test -e \"%s\"", marker);
  bad[0] = silent[0] = '\0';
  for (int i = 0; p && ok && i < w->n; i++)
    p[i] = morph__host_run(w->h[i].name, script, NULL);
  if (p && ok)
    collect(p, ok, w->n);
  for (int i = 0; p && ok && i < w->n; i++) {
    char *to = ok[i] == 0 ? bad : ok[i] < 0 ? silent : NULL;
    if (to && strlen(to) + strlen(w->h[i].name) + 3 < size)
      snprintf(to + strlen(to), size - strlen(to), "%s%s", to[0] ? ", " : "", w->h[i].name);
  }
  free(p);
  free(ok);
}

/* Every host of the job must see a file written here. */
static int check_hosts(const struct morph__launch_watch *w, const char *dir, morph__sayer *log)
{
  char marker[PATH_MAX], bad[256], silent[256];
  snprintf(marker, sizeof marker, "%s/.morph-run-check-%ld", dir, (long)getpid());
  int fd = open(marker, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
  if (fd < 0) {
    morph__say(log, 0, "checkpoint folder %s: cannot write in it (%s)", dir, strerror(errno));
    return MORPH_EINVAL;
  }
  close(fd);
  ask_hosts(w, marker, bad, silent, sizeof bad);
  unlink(marker);
  if (silent[0])
    morph__say(log, 0, "checkpoint folder %s: not checked on %s (no answer in %d s)", dir,
               silent, ASK_LIMIT_S);
  if (!bad[0])
    return MORPH_OK;
  morph__say(log, 0, "checkpoint folder %s is not the same folder on %s: a file written "
             "here is not there, and a relaunched process may start on any host of the job "
             "(give --checkpoint-dir a folder every host sees)", dir, bad);
  return MORPH_EINVAL;
}

int morph__launch_ckptdir_check(const char *dir, const struct morph__launch_watch *w,
                                morph__sayer *log)
{
  char why[256];
  if (!dir || !*dir)
    return MORPH_OK;
  morph__dir_usable(dir, why, sizeof why);
  if (why[0]) {
    morph__say(log, 0, "checkpoint folder %s %s: a relaunch could not write the job's data "
               "there, or not safely (make a folder of your own, or name another with "
               "--checkpoint-dir)", dir, why);
    return MORPH_EINVAL;
  }
  if (w->n == 0 || !morph__host_word_ok(dir))
    return MORPH_OK;
  return check_hosts(w, dir, log);
}
