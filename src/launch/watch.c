#include "watch.h"

#include <errno.h>
#include <netdb.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/hostcmd.h"
#include "common/hostfile.h"
#include "morph/error.h"

#define WEEK_S (7 * 24 * 3600.0)

static int is_here(const char *host)
{
  char me[256];
  if (!strcmp(host, "localhost") || !strcmp(host, "127.0.0.1"))
    return 1;
  if (gethostname(me, sizeof me) != 0)
    return 0;
  me[sizeof me - 1] = '\0';
  size_t short_len = strcspn(me, ".");
  return !strcmp(host, me) || (strlen(host) == short_len && !strncmp(host, me, short_len));
}

/* The host has an address (hosts file, DNS): a typo in a hostfile is
 * reported at start, not as a job that hangs at its first resize. */
static int known(const char *host)
{
  struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *res = NULL;
  int ok = getaddrinfo(host, NULL, &hints, &res) == 0;
  if (res)
    freeaddrinfo(res);
  return ok;
}

static int add_host(struct morph__launch_watch *w, const char *name)
{
  for (int i = 0; i < w->n; i++)
    if (!strcmp(w->h[i].name, name))
      return MORPH_OK;
  struct morph__launch_host *h = realloc(w->h, (size_t)(w->n + 1) * sizeof *h);
  if (!h)
    return MORPH_ENOMEM;
  w->h = h;
  h += w->n++;
  memset(h, 0, sizeof *h);
  snprintf(h->name, sizeof h->name, "%s", name);
  h->fd = -1;
  h->count = -1;
  h->seen = -1;
  h->ended = -1;
  return MORPH_OK;
}

/* The hosts, in the file's order; *remote set if one is not this host. */
static int read_hosts(struct morph__launch_watch *w, const char *path, int *remote, char *err,
                      size_t errsize)
{
  FILE *f = fopen(path, "r");
  if (!f) {
    snprintf(err, errsize, "cannot read the hostfile %s: %s", path, strerror(errno));
    return MORPH_EIO;
  }
  char line[1024], why[128];
  struct morph__hostline h;
  int rc = MORPH_OK;
  for (int no = 1; rc == MORPH_OK && fgets(line, sizeof line, f); no++) {
    int k = morph__hostline_parse(line, &h, why, sizeof why);
    const char *s = h.host;
    if (k == 0)
      continue;
    if (k < 0) {
      snprintf(err, errsize, "%s:%d: %s", path, no, why);
      rc = MORPH_EINVAL;
    } else if (!morph__host_name_ok(s, strlen(s))) {
      snprintf(err, errsize, "%s:%d: host name '%.64s' is not [A-Za-z0-9.-]{1,63}", path, no, s);
      rc = MORPH_EINVAL;
    } else if (!known(s)) {
      snprintf(err, errsize, "%s:%d: unknown host '%s' (no address for it)", path, no, s);
      rc = MORPH_ENOENT;
    } else if ((rc = add_host(w, s)) == MORPH_OK && !is_here(s)) {
      *remote = 1;
    }
  }
  fclose(f);
  return rc;
}

/* pgrep narrows /proc to the program's name (its first 15 bytes, as the
 * kernel keeps it) before the per-process tests of hostcmd.h. */
static int make_script(struct morph__launch_watch *w, const char *job, const char *exe,
                       double limit_s, char *err, size_t errsize)
{
  char test[1024];
  const char *base = strrchr(exe, '/') ? strrchr(exe, '/') + 1 : exe;
  if (morph__host_job_test(test, sizeof test, job, exe) != MORPH_OK) {
    snprintf(err, errsize, "cannot watch job %.64s of %.200s on other hosts: only "
             "[A-Za-z0-9._/+-] can be passed to their shell", job, exe);
    return MORPH_EINVAL;
  }
  long rounds = (long)(limit_s > 0 ? limit_s + 60 : WEEK_S);
  snprintf(w->script, sizeof w->script,
           "i=0; while [ $i -lt %ld ]; do n=0; for p in $(pgrep -x \"%.15s\"); do d=/proc/$p; "
           "%s && n=$((n+1)); done; echo $n || exit 0; sleep 1; i=$((i+1)); done",
           rounds, base, test);
  return MORPH_OK;
}

