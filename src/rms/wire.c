/*
 * Writing to morphd's client connections and closing them: what the
 * connection reader, the job protocol, the command protocol and the
 * resizes all need, kept below them so that none of them has to call
 * back into another to answer a client.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "morph/error.h"
#include "rms/morphd.h"

/* Writes all of buf; the socket is non-blocking, so a peer that stops
 * reading for long gets dropped instead of stalling the daemon. */
static int write_all(int fd, const char *buf, size_t len)
{
  int spins = 0;
  while (len > 0) {
    ssize_t w = send(fd, buf, len, MSG_NOSIGNAL);
    if (w < 0 && (errno == EAGAIN || errno == EINTR) && spins++ < 1000) {
      usleep(1000);
      continue;
    }
    if (w <= 0)
      return MORPH_ECONN;
    buf += w, len -= (size_t)w;
  }
  return MORPH_OK;
}

int morph__wire_msg(morph__daemon *d, int i, const morph__msg *m)
{
  char line[4096];
  int n = morph__msg_encode(m, line, sizeof line);
  if (n < 0)
    return n;
  return write_all(d->clients[i].fd, line, (size_t)n);
}

int morph__wire_json(morph__daemon *d, int i, json_t *reply)
{
  char *s = json_dumps(reply, JSON_COMPACT);
  json_decref(reply);
  if (!s)
    return MORPH_ENOMEM;
  size_t n = strlen(s);
  int rc = write_all(d->clients[i].fd, s, n);
  if (rc == MORPH_OK)
    rc = write_all(d->clients[i].fd, "\n", 1);
  free(s);
  return rc;
}

void morph__wire_close(morph__daemon *d, int i)
{
  morph__client *c = &d->clients[i];
  if (c->type == MORPH__C_FREE)
    return;
  close(c->fd);
  c->fd = -1, c->type = MORPH__C_FREE, c->job = 0, c->len = 0;
}
