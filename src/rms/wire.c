/*
 * Writing to morphd's client connections and closing them: what the
 * connection reader, the job protocol, the command protocol and the
 * resizes all need, kept below them so that none of them has to call
 * back into another to answer a client.
 *
 * Nothing here waits for a peer: a line is sealed (TCP), sent as far as
 * the socket takes it now, and the rest waits in the client's output
 * queue until the loop sees the socket writable. A peer that leaves more
 * than MORPH__OUT_MAX bytes unread is closed.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "morph/error.h"
#include "rms/morphd.h"

int morph__wire_flush(morph__daemon *d, int i)
{
  morph__client *c = &d->clients[i];
  size_t off = 0;
  while (off < c->olen) {
    ssize_t w = send(c->fd, c->out + off, c->olen - off, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (w < 0 && errno == EINTR)
      continue;
    if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
      break;
    if (w <= 0)
      return MORPH_ECONN;
    off += (size_t)w;
  }
  memmove(c->out, c->out + off, c->olen - off);
  c->olen -= off;
  return MORPH_OK;
}

/* The peer is gone or does not read: the loop closes it at the end of
 * this turn (the caller may still be using the slot). */
static int dead(morph__client *c)
{
  c->dead = 1;
  return MORPH_ECONN;
}

/* Queues one sealed line and sends what the peer takes now. */
static int put_line(morph__daemon *d, int i, const char *payload, size_t n)
{
  morph__client *c = &d->clients[i];
  size_t need = c->olen + n + MORPH__SEAL_OVERHEAD + 2;
  if (need > MORPH__OUT_MAX) {
    morph__say(&d->log, 0, "a client (uid %ld, %s) leaves %zu bytes unread; closed", (long)c->uid,
               c->peer, c->olen);
    return dead(c);
  }
  if (need > c->ocap) {
    size_t cap = need > 2 * c->ocap ? need : 2 * c->ocap;
    char *v = realloc(c->out, cap);
    if (!v)
      return MORPH_ENOMEM;
    c->out = v, c->ocap = cap;
  }
  int len = morph__seal_line(&c->seal, payload, n, c->out + c->olen, c->ocap - c->olen);
  if (len < 0)
    return len;
  c->olen += (size_t)len;
  return morph__wire_flush(d, i) == MORPH_OK ? MORPH_OK : dead(c);
}

int morph__wire_msg(morph__daemon *d, int i, const morph__msg *m)
{
  char line[4096];
  int n = morph__msg_encode(m, line, sizeof line);
  if (n < 0)
    return n;
  return put_line(d, i, line, (size_t)n - 1); /* without its '\n' */
}

int morph__wire_json(morph__daemon *d, int i, json_t *reply)
{
  char *s = json_dumps(reply, JSON_COMPACT);
  json_decref(reply);
  if (!s)
    return MORPH_ENOMEM;
  int rc = put_line(d, i, s, strlen(s));
  free(s);
  return rc;
}

void morph__wire_close(morph__daemon *d, int i)
{
  morph__client *c = &d->clients[i];
  if (c->type == MORPH__C_FREE)
    return;
  if (c->olen)
    morph__wire_flush(d, i); /* a last answer (shutdown's) still goes out */
  close(c->fd);
  morph__seal_end(&c->seal);
  free(c->out);
  c->out = NULL, c->ocap = c->olen = 0;
  c->fd = -1, c->type = MORPH__C_FREE, c->job = 0, c->len = 0, c->dead = 0;
}