int morph__launch_watch_open(struct morph__launch_watch *w, const char *hostfile, const char *job,
                             const char *exe, double limit_s, char *err, size_t errsize)
{
  memset(w, 0, sizeof *w);
  int remote = 0;
  int rc = read_hosts(w, hostfile, &remote, err, errsize);
  if (rc == MORPH_OK && remote)
    rc = make_script(w, job, exe, limit_s, err, errsize);
  if (rc != MORPH_OK || !remote)
    morph__launch_watch_close(w);
  return rc;
}

int morph__launch_watch_add(struct morph__launch_watch *w, const char *host, const char *job,
                            const char *exe, double limit_s, char *err, size_t errsize)
{
  char me[256];
  if (!morph__host_name_ok(host, strlen(host))) {
    snprintf(err, errsize, "host name '%.64s' is not [A-Za-z0-9.-]{1,63}", host);
    return MORPH_EINVAL;
  }
  if (w->n == 0 && is_here(host))
    return MORPH_OK; /* still this host alone: /proc is enough */
  if (!known(host)) {
    snprintf(err, errsize, "unknown host '%s' (no address for it)", host);
    return MORPH_ENOENT;
  }
  if (w->n > 0 && add_host(w, host) != MORPH_OK) {
    snprintf(err, errsize, "out of memory");
    return MORPH_ENOMEM;
  }
  if (w->n > 0)
    return MORPH_OK;
  if (gethostname(me, sizeof me) != 0)
    me[0] = '\0';
  me[sizeof me - 1] = '\0';
  if (!morph__host_name_ok(me, strlen(me))) {
    snprintf(err, errsize, "cannot watch this host beside %s: no usable host name", host);
    return MORPH_EINVAL;
  }
  int rc = make_script(w, job, exe, limit_s, err, errsize);
  if (rc == MORPH_OK && ((rc = add_host(w, me)) != MORPH_OK || (rc = add_host(w, host)) != MORPH_OK))
    snprintf(err, errsize, "out of memory");
  if (rc != MORPH_OK)
    morph__launch_watch_close(w);
  return rc;
}

static void start(struct morph__launch_watch *w, struct morph__launch_host *h, double now)
{
  h->start_at = now + MORPH__WATCH_RETRY_S;
  if (h->seen < 0)
    h->seen = now;
  h->len = 0;
  pid_t p = morph__host_run(h->name, w->script, &h->fd);
  h->pid = p > 0 ? p : 0;
}

static void session_ended(struct morph__launch_host *h, double now)
{
  h->ended = now;
  close(h->fd);
  h->fd = -1;
  h->pid = 0; /* reaped by the launch's waitpid(-1) */
}

static void read_lines(struct morph__launch_host *h, double now)
{
  char c;
  ssize_t n;
  while ((n = read(h->fd, &c, 1)) == 1) {
    if (c != '\n') {
      if (h->len < (int)sizeof h->buf - 1)
        h->buf[h->len++] = c;
      continue;
    }
    h->buf[h->len] = '\0';
    char *end;
    long v = strtol(h->buf, &end, 10);
    if (h->len > 0 && *end == '\0' && v >= 0) {
      h->count = (int)v;
      h->seen = now;
    }
    h->len = 0;
  }
  if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
    session_ended(h, now);
}

void morph__launch_watch_poll(struct morph__launch_watch *w, double now)
{
  for (int i = 0; i < w->n; i++) {
    struct morph__launch_host *h = &w->h[i];
    if (h->fd >= 0)
      read_lines(h, now);
    if (h->fd < 0 && now >= h->start_at)
      start(w, h, now);
  }
}

