/*
 * Checking on a host that a job's processes are gone (gone.h).
 */
#include "rms/gone.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/hostcmd.h"
#include "morph/error.h"

enum { GONE_YES = 0, GONE_NO = 1, GONE_UNKNOWN = 2 };

static int hosts_ok(const char *hosts)
{
  if (!hosts || !*hosts)
    return 0;
  for (const char *s = hosts; *s;) {
    size_t len = strcspn(s, ",");
    if (!morph__host_name_ok(s, len))
      return 0;
    s += len + (s[len] == ',');
  }
  return 1;
}

/* In the child: asks one host; its exit status as GONE_*. */
static int ask(const char *host, const char *script)
{
  pid_t p = morph__host_run(host, script, NULL);
  int ws;
  if (p < 0 || waitpid(p, &ws, 0) != p || !WIFEXITED(ws))
    return GONE_UNKNOWN;
  int st = WEXITSTATUS(ws);
  return st == 0 ? GONE_YES : st == 1 ? GONE_NO : GONE_UNKNOWN;
}

/* Run by bash on each host: exit 1 if a process of the job is there. */
static void child_main(const char *hosts, int64_t job)
{
  char id[32], test[512], script[640], host[64];
  snprintf(id, sizeof id, "%lld", (long long)job);
  morph__host_job_test(test, sizeof test, id, NULL);
  snprintf(script, sizeof script, "for d in /proc/[0-9]*; do %s && exit 1; done; exit 0", test);
  int worst = GONE_YES;
  for (const char *s = hosts; *s && worst != GONE_UNKNOWN;) {
    size_t len = strcspn(s, ",");
    snprintf(host, sizeof host, "%.*s", (int)len, s);
    int r = ask(host, script);
    worst = r > worst ? r : worst;
    s += len + (s[len] == ',');
  }
  _exit(worst);
}

int morph__gone_begin(morph__gone *g, const char *hosts, double now)
{
  memset(g, 0, sizeof *g);
  g->answer = MORPH_OK;
  if (!hosts || !*hosts)
    return MORPH_OK;
  if (!hosts_ok(hosts) || strlen(hosts) >= sizeof g->hosts)
    return MORPH_EINVAL;
  snprintf(g->hosts, sizeof g->hosts, "%s", hosts);
  g->answer = 1;
  g->retry_at = now;
  g->give_up_at = now + MORPH__GONE_LIMIT_S;
  return MORPH_OK;
}

void morph__gone_tick(morph__gone *g, int64_t job, double now)
{
  if (g->answer != 1 || g->pid > 0 || now < g->retry_at)
    return;
  fflush(NULL);
  pid_t p = fork();
  if (p == 0) {
    signal(SIGPIPE, SIG_DFL);
    child_main(g->hosts, job);
  }
  if (p < 0) {
    g->answer = MORPH_EIO;
    snprintf(g->why, sizeof g->why, "cannot start the check of %.100s: %s", g->hosts,
             strerror(errno));
    return;
  }
  g->pid = p;
}

int morph__gone_reaped(morph__gone *g, pid_t pid, int ws, double now)
{
  if (g->pid <= 0 || pid != g->pid)
    return 0;
  g->pid = 0;
  int st = WIFEXITED(ws) ? WEXITSTATUS(ws) : GONE_UNKNOWN;
  if (st == GONE_YES) {
    g->answer = MORPH_OK;
  } else if (st == GONE_NO && now < g->give_up_at) {
    g->retry_at = now + MORPH__GONE_RETRY_S;
  } else if (st == GONE_NO) {
    g->answer = MORPH_EBUSY;
    snprintf(g->why, sizeof g->why, "processes of the job still on %.100s after %g s", g->hosts,
             MORPH__GONE_LIMIT_S);
  } else {
    g->answer = MORPH_EIO;
    snprintf(g->why, sizeof g->why, "could not check that the job left %.100s", g->hosts);
  }
  return 1;
}
