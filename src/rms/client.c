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

int morph__own_dir(char *out, size_t size)
{
  const char *xdg = getenv("XDG_RUNTIME_DIR");
  int n;
  if (geteuid() == 0)
    n = snprintf(out, size, "%s", MORPH__SYSTEM_DIR);
  else if (xdg && xdg[0] == '/')
    n = snprintf(out, size, "%s/morph", xdg);
  else
    return MORPH_ENOENT;
  return n < 0 || (size_t)n >= size ? MORPH_EINVAL : MORPH_OK;
}

/* No folder named: the user's own morphd if one runs, else the shared one. */
static int default_dir(char *out, size_t size)
{
  char sock[PATH_MAX + 16];
  if (morph__own_dir(out, size) == MORPH_OK) {
    snprintf(sock, sizeof sock, "%s/morphd.sock", out);
    if (access(sock, F_OK) == 0)
      return MORPH_OK;
  }
  int n = snprintf(out, size, "%s", MORPH__SYSTEM_DIR);
  return n < 0 || (size_t)n >= size ? MORPH_EINVAL : MORPH_OK;
}

int morph__cli_paths(morph__cli *c, const char *dir, const char *sock)
{
  memset(c, 0, sizeof *c);
  c->fd = -1;
  const char *env = getenv("MORPH_DIR");
  int n = 0;
  if (dir)
    n = snprintf(c->dir, sizeof c->dir, "%s", dir);
  else if (env && *env)
    n = snprintf(c->dir, sizeof c->dir, "%s", env);
  else if (default_dir(c->dir, sizeof c->dir) != MORPH_OK)
    return MORPH_EINVAL;
  if (n < 0 || (size_t)n >= sizeof c->dir)
    return MORPH_EINVAL;
  n = sock ? snprintf(c->sock, sizeof c->sock, "%s", sock)
           : snprintf(c->sock, sizeof c->sock, "%s/morphd.sock", c->dir);
  return n < 0 || (size_t)n >= sizeof c->sock ? MORPH_EINVAL : MORPH_OK;
}

/* Why morphd cannot be reached, in the words that help: not running is
 * not the same as not allowed. */
static void say_why(morph__cli *c, const morph__conn *conn, int rc)
{
  if (rc == MORPH_EAUTH)
    snprintf(c->errmsg, sizeof c->errmsg, "refusing morphd at %s: %s", c->sock, conn->why);
  else if (conn->err == EACCES || conn->err == EPERM)
    snprintf(c->errmsg, sizeof c->errmsg, "cannot reach morphd at %s: permission denied (is the"
             " folder %.200s open to you? docs/security.md)", c->sock, c->dir);
  else if (conn->err == ENOENT || conn->err == ECONNREFUSED)
    snprintf(c->errmsg, sizeof c->errmsg, "cannot reach morphd at %s: is it running? (morph "
             "daemon --help)", c->sock);
  else
    snprintf(c->errmsg, sizeof c->errmsg, "cannot reach morphd at %s: %s", c->sock,
             conn->why[0] ? conn->why : morph_strerror(rc));
}

int morph__cli_connect(morph__cli *c, int say)
{
  morph__conn conn;
  int rc = morph__connect(c->sock, 2.0, &conn);
  if (rc != MORPH_OK) {
    say_why(c, &conn, rc);
    if (say)
      fprintf(stderr, "morph: %s\n", c->errmsg);
    return rc == MORPH_EAUTH ? MORPH_EAUTH : MORPH_ECONN;
  }
  c->fd = conn.fd;
  c->seal = conn.seal;
  c->len = conn.len; /* whatever came after the handshake */
  memcpy(c->buf, conn.buf, conn.len);
  return MORPH_OK;
}

static int send_line(morph__cli *c, json_t *req)
{
  char *s = json_dumps(req, JSON_COMPACT);
  json_decref(req);
  if (!s)
    return MORPH_ENOMEM;
  size_t n = strlen(s), size = n + MORPH__SEAL_OVERHEAD + 2;
  char *line = malloc(size);
  int len = line ? morph__seal_line(&c->seal, s, n, line, size) : MORPH_ENOMEM;
  int rc = len < 0 ? len
           : send(c->fd, line, (size_t)len, MSG_NOSIGNAL) == len ? MORPH_OK
                                                                 : MORPH_ECONN;
  free(line);
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
  const char *payload;
  int plen = morph__seal_open(&c->seal, c->buf, len, &payload);
  *reply = plen >= 0 ? json_loads(payload, 0, NULL) : NULL;
  c->len -= len + 1;
  memmove(c->buf, c->buf + len + 1, c->len);
  if (plen < 0) {
    snprintf(c->errmsg, sizeof c->errmsg, "morphd's reply at %s fails its seal (changed on the "
             "way?)", c->sock);
    return MORPH_EAUTH;
  }
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
  morph__seal_end(&c->seal);
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
