#include "session.h"

#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/hostcmd.h"
#include "common/hostfile.h"
#include "morph/error.h"

#define MAX_HOSTS 512

int morph__launch_session_name(char *out, size_t size)
{
  const char *tmp = getenv("TMPDIR");
  if (!tmp || tmp[0] != '/' || !morph__host_word_ok(tmp))
    tmp = "/tmp";
  char host[256] = "";
  if (gethostname(host, sizeof host - 1) != 0 || !morph__host_word_ok(host))
    snprintf(host, sizeof host, "host");
  host[strcspn(host, ".")] = '\0';
  /* A random part: another user who guesses the name cannot make the
   * folder first (Open MPI puts its session files there). */
  unsigned r = (unsigned)getpid() * 2654435761u;
  if (getrandom(&r, sizeof r, 0) != (ssize_t)sizeof r)
    r ^= (unsigned)time(NULL);
  int n = snprintf(out, size, "%s/morph-%s-%ld-%08x", tmp, host, (long)getpid(), r);
  return n > 0 && (size_t)n < size ? MORPH_OK : MORPH_EINVAL;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
  (void)st, (void)flag, (void)ftw;
  remove(path);
  return 0;
}

void morph__launch_session_remove_here(const char *base)
{
  if (base && *base)
    nftw(base, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Starts the removal on every host of the hostfile; their pids in p. */
static int start_all(const char *hostfile, const char *script, pid_t *p)
{
  FILE *f = fopen(hostfile, "r");
  char line[1024], why[128];
  int n = 0;
  struct morph__hostline h;
  while (f && n < MAX_HOSTS && fgets(line, sizeof line, f))
    if (morph__hostline_parse(line, &h, why, sizeof why) == 1 &&
        morph__host_name_ok(h.host, strlen(h.host)) && (p[n] = morph__host_run(h.host, script, NULL)) > 0)
      n++;
  if (f)
    fclose(f);
  return n;
}

int morph__launch_session_remove(const char *base, const char *hostfile, double limit_s)
{
  morph__launch_session_remove_here(base);
  if (!hostfile || !base || !morph__host_word_ok(base))
    return 0;
  char script[512];
  snprintf(script, sizeof script, "rm -rf -- \"%s\"", base);
  pid_t p[MAX_HOSTS];
  int n = start_all(hostfile, script, p), left = n, failed = 0;
  struct timespec nap = {0, 20 * 1000 * 1000};
  for (long waited = 0; left > 0 && waited < (long)(limit_s * 50); waited++) {
    nanosleep(&nap, NULL);
    for (int i = 0; i < n; i++) {
      int st;
      if (p[i] > 0 && waitpid(p[i], &st, WNOHANG) == p[i]) {
        failed += !WIFEXITED(st) || WEXITSTATUS(st) != 0;
        p[i] = 0, left--;
      }
    }
  }
  for (int i = 0; i < n; i++)
    if (p[i] > 0) {
      kill(p[i], SIGKILL);
      waitpid(p[i], NULL, 0);
    }
  return failed + left;
}
