/*
 * A listening socket that never waits on a peer (listener.h).
 */
#include "proto/listener.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/clock.h"
#include "morph/error.h"
#include "proto/auth.h"

int morph__listener_open(morph__listener *l, const char *addr, int any_user)
{
  memset(l, 0, sizeof *l);
  l->fd = l->reserve = -1;
  l->any_user = any_user;
  l->pend = calloc(MORPH__PENDING_MAX, sizeof *l->pend);
  if (!l->pend)
    return MORPH_ENOMEM;
  int fd = morph__listen(addr);
  if (fd < 0) {
    free(l->pend);
    l->pend = NULL;
    return fd;
  }
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  l->fd = fd;
  l->reserve = open("/dev/null", O_RDONLY | O_CLOEXEC);
  return MORPH_OK;
}

int morph__listener_fds(const morph__listener *l, struct pollfd *p, int room)
{
  int n = 0;
  if (l->fd >= 0 && n < room)
    p[n++] = (struct pollfd){.fd = l->fd, .events = POLLIN};
  for (int i = 0; i < l->npend && n < room; i++)
    p[n++] = (struct pollfd){.fd = l->pend[i].c.fd, .events = POLLIN};
  return n;
}

/* Takes pending slot i out of the list (its connection is not closed). */
static void unlist(morph__listener *l, int i)
{
  memmove(l->pend + i, l->pend + i + 1, (size_t)(l->npend - i - 1) * sizeof *l->pend);
  l->npend--;
}

/* Closes pending slot i, telling the caller who and why through out. */
static int refuse(morph__listener *l, int i, morph__conn *out, const char *why)
{
  morph__conn *c = &l->pend[i].c;
  out->fd = -1;
  snprintf(out->peer, sizeof out->peer, "%s", c->peer);
  snprintf(out->why, sizeof out->why, "%s", why ? why : c->why);
  morph__conn_close(c);
  unlist(l, i);
  l->refused++;
  return MORPH_EAUTH;
}

/* The connection of slot i, ready: blocking again, as morph__accept's are
 * (the server decides how it reads). */
static int hand_over(morph__listener *l, int i, morph__conn *out)
{
  *out = l->pend[i].c;
  unlist(l, i);
  fcntl(out->fd, F_SETFL, fcntl(out->fd, F_GETFL) & ~O_NONBLOCK);
  return 1;
}

/* Pending slot i: what has arrived, and its credential answered once its
 * line is complete. Returns 0 while it may still come. */
static int step(morph__listener *l, int i, morph__conn *out, double now)
{
  morph__pending *p = &l->pend[i];
  char line[2048];
  int rc = morph__conn_fill(&p->c, 0);
  int n = morph__conn_line(&p->c, line, sizeof line);
  if (n >= 0)
    return morph__auth_server_line(&p->c, line, l->any_user) == MORPH_OK ? hand_over(l, i, out)
                                                                          : refuse(l, i, out, NULL);
  if (rc == MORPH_ECONN)
    return refuse(l, i, out, "closed the connection before authenticating");
  if (rc == MORPH_EPROTO || p->c.len >= sizeof line)
    return refuse(l, i, out, "sent a first line too long for a credential");
  if (now > p->deadline)
    return refuse(l, i, out, "did not authenticate within 2 s");
  return 0;
}

/* Out of file descriptors: accept the newcomer with the reserve fd's slot
 * and close it at once, so the listening socket does not stay readable
 * and spin the loop. */
static int shed(morph__listener *l, morph__conn *out)
{
  close(l->reserve);
  int fd = accept4(l->fd, NULL, NULL, SOCK_CLOEXEC);
  if (fd >= 0)
    close(fd);
  l->reserve = open("/dev/null", O_RDONLY | O_CLOEXEC);
  out->fd = -1;
  snprintf(out->peer, sizeof out->peer, "?");
  snprintf(out->why, sizeof out->why, "out of file descriptors: a connection was refused");
  l->refused++;
  return MORPH_EIO;
}

/* A new TCP connection goes into a pending slot; when they are all taken,
 * the oldest is refused to make room (its refusal is returned). */
static int add_pending(morph__listener *l, morph__conn *c, morph__conn *out)
{
  int rc = 0;
  if (l->npend == MORPH__PENDING_MAX)
    rc = refuse(l, 0, out, "still not authenticated when newer connections needed its slot");
  l->pend[l->npend].c = *c;
  l->pend[l->npend++].deadline = morph__now() + MORPH__AUTH_TIMEOUT;
  return rc;
}

#define NONE_NOW 2

/* Accepts one connection. Returns 1 (a Unix one, in out), 0 (a TCP one,
 * now pending), NONE_NOW, or a refusal. */
static int accept_one(morph__listener *l, morph__conn *out)
{
  struct sockaddr_storage ss;
  socklen_t len = sizeof ss;
  int fd = accept4(l->fd, (struct sockaddr *)&ss, &len, SOCK_CLOEXEC | SOCK_NONBLOCK);
  if (fd < 0 && (errno == EMFILE || errno == ENFILE) && l->reserve >= 0)
    return shed(l, out);
  if (fd < 0)
    return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR || errno == ECONNABORTED
               ? NONE_NOW
               : (snprintf(out->why, sizeof out->why, "accept: %s", strerror(errno)),
                  out->fd = -1, MORPH_EIO);
  morph__conn c;
  morph__conn_init(&c, fd, ss.ss_family != AF_UNIX);
  if (!c.tcp) {
    morph__conn_peercred(&c);
    *out = c;
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    return 1;
  }
  /* A peer whose host vanished is noticed within about a minute, not
   * never: a relay's connection is otherwise silent for long. */
  int one = 1, idle = 30, intvl = 10, cnt = 3;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one);
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof idle);
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof intvl);
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof cnt);
  morph__conn_name_peer(&c, &ss);
  return add_pending(l, &c, out);
}

int morph__listener_take(morph__listener *l, morph__conn *out)
{
  double now = morph__now();
  /* The scan goes on where the last call of this turn stopped: a slot
   * that returned has left the list, and the next one took its index. */
  for (; l->scan < l->npend; l->scan++) {
    int rc = step(l, l->scan, out, now);
    if (rc != 0)
      return rc;
  }
  while (l->fd >= 0 && l->burst < MORPH__ACCEPT_BURST) {
    l->burst++;
    int rc = accept_one(l, out);
    if (rc == NONE_NOW)
      break;
    if (rc != 0)
      return rc;
  }
  l->burst = l->scan = 0;
  return 0;
}

void morph__listener_close(morph__listener *l)
{
  for (int i = 0; i < l->npend; i++)
    morph__conn_close(&l->pend[i].c);
  l->npend = 0;
  free(l->pend);
  l->pend = NULL;
  if (l->fd >= 0)
    close(l->fd);
  if (l->reserve >= 0)
    close(l->reserve);
  l->fd = l->reserve = -1;
}