int morph__launch_watch_count(const struct morph__launch_watch *w, double now, char *why,
                              size_t whysize)
{
  int total = 0, unknown = 0;
  size_t used = 0;
  why[0] = '\0';
  for (int i = 0; i < w->n; i++) {
    const struct morph__launch_host *h = &w->h[i];
    int silent = h->seen < 0 || now - h->seen > MORPH__WATCH_SILENT_S;
    if (h->count < 0 && !silent)
      unknown = 1;
    int c = silent || h->count < 0 ? 0 : h->count;
    total += c;
    if (used < whysize) {
      int k = silent ? snprintf(why + used, whysize - used, "%s%s: no answer for %g s",
                                used ? ", " : "", h->name, MORPH__WATCH_SILENT_S)
                     : snprintf(why + used, whysize - used, "%s%s: %d", used ? ", " : "",
                                h->name, c);
      used += k > 0 ? (size_t)k : 0;
    }
  }
  return unknown ? -1 : total;
}

/* Appends NAME to the list in buf ("node3, node4"), of which `used`
 * bytes are taken; a name that does not fit whole is left out. */
static void list_add(char *buf, size_t size, size_t *used, const char *name)
{
  int k = snprintf(buf + *used, size - *used, "%s%s", *used ? ", " : "", name);
  if (k > 0 && (size_t)k < size - *used)
    *used += (size_t)k;
  else
    buf[*used] = '\0';
}

int morph__launch_watch_idle_lost(const struct morph__launch_watch *w, double now, char *names,
                                  size_t size)
{
  int idle = 0;
  size_t used = 0;
  names[0] = '\0';
  for (int i = 0; i < w->n; i++) {
    const struct morph__launch_host *h = &w->h[i];
    int gone = h->ended > h->seen; /* its session ended, no count since */
    if (h->seen < 0 || (now - h->seen <= MORPH__WATCH_SILENT_S && !gone))
      continue;
    if (h->count != 0)
      return 0; /* lost with the job's processes, or before it ever answered */
    idle++;
    list_add(names, size, &used, h->name);
  }
  return idle;
}

int morph__launch_watch_silent(const struct morph__launch_watch *w, double since, char *buf,
                               size_t size)
{
  int n = 0;
  size_t used = 0;
  buf[0] = '\0';
  for (int i = 0; i < w->n; i++) {
    if (w->h[i].seen >= since)
      continue;
    n++;
    list_add(buf, size, &used, w->h[i].name);
  }
  return n;
}

/* The session has had WAIT_S to end after SIGTERM (ssh ends at once):
 * then it is not counted among the job's leftovers. */
static void end_session(struct morph__launch_host *h)
{
  if (h->pid > 0 && kill(h->pid, SIGTERM) == 0)
    for (int t = 0; t < 100 && waitpid(h->pid, NULL, WNOHANG) == 0; t++)
      usleep(10000);
  close(h->fd);
  h->fd = -1;
  h->pid = 0;
}

/* 1 if `name` is one of the comma-separated names of `list`. */
static int listed(const char *list, const char *name)
{
  size_t n = strlen(name);
  for (const char *p = list; *p; p += strcspn(p, ","), p += *p == ',') {
    p += strspn(p, " ");
    if (strncmp(p, name, n) == 0 && (p[n] == ',' || p[n] == '\0' || p[n] == ' '))
      return 1;
  }
  return 0;
}

int morph__launch_watch_drop(struct morph__launch_watch *w, const char *names)
{
  int k = 0;
  for (int i = 0; i < w->n; i++) {
    if (!listed(names, w->h[i].name)) {
      w->h[k++] = w->h[i];
      continue;
    }
    if (w->h[i].fd >= 0)
      end_session(&w->h[i]);
  }
  int dropped = w->n - k;
  w->n = k;
  return dropped;
}

void morph__launch_watch_close(struct morph__launch_watch *w)
{
  for (int i = 0; i < w->n; i++)
    if (w->h[i].fd >= 0)
      end_session(&w->h[i]);
  free(w->h);
  w->h = NULL;
  w->n = 0;
}
