/*
 * Client connections on morphd's one socket. The first line of a
 * connection says who is speaking: a JSON object with "cmd" is a morph
 * command (cli_srv.c), anything else must be the job protocol of a morph
 * run relay (relay_srv.c). One socket keeps one path to find, to protect
 * (mode 0600) and to name in error messages.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "morph/error.h"
#include "rms/morphd.h"

void morph__conn_accept(morph__daemon *d)
{
  int fd = accept4(d->listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
  if (fd < 0)
    return;
  for (int i = 0; i < MORPH__MAX_CLIENTS; i++) {
    morph__client *c = &d->clients[i];
    if (c->type != MORPH__C_FREE)
      continue;
    if (!c->buf && !(c->buf = malloc(MORPH__LINE_MAX)))
      break;
    c->fd = fd, c->type = MORPH__C_NEW, c->job = 0, c->len = 0;
    return;
  }
  morph__say(&d->log, 0, "too many connections; refused one");
  close(fd);
}

void morph__conn_drop(morph__daemon *d, int i)
{
  morph__client *c = &d->clients[i];
  if (c->type == MORPH__C_FREE)
    return;
  if (c->type == MORPH__C_JOB)
    morph__relay_lost(d, i);
  morph__wire_close(d, i);
}

static void protocol_line(morph__daemon *d, int i, const char *line)
{
  morph__msg m;
  char err[256];
  if (morph__msg_decode(line, &m, err, sizeof err) != MORPH_OK) {
    morph__msg e;
    morph__msg_init(&e, MORPH__MSG_ERROR);
    snprintf(e.text, sizeof e.text, "%s", err);
    morph__wire_msg(d, i, &e);
    morph__say(&d->log, 1, "bad protocol line: %s", err);
    return;
  }
  d->clients[i].type = MORPH__C_JOB;
  morph__relay_message(d, i, &m);
}

/* One complete line from client i. */
static void on_line(morph__daemon *d, int i, const char *line)
{
  morph__client *c = &d->clients[i];
  if (c->type == MORPH__C_JOB) {
    protocol_line(d, i, line);
    return;
  }
  json_t *req = json_loads(line, 0, NULL);
  if (json_is_object(req) && json_object_get(req, "cmd")) {
    c->type = MORPH__C_CLI;
    morph__cli_request(d, i, req);
  } else if (c->type == MORPH__C_CLI) {
    json_t *r = json_pack("{s:b, s:s, s:i}", "ok", 0, "error", "expected a JSON object with \"cmd\"",
                          "code", MORPH_EPROTO);
    morph__wire_json(d, i, r);
  } else {
    protocol_line(d, i, line);
  }
  json_decref(req);
}

void morph__conn_read(morph__daemon *d, int i)
{
  morph__client *c = &d->clients[i];
  ssize_t n = recv(c->fd, c->buf + c->len, MORPH__LINE_MAX - 1 - c->len, 0);
  if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
    morph__conn_drop(d, i);
    return;
  }
  if (n < 0)
    return;
  c->len += (size_t)n;
  c->buf[c->len] = '\0';
  char *start = c->buf, *nl;
  while (c->type != MORPH__C_FREE && (nl = memchr(start, '\n', c->len - (size_t)(start - c->buf)))) {
    *nl = '\0';
    if (nl > start)
      on_line(d, i, start);
    start = nl + 1;
  }
  if (c->type == MORPH__C_FREE)
    return;
  c->len -= (size_t)(start - c->buf);
  memmove(c->buf, start, c->len);
  if (c->len >= MORPH__LINE_MAX - 1) {
    morph__say(&d->log, 0, "a client sent a line longer than %d bytes; dropped", MORPH__LINE_MAX);
    morph__conn_drop(d, i);
  }
}
