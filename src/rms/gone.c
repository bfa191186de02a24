/*
 * Checking on a host that a job's processes are gone (gone.h).
 */
#include "rms/gone.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/hostcmd.h"
#include "morph/error.h"

/* The check's exit status: GONE_UNKNOWN + k means host k (from 0) could
 * not be asked. */
enum { GONE_YES = 0, GONE_NO = 1, GONE_UNKNOWN = 2, GONE_HOSTS_MAX = 200 };

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
  int worst = GONE_YES, k = 0;
  for (const char *s = hosts; *s && worst != GONE_UNKNOWN; k++) {
    size_t len = strcspn(s, ",");
    snprintf(host, sizeof host, "%.*s", (int)len, s);
    int r = ask(host, script);
    worst = r > worst ? r : worst;
    s += len + (s[len] == ',');
  }
  _exit(worst == GONE_UNKNOWN ? GONE_UNKNOWN + k - 1 : worst);
}

/* Host k of the comma-separated list into g->bad ("" if there is none). */
static void name_bad(morph__gone *g, int k)
{
  const char *s = g->hosts;
  for (; k > 0 && *s; k--)
    s += strcspn(s, ",") + (s[strcspn(s, ",")] == ',');
  snprintf(g->bad, sizeof g->bad, "%.*s", (int)strcspn(s, ","), s);
}

/* A check past its time: ended with the agents it started; the reaping
 * tells the answer. */
static void stop_slow(morph__gone *g, double now)
{
  if (g->pid > 0 && now > g->ask_until) {
    kill(-g->pid, SIGKILL);
    g->ask_until = now + MORPH__GONE_ASK_S; /* once per period, until reaped */
  }
}

int morph__gone_begin(morph__gone *g, const char *hosts, double now)
{
  memset(g, 0, sizeof *g);
  g->answer = MORPH_OK;
  if (!hosts || !*hosts)
    return MORPH_OK;
  if (!hosts_ok(hosts) || strlen(hosts) >= sizeof g->hosts ||
      strlen(hosts) / 2 >= GONE_HOSTS_MAX)
    return MORPH_EINVAL;
  snprintf(g->hosts, sizeof g->hosts, "%s", hosts);
  g->answer = 1;
  g->retry_at = now;
  g->give_up_at = now + MORPH__GONE_LIMIT_S;
  return MORPH_OK;
}

void morph__gone_tick(morph__gone *g, int64_t job, double now)
{
  stop_slow(g, now);
  if (g->answer != 1 || g->pid > 0 || now < g->retry_at)
    return;
  fflush(NULL);
  pid_t p = fork();
  if (p == 0) {
    setpgid(0, 0);
    signal(SIGPIPE, SIG_DFL);
    int null = open("/dev/null", O_WRONLY); /* the agent's complaints: the answer says it */
    if (null >= 0)
      dup2(null, 2);
    child_main(g->hosts, job);
  }
  if (p < 0) {
    g->answer = MORPH_EIO;
    snprintf(g->why, sizeof g->why, "cannot start the check of %.100s: %s", g->hosts,
             strerror(errno));
    return;
  }
  setpgid(p, p); /* also here: the kill may come before the child runs */
  g->pid = p;
  g->ask_until = now + MORPH__GONE_ASK_S;
}

int morph__gone_reaped(morph__gone *g, pid_t pid, int ws, double now)
{
  if (g->pid <= 0 || pid != g->pid)
    return 0;
  g->pid = 0;
  int st = WIFEXITED(ws) ? WEXITSTATUS(ws) : -1; /* -1: killed (stop_slow) */
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
    if (st >= GONE_UNKNOWN && st < GONE_UNKNOWN + GONE_HOSTS_MAX)
      name_bad(g, st - GONE_UNKNOWN);
    else if (!strchr(g->hosts, ','))
      name_bad(g, 0); /* killed, or the agent itself failed: the one host */
    snprintf(g->why, sizeof g->why, "could not check that the job left %.80s%s%.63s%s", g->hosts,
             g->bad[0] ? " (" : "", g->bad, g->bad[0] ? " did not answer)" : "");
  }
  return 1;
}
