/*
 * A connection's bytes: writing, buffered reading, whole lines, closing
 * (transport.h). Below both transport.c and auth.c, which use it.
 */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "morph/error.h"
#include "proto/transport.h"

int morph__conn_write(morph__conn *c, const char *buf, size_t n)
{
  for (size_t off = 0; off < n;) {
    ssize_t w = send(c->fd, buf + off, n - off, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      return MORPH_ECONN;
    off += (size_t)w;
  }
  return MORPH_OK;
}

int morph__conn_fill(morph__conn *c, double timeout)
{
  if (c->fd < 0)
    return MORPH_ECONN;
  if (c->len == sizeof c->buf)
    return MORPH_EPROTO;
  struct pollfd p = {.fd = c->fd, .events = POLLIN};
  int ms = timeout < 0 ? -1 : (int)(timeout * 1000.0);
  int r = poll(&p, 1, ms);
  if (r < 0)
    return errno == EINTR ? 0 : MORPH_ECONN;
  if (r == 0)
    return 0;
  ssize_t n = recv(c->fd, c->buf + c->len, sizeof c->buf - c->len, 0);
  if (n < 0)
    return errno == EINTR || errno == EAGAIN ? 0 : MORPH_ECONN;
  if (n == 0)
    return MORPH_ECONN;
  c->len += (size_t)n;
  return 1;
}

int morph__conn_line(morph__conn *c, char *line, size_t size)
{
  char *nl = memchr(c->buf, '\n', c->len);
  if (!nl || (size_t)(nl - c->buf) >= size)
    return -1;
  size_t n = (size_t)(nl - c->buf);
  memcpy(line, c->buf, n);
  line[n] = '\0';
  memmove(c->buf, nl + 1, c->len - n - 1);
  c->len -= n + 1;
  return (int)n;
}

void morph__conn_close(morph__conn *c)
{
  if (c->fd >= 0)
    close(c->fd);
  c->fd = -1;
  c->len = 0;
}
