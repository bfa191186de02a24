/* Reaching morphd from the `morph` commands. */
#include "rms/client.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/clock.h"
#include "morph/error.h"
#include "morph/prof.h"
#include "proto/protocol.h"

int morph__cli_paths(morph__cli *c, const char *dir, const char *sock)
{
  memset(c, 0, sizeof *c);
  c->fd = -1;
  const char *env = getenv("MORPH_DIR");
  int n;
  if (dir)
    n = snprintf(c->dir, sizeof c->dir, "%s", dir);
  else if (env && *env)
    n = snprintf(c->dir, sizeof c->dir, "%s", env);
  else
    n = snprintf(c->dir, sizeof c->dir, "/tmp/morph-%ld", (long)getuid());
  if (n < 0 || (size_t)n >= sizeof c->dir)
    return MORPH_EINVAL;
  n = sock ? snprintf(c->sock, sizeof c->sock, "%s", sock)
           : snprintf(c->sock, sizeof c->sock, "%s/morphd.sock", c->dir);
  return n < 0 || (size_t)n >= sizeof c->sock ? MORPH_EINVAL : MORPH_OK;
}

int morph__cli_connect(morph__cli *c, int say)
{
  morph__conn conn;
  if (morph__connect(c->sock, 2.0, &conn) != MORPH_OK) {
    snprintf(c->errmsg, sizeof c->errmsg,
             "cannot reach morphd at %s: is it running? (morph daemon --help)", c->sock);
    if (say)
      fprintf(stderr, "morph: %s\n", c->errmsg);
    return MORPH_ECONN;
  }
  c->fd = conn.fd;
  c->len = 0;
  return MORPH_OK;
}

static int send_line(morph__cli *c, json_t *req)
{
  char *s = json_dumps(req, JSON_COMPACT);
  json_decref(req);
  if (!s)
    return MORPH_ENOMEM;
  size_t n = strlen(s);
  s[n] = '\0';
  int rc = send(c->fd, s, n, MSG_NOSIGNAL) == (ssize_t)n && send(c->fd, "\n", 1, MSG_NOSIGNAL) == 1
               ? MORPH_OK
               : MORPH_ECONN;
  free(s);
  return rc;
}

/* Reads until a whole line is in buf; returns its length (without '\n'). */
static int read_line(morph__cli *c, double timeout, size_t *linelen)
{
  double until = morph__now() + timeout;
  for (;;) {
    char *nl = memchr(c->buf, '\n', c->len);
    if (nl) {
      *linelen = (size_t)(nl - c->buf);
      return MORPH_OK;
    }
    int ms = (int)((until - morph__now()) * 1000);
    struct pollfd p = {.fd = c->fd, .events = POLLIN};
    if (ms <= 0 || poll(&p, 1, ms) <= 0)
      return MORPH_ETIMEDOUT;
    ssize_t n = recv(c->fd, c->buf + c->len, sizeof c->buf - 1 - c->len, 0);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0 || c->len + (size_t)n >= sizeof c->buf - 1)
      return MORPH_ECONN;
    c->len += (size_t)n;
  }
}

int morph__cli_call(morph__cli *c, json_t *req, json_t **reply, double timeout)
{
  *reply = NULL;
  size_t len = 0;
  int rc = send_line(c, req);
  if (rc == MORPH_OK)
    rc = read_line(c, timeout, &len);
  if (rc != MORPH_OK) {
    snprintf(c->errmsg, sizeof c->errmsg, "morphd at %s did not answer: %s", c->sock,
             morph_strerror(rc));
    return rc;
  }
  c->buf[len] = '\0';
  *reply = json_loads(c->buf, 0, NULL);
  c->len -= len + 1;
  memmove(c->buf, c->buf + len + 1, c->len);
  if (!json_is_object(*reply)) {
    snprintf(c->errmsg, sizeof c->errmsg, "morphd sent a malformed reply");
    return MORPH_EPROTO;
  }
  if (json_is_true(json_object_get(*reply, "ok")))
    return MORPH_OK;
  const char *e = json_string_value(json_object_get(*reply, "error"));
  snprintf(c->errmsg, sizeof c->errmsg, "%s", e ? e : "request failed");
  json_t *code = json_object_get(*reply, "code");
  return json_is_integer(code) && json_integer_value(code) < 0 ? (int)json_integer_value(code)
                                                              : MORPH_EINVAL;
}

void morph__cli_close(morph__cli *c)
{
  if (c->fd >= 0)
    close(c->fd);
  c->fd = -1;
}

int morph__cli_add_matrix(json_t *req, const char *path, char *err, size_t errsize)
{
  morph_comm_matrix *m;
  if (morph_comm_matrix_create(0, &m) != MORPH_OK) {
    snprintf(err, errsize, "%s: out of memory", path);
    return MORPH_ENOMEM;
  }
  int rc = morph_comm_matrix_load(m, path, MORPH_CM_BYTES);
  json_t *a = rc == MORPH_OK ? json_array() : NULL;
  for (size_t k = 0; a && k < (size_t)m->n * (size_t)m->n; k++)
    if (json_array_append_new(a, json_integer((json_int_t)m->bytes[k])) != 0)
      json_decref(a), a = NULL;
  if (rc != MORPH_OK)
    snprintf(err, errsize, "%s", morph_comm_matrix_errmsg(m));
  else if (!a)
    snprintf(err, errsize, "%s: out of memory", path), rc = MORPH_ENOMEM;
  else
    json_object_set_new(req, "traffic", a), json_object_set_new(req, "traffic_n", json_integer(m->n));
  morph_comm_matrix_destroy(m);
  return rc;
}
