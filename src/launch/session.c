#include "session.h"

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <glob.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/hostcmd.h"
#include "common/hostfile.h"
#include "morph/error.h"

#define MAX_HOSTS 512

/* The folder morph run's temporary entries go in, and this host's name
 * as they spell it. */
static const char *tmp_base(void)
{
  const char *tmp = getenv("TMPDIR");
  return tmp && tmp[0] == '/' && morph__host_word_ok(tmp) ? tmp : "/tmp";
}

static void short_host(char *host, size_t size)
{
  host[0] = '\0';
  if (gethostname(host, size - 1) != 0 || !morph__host_word_ok(host))
    snprintf(host, size, "host");
  host[strcspn(host, ".")] = '\0';
}

int morph__launch_session_name(char *out, size_t size)
{
  const char *tmp = tmp_base();
  char host[256];
  short_host(host, sizeof host);
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

/* The pid in a name "<prefix><pid>-<rest>" of this user's folder (not a
 * link) whose process is gone, else 0. */
static long dead_owner(const char *dir, const char *name, const char *prefix)
{
  size_t n = strlen(prefix);
  char *end;
  if (strncmp(name, prefix, n) != 0)
    return 0;
  long pid = strtol(name + n, &end, 10);
  if (pid <= 0 || end == name + n || *end != '-')
    return 0;
  char path[PATH_MAX];
  struct stat st;
  snprintf(path, sizeof path, "%s/%s", dir, name);
  if (lstat(path, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != getuid())
    return 0;
  return kill((pid_t)pid, 0) != 0 && errno == ESRCH ? pid : 0;
}

int morph__launch_session_sweep(void)
{
  const char *tmp = tmp_base();
  char host[256], session[300], path[PATH_MAX];
  short_host(host, sizeof host);
  snprintf(session, sizeof session, "morph-%s-", host);
  DIR *d = opendir(tmp);
  struct dirent *e;
  int n = 0;
  while (d && (e = readdir(d)))
    if (dead_owner(tmp, e->d_name, "morph-run-") || dead_owner(tmp, e->d_name, session)) {
      snprintf(path, sizeof path, "%s/%s", tmp, e->d_name);
      morph__launch_session_remove_here(path);
      n++;
    }
  if (d)
    closedir(d);
  return n;
}

int morph__launch_session_note_jobs(const char *base, struct morph__launch_shm *shm)
{
  glob_t g;
  char pat[PATH_MAX];
  if (!base || !*base)
    return 0;
  snprintf(pat, sizeof pat, "%.3900s/ompi.*/pid.*/pmix_dstor_*/smlockseg-*", base);
  if (glob(pat, 0, NULL, &g) != 0)
    return 0;
  int added = 0;
  for (size_t i = 0; i < g.gl_pathc; i++) {
    unsigned fam = (unsigned)(strtoul(strrchr(g.gl_pathv[i], '-') + 1, NULL, 10) >> 16);
    int k = 0;
    while (k < shm->n && shm->fam[k] != fam)
      k++;
    if (k == shm->n && shm->n < MORPH__LAUNCH_SHM_MAX && fam)
      shm->fam[shm->n++] = fam, added++;
  }
  globfree(&g);
  return added;
}

/* The pattern of one job family's segments, "<dir>/vader_segment.<host>.
 * <uid>.<family><local job: 4 hex digits>.<rank>", with any host. */
static void segment_pattern(char *out, size_t size, const char *dir, unsigned fam)
{
  snprintf(out, size, "%s/vader_segment.*.%u.%x????.*", dir, (unsigned)getuid(), fam);
}

void morph__launch_session_remove_segments(const struct morph__launch_shm *shm)
{
  glob_t g;
  char pat[128];
  for (int i = 0; i < shm->n; i++) {
    segment_pattern(pat, sizeof pat, "/dev/shm", shm->fam[i]);
    if (glob(pat, 0, NULL, &g) != 0)
      continue;
    for (size_t k = 0; k < g.gl_pathc; k++)
      unlink(g.gl_pathv[k]);
    globfree(&g);
  }
}

/* The shell command that removes base and the segments on another host. */
static void remove_script(const char *base, const struct morph__launch_shm *shm, char *out,
                          size_t size)
{
  size_t n = 0;
  for (int i = 0; shm && i < shm->n && n < size; i++) {
    char pat[128];
    segment_pattern(pat, sizeof pat, "/dev/shm", shm->fam[i]);
    n += (size_t)snprintf(out + n, size - n, "rm -f %s; ", pat);
  }
  if (n < size)
    snprintf(out + n, size - n, "rm -rf -- \"%s\"", base);
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

int morph__launch_session_remove(const char *base, const char *hostfile,
                                 const struct morph__launch_shm *shm, double limit_s)
{
  morph__launch_session_remove_here(base);
  if (shm)
    morph__launch_session_remove_segments(shm);
  if (!hostfile || !base || !morph__host_word_ok(base))
    return 0;
  char script[2048];
  remove_script(base, shm, script, sizeof script);
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
