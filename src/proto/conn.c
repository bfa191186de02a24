/*
 * A connection's bytes: writing, buffered reading, whole lines, closing
 * (transport.h). Below both transport.c and auth.c, which use it.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
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

int morph__conn_send_line(morph__conn *c, const char *payload, size_t n)
{
  char stack[4096], *line = stack;
  size_t size = n + MORPH__SEAL_OVERHEAD + 2;
  if (size > sizeof stack && !(line = malloc(size)))
    return MORPH_ENOMEM;
  int len = morph__seal_line(&c->seal, payload, n, line, size);
  int rc = len < 0 ? len : morph__conn_write(c, line, (size_t)len);
  if (line != stack)
    free(line);
  return rc;
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
  const char *payload;
  if (!nl)
    return -1;
  size_t n = (size_t)(nl - c->buf);
  size_t head = c->seal.on && n >= MORPH__SEAL_OVERHEAD ? MORPH__SEAL_OVERHEAD : 0;
  if (n - head >= size)
    return -1; /* checked first: opening counts the line as received */
  int len = morph__seal_open(&c->seal, c->buf, n, &payload);
  if (len == MORPH_EAUTH)
    return MORPH_EAUTH; /* left in the buffer: the caller closes */
  memcpy(line, payload, (size_t)len);
  line[len] = '\0';
  memmove(c->buf, nl + 1, c->len - n - 1);
  c->len -= n + 1;
  return len;
}

void morph__conn_close(morph__conn *c)
{
  if (c->fd >= 0)
    close(c->fd);
  c->fd = -1;
  c->len = 0;
  morph__seal_end(&c->seal);
}
