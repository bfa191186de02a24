/*
 * Client connections on morphd's one socket. The first line of a
 * connection says who is speaking: a JSON object with "cmd" is a morph
 * command (cli_srv.c), anything else must be the job protocol of a morph
 * run relay (relay_srv.c). One socket keeps one path to find and to name
 * in error messages; who may do what is decided per request from the
 * connection's user (access.c).
 *
 * No peer can hold the loop or lock the others out: the listener
 * authenticates TCP peers without waiting (proto/listener.h), reads never
 * block, a new connection must say something within MORPH__FIRST_LINE_S
 * and a command connection that idles for MORPH__IDLE_S is closed, one
 * user holds at most MORPH__USER_CONNS connections that are not a job's
 * relay, and the oldest connection that never spoke makes room for a
 * newcomer of its user, or of anyone when the table is full.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "morph/error.h"
#include "rms/morphd.h"

/* Refusals are logged at most once a second, saying how many more there
 * were: a flood of connections must not flood the log too. */
static void said_refusal(morph__daemon *d, const morph__conn *c)
{
  double now = morph__now();
  if (now - d->refusal_said < 1.0) {
    d->refusals++;
    return;
  }
  if (d->refusals > 0)
    morph__say(&d->log, 0, "%ld more connection(s) refused in the %.0f s before", d->refusals,
               now - d->refusal_said);
  morph__say(&d->log, 0, "refused a connection from %s: %s", c->peer, c->why);
  d->refusal_said = now, d->refusals = 0;
}

/* Connections of uid that are not a job's relay. */
static int held_by(const morph__daemon *d, uid_t uid)
{
  int n = 0;
  for (int i = 0; i < MORPH__MAX_CLIENTS; i++)
    n += d->clients[i].type != MORPH__C_FREE && d->clients[i].type != MORPH__C_JOB &&
         d->clients[i].uid == uid;
  return n;
}

/* The oldest connection that never said a line, of uid (or of anyone
 * when uid is (uid_t)-1); -1 if none. */
static int oldest_silent(const morph__daemon *d, uid_t uid)
{
  int oldest = -1;
  for (int i = 0; i < MORPH__MAX_CLIENTS; i++) {
    const morph__client *c = &d->clients[i];
    if (c->type == MORPH__C_NEW && (uid == (uid_t)-1 || c->uid == uid) &&
        (oldest < 0 || c->last < d->clients[oldest].last))
      oldest = i;
  }
  return oldest;
}

static void evict(morph__daemon *d, int k)
{
  morph__say(&d->log, 1, "closed a silent connection of uid %ld (%s) for a newer one",
             (long)d->clients[k].uid, d->clients[k].peer);
  morph__wire_close(d, k);
}

/* Room for one more connection of uid: its oldest silent one is closed
 * when it holds its share, the oldest silent one of anyone when the table
 * is full, so that silent connections never keep a talking client out,
 * even one of the same user. Returns the free slot, or -1. */
static int room_for(morph__daemon *d, uid_t uid)
{
  int k = held_by(d, uid) >= MORPH__USER_CONNS ? oldest_silent(d, uid) : -2;
  if (k == -1)
    return -1; /* all its connections are talking */
  if (k >= 0)
    evict(d, k);
  for (int i = 0; i < MORPH__MAX_CLIENTS; i++)
    if (d->clients[i].type == MORPH__C_FREE)
      return i;
  if ((k = oldest_silent(d, (uid_t)-1)) >= 0)
    evict(d, k);
  return k;
}

/* Files an accepted, authenticated connection; closes it if it may not
 * stay. */
static void admit(morph__daemon *d, morph__conn *a)
{
  int i = room_for(d, a->uid);
  if (i < 0)
    snprintf(a->why, sizeof a->why, "uid %ld holds %d talking connections, or all %d are in use",
             (long)a->uid, MORPH__USER_CONNS, MORPH__MAX_CLIENTS);
  morph__client *c = i >= 0 ? &d->clients[i] : NULL;
  if (c && !c->buf && !(c->buf = malloc(MORPH__LINE_MAX)))
    snprintf(a->why, sizeof a->why, "out of memory"), c = NULL;
  if (!c) {
    said_refusal(d, a);
    morph__conn_close(a);
    return;
  }
  fcntl(a->fd, F_SETFL, fcntl(a->fd, F_GETFL) | O_NONBLOCK);
  c->fd = a->fd, c->type = MORPH__C_NEW, c->job = 0, c->uid = a->uid, c->gid = a->gid;
  c->seal = a->seal, c->last = morph__now(), c->len = a->len, c->olen = 0;
  snprintf(c->peer, sizeof c->peer, "%s", a->peer);
  memcpy(c->buf, a->buf, a->len); /* what came after the credential */
}

void morph__conn_accept(morph__daemon *d)
{
  morph__conn a;
  int rc;
  while ((rc = morph__listener_take(&d->listener, &a)) != 0) {
    if (rc == 1)
      admit(d, &a);
    else
      said_refusal(d, &a);
  }
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
    morph__say(&d->log, 1, "bad protocol line from %s: %s", d->clients[i].peer, err);
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

/* The line of n bytes at `line`, once its seal is checked (TCP). Returns
 * 0, or -1 if the connection was closed for a line that fails its seal. */
static int take_line(morph__daemon *d, int i, char *line, size_t n)
{
  morph__client *c = &d->clients[i];
  const char *payload;
  int len = morph__seal_open(&c->seal, line, n, &payload);
  if (len < 0) {
    morph__say(&d->log, 0, "closed the connection of uid %ld from %s: a line that is not its "
               "next sealed line (injected or replayed on the way)", (long)c->uid, c->peer);
    morph__conn_drop(d, i);
    return -1;
  }
  c->last = morph__now();
  if (len > 0)
    on_line(d, i, payload);
  return 0;
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
    if (take_line(d, i, start, (size_t)(nl - start)) != 0)
      return;
    start = nl + 1;
  }
  if (c->type == MORPH__C_FREE)
    return;
  c->len -= (size_t)(start - c->buf);
  memmove(c->buf, start, c->len);
  if (c->len >= MORPH__LINE_MAX - 1) {
    morph__say(&d->log, 0, "a client (uid %ld, %s) sent a line longer than %d bytes; dropped",
               (long)c->uid, c->peer, MORPH__LINE_MAX);
    morph__conn_drop(d, i);
  }
}

void morph__conn_expire(morph__daemon *d)
{
  double now = morph__now();
  for (int i = 0; i < MORPH__MAX_CLIENTS; i++) {
    const morph__client *c = &d->clients[i];
    double limit = c->type == MORPH__C_NEW ? MORPH__FIRST_LINE_S
                   : c->type == MORPH__C_CLI ? MORPH__IDLE_S
                                             : 0;
    if (limit > 0 && now - c->last > limit) {
      morph__say(&d->log, 1, "closed a connection from %s (uid %ld): %s for %.0f s", c->peer,
                 (long)c->uid, c->type == MORPH__C_NEW ? "silent" : "idle", limit);
      morph__conn_drop(d, i);
    }
  }
}
