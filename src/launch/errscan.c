#include "errscan.h"

#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "morph/error.h"

#define ABORT_HEAD "MPI_ABORT was invoked on rank "
#define ABORT_CODE "with errorcode "

/* Lines of Open MPI's report boxes, and empty ones, say nothing of their
 * own about what went wrong. */
static int box_line(const char *l)
{
  return !l[0] || l[0] == '-' || l[0] == '[' || !strncmp(l, "NOTE:", 5) ||
         !strncmp(l, "You may", 7) || !strncmp(l, "exactly when", 12);
}

void morph__launch_errscan_line(struct morph__launch_errscan *s, const char *l)
{
  const char *p = strstr(l, ABORT_HEAD);
  if (p) {
    s->rank = atoi(p + strlen(ABORT_HEAD));
    return;
  }
  p = strstr(l, ABORT_CODE);
  if (p && s->rank >= 0 && !s->found[0]) {
    snprintf(s->found, sizeof s->found, "rank %d called MPI_Abort (error code %d)%s%.300s",
             s->rank, atoi(p + strlen(ABORT_CODE)), s->before[0] ? " after: " : "", s->before);
    return;
  }
  if (!box_line(l) && !strstr(l, "MPI_ABORT") && !strstr(l, "errorcode"))
    snprintf(s->before, sizeof s->before, "%s", l);
}

/* Relays a chunk and scans its complete lines. */
static void take(struct morph__launch_errscan *s, const char *buf, size_t n)
{
  size_t off = 0;
  while (off < n) {
    ssize_t w = write(2, buf + off, n - off);
    if (w <= 0)
      break;
    off += (size_t)w;
  }
  pthread_mutex_lock(&s->lock);
  for (size_t i = 0; i < n; i++) {
    if (buf[i] != '\n' && s->len + 1 < sizeof s->line) {
      s->line[s->len++] = buf[i];
      continue;
    }
    s->line[s->len] = '\0';
    morph__launch_errscan_line(s, s->line);
    s->len = 0;
  }
  pthread_mutex_unlock(&s->lock);
}

/* Polls, so that a stop is seen even while a descendant of mpirun that
 * outlived it keeps the pipe open. */
static void *relay(void *arg)
{
  struct morph__launch_errscan *s = arg;
  char buf[4096];
  for (int drained = 0;;) {
    struct pollfd p = {s->rfd, POLLIN, 0};
    int ready = poll(&p, 1, 200);
    if (s->stop && (ready <= 0 || ++drained > 64))
      break;
    if (ready <= 0)
      continue;
    ssize_t n = read(s->rfd, buf, sizeof buf);
    if (n <= 0 && s->stop)
      break;
    if (n > 0)
      take(s, buf, (size_t)n);
  }
  return NULL;
}

int morph__launch_errscan_open(struct morph__launch_errscan *s)
{
  int fd[2];
  memset(s, 0, sizeof *s);
  s->rfd = s->wfd = -1;
  s->rank = -1;
  if (pipe2(fd, O_CLOEXEC) != 0)
    return MORPH_EIO;
  s->rfd = fd[0], s->wfd = fd[1];
  pthread_mutex_init(&s->lock, NULL);
  if (pthread_create(&s->thread, NULL, relay, s) != 0) {
    close(s->rfd), close(s->wfd);
    pthread_mutex_destroy(&s->lock);
    s->rfd = s->wfd = -1;
    return MORPH_EIO;
  }
  s->running = 1;
  return MORPH_OK;
}

int morph__launch_errscan_fd(const struct morph__launch_errscan *s)
{
  return s->running ? s->wfd : -1;
}

void morph__launch_errscan_reset(struct morph__launch_errscan *s)
{
  if (!s->running)
    return;
  pthread_mutex_lock(&s->lock);
  s->rank = -1;
  s->found[0] = s->before[0] = '\0';
  pthread_mutex_unlock(&s->lock);
}

int morph__launch_errscan_abort(struct morph__launch_errscan *s, char *buf, size_t size)
{
  if (!s->running)
    return 0;
  pthread_mutex_lock(&s->lock);
  int seen = s->found[0] != '\0';
  if (seen)
    snprintf(buf, size, "%s", s->found);
  pthread_mutex_unlock(&s->lock);
  return seen;
}

void morph__launch_errscan_close(struct morph__launch_errscan *s)
{
  if (!s->running)
    return;
  close(s->wfd);
  s->stop = 1;
  pthread_join(s->thread, NULL);
  close(s->rfd);
  pthread_mutex_destroy(&s->lock);
  s->running = 0;
  s->rfd = s->wfd = -1;
}
