/*
 * Wire format of the job <-> launcher protocol. The fields of each message
 * kind are listed once, in a table, and both directions are driven by it,
 * so encoder and decoder cannot disagree.
 */
#include "proto/protocol.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "common/clock.h"
#include "morph/error.h"

static const char *const kind_names[MORPH__MSG_KIND_COUNT] = {
  "hello", "welcome", "progress", "resize", "ack", "limits", "bye", "error",
};

enum field_type { F_INT, F_LONG, F_I64, F_UINT, F_DBL, F_STR };

#define K(kind) (1u << MORPH__MSG_##kind)
#define FIELD(name, type, kinds) \
  {#name, type, offsetof(morph__msg, name), sizeof(((morph__msg *)0)->name), kinds}

static const struct field {
  const char *name;
  enum field_type type;
  size_t offset, size;
  unsigned kinds;
} fields[] = {
  FIELD(job, F_STR, K(HELLO) | K(WELCOME)),
  FIELD(secret, F_STR, K(HELLO) | K(WELCOME)),
  FIELD(pid, F_LONG, K(HELLO)),
  FIELD(size, F_INT, K(HELLO) | K(LIMITS) | K(RESIZE)),
  FIELD(min, F_INT, K(HELLO) | K(LIMITS)),
  FIELD(max, F_INT, K(HELLO) | K(LIMITS)),
  FIELD(pref, F_INT, K(HELLO) | K(LIMITS)),
  FIELD(mechanisms, F_UINT, K(HELLO)),
  FIELD(mpi, F_STR, K(HELLO)),
  FIELD(iteration, F_I64, K(PROGRESS) | K(ACK) | K(RESIZE)),
  FIELD(iter_time, F_DBL, K(PROGRESS)),
  FIELD(mpi_time, F_DBL, K(PROGRESS)),
  FIELD(id, F_INT, K(RESIZE) | K(ACK)),
  FIELD(mechanism, F_INT, K(RESIZE) | K(ACK)),
  FIELD(outcome, F_INT, K(ACK)),
  FIELD(old_size, F_INT, K(ACK)),
  FIELD(new_size, F_INT, K(ACK)),
  FIELD(t_decision, F_DBL, K(ACK)),
  FIELD(t_spawn, F_DBL, K(ACK)),
  FIELD(t_redist, F_DBL, K(ACK)),
  FIELD(t_commit, F_DBL, K(ACK)),
  FIELD(bytes, F_I64, K(ACK)),
  FIELD(hosts, F_STR, K(RESIZE) | K(ACK)),
  FIELD(from, F_STR, K(RESIZE)),
  FIELD(checkpoint, F_STR, K(HELLO) | K(ACK)),
  FIELD(exit_status, F_INT, K(BYE)),
  FIELD(text, F_STR, K(ACK) | K(ERROR) | K(BYE)),
};
#define NFIELDS (sizeof fields / sizeof fields[0])

void morph__msg_init(morph__msg *m, enum morph__msg_kind kind)
{
  memset(m, 0, sizeof *m);
  m->kind = kind;
  m->version = MORPH_PROTO_VERSION;
  m->iteration = -1;
}

const char *morph__msg_kind_name(enum morph__msg_kind kind)
{
  return (unsigned)kind < MORPH__MSG_KIND_COUNT ? kind_names[kind] : NULL;
}

static json_t *field_to_json(const struct field *f, const morph__msg *m)
{
  const char *p = (const char *)m + f->offset;
  switch (f->type) {
  case F_INT:
    return json_integer(*(const int *)p);
  case F_LONG:
    return json_integer(*(const long *)p);
  case F_I64:
    return json_integer(*(const int64_t *)p);
  case F_UINT:
    return json_integer(*(const unsigned *)p);
  case F_DBL:
    return json_real(*(const double *)p);
  case F_STR:
    return json_string(p);
  }
  return NULL;
}

int morph__msg_encode(const morph__msg *m, char *buf, size_t size)
{
  const char *kind = morph__msg_kind_name(m->kind);
  json_t *o = json_object();
  if (!kind || !o)
    return MORPH_ENOMEM;
  json_object_set_new(o, "v", json_integer(m->version));
  json_object_set_new(o, "type", json_string(kind));
  for (size_t i = 0; i < NFIELDS; i++)
    if (fields[i].kinds & (1u << m->kind))
      json_object_set_new(o, fields[i].name, field_to_json(&fields[i], m));
  size_t n = json_dumpb(o, buf, size > 1 ? size - 1 : 0, JSON_COMPACT);
  json_decref(o);
  if (n == 0 || n >= size - 1)
    return MORPH_ENOMEM;
  buf[n++] = '\n';
  buf[n] = '\0';
  return (int)n;
}

/* Stores one JSON value into the field it names; -1 if the type is wrong. */
static int field_from_json(const struct field *f, json_t *v, morph__msg *m)
{
  char *p = (char *)m + f->offset;
  if (f->type == F_STR) {
    if (!json_is_string(v))
      return -1;
    snprintf(p, f->size, "%s", json_string_value(v));
    return 0;
  }
  if (f->type == F_DBL) {
    if (!json_is_number(v))
      return -1;
    *(double *)p = json_number_value(v);
    return 0;
  }
  if (!json_is_integer(v))
    return -1;
  json_int_t x = json_integer_value(v);
  switch (f->type) {
  case F_INT:
    *(int *)p = (int)x;
    break;
  case F_LONG:
    *(long *)p = (long)x;
    break;
  case F_UINT:
    *(unsigned *)p = (unsigned)x;
    break;
  default:
    *(int64_t *)p = (int64_t)x;
  }
  return 0;
}

static int kind_from_name(const char *name)
{
  for (int k = 0; k < MORPH__MSG_KIND_COUNT; k++)
    if (!strcmp(kind_names[k], name))
      return k;
  return -1;
}

static int decode_object(json_t *o, morph__msg *m, char *err, size_t errsize)
{
  json_t *v = json_object_get(o, "v");
  json_t *type = json_object_get(o, "type");
  if (!json_is_integer(v) || !json_is_string(type)) {
    snprintf(err, errsize, "message lacks integer \"v\" or string \"type\"");
    return MORPH_EPROTO;
  }
  if (json_integer_value(v) > MORPH_PROTO_VERSION || json_integer_value(v) < 1) {
    snprintf(err, errsize, "protocol version %lld not supported (this side speaks %d)",
             (long long)json_integer_value(v), MORPH_PROTO_VERSION);
    return MORPH_EPROTO;
  }
  int kind = kind_from_name(json_string_value(type));
  if (kind < 0) {
    snprintf(err, errsize, "unknown message type \"%s\"", json_string_value(type));
    return MORPH_EPROTO;
  }
  morph__msg_init(m, (enum morph__msg_kind)kind);
  for (size_t i = 0; i < NFIELDS; i++) {
    json_t *x = json_object_get(o, fields[i].name);
    if (x && (fields[i].kinds & (1u << kind)) && field_from_json(&fields[i], x, m) != 0) {
      snprintf(err, errsize, "field \"%s\" of a %s message has the wrong type", fields[i].name,
               kind_names[kind]);
      return MORPH_EPROTO;
    }
  }
  return MORPH_OK;
}

int morph__msg_decode(const char *line, morph__msg *m, char *err, size_t errsize)
{
  json_error_t jerr;
  json_t *o = json_loads(line, JSON_REJECT_DUPLICATES, &jerr);
  if (!json_is_object(o)) {
    snprintf(err, errsize, "not a JSON object: %s", o ? "wrong type" : jerr.text);
    json_decref(o);
    return MORPH_EPROTO;
  }
  int rc = decode_object(o, m, err, errsize);
  json_decref(o);
  return rc;
}

int morph__send(morph__conn *c, const morph__msg *m)
{
  char line[2048];
  int n = morph__msg_encode(m, line, sizeof line);
  if (n < 0)
    return n;
  return morph__conn_send_line(c, line, (size_t)n - 1); /* without its '\n' */
}

int morph__recv(morph__conn *c, morph__msg *m, double timeout, char *err, size_t errsize)
{
  if (c->fd < 0)
    return MORPH_ECONN;
  double deadline = morph__now() + (timeout > 0 ? timeout : 0);
  char line[sizeof c->buf];
  for (;;) {
    int n = morph__conn_line(c, line, sizeof line);
    if (n >= 0)
      return morph__msg_decode(line, m, err, errsize) == MORPH_OK ? 1 : MORPH_EPROTO;
    if (n == MORPH_EAUTH) {
      snprintf(err, errsize, "a line that is not the peer's next sealed line (injected or "
               "replayed on the way)");
      return MORPH_EAUTH;
    }
    double left = timeout < 0 ? -1 : deadline - morph__now();
    if (timeout >= 0 && left < 0)
      left = 0;
    int rc = morph__conn_fill(c, left);
    if (rc == MORPH_EPROTO)
      snprintf(err, errsize, "line longer than %zu bytes", sizeof c->buf);
    if (rc <= 0)
      return rc;
  }
}
