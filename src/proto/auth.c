/*
 * MUNGE handshake of a TCP connection and the session key it carries
 * (auth.h has the exchange and why each check is there).
 */
#include "proto/auth.h"

#include <jansson.h>
#include <munge.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "common/clock.h"
#include "morph/error.h"

#define PAYLOAD_TAG "morph-auth-2"
#define NONCE_HEX 32
#define KEY_HEX (2 * MORPH__SEAL_KEY)
#define SERVICE_USER "morph"

__attribute__((format(printf, 3, 4))) static int why(morph__conn *c, int rc, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(c->why, sizeof c->why, fmt, ap);
  va_end(ap);
  return rc;
}

int morph__auth_trusted_server(uid_t uid)
{
  if (uid == 0 || uid == geteuid())
    return 1;
  struct passwd pw, *res = NULL;
  char buf[1024];
  return getpwnam_r(SERVICE_USER, &pw, buf, sizeof buf, &res) == 0 && res && res->pw_uid == uid;
}

/* A MUNGE context on munged's socket (MORPH_MUNGE_SOCKET or the default). */
static munge_ctx_t context(void)
{
  munge_ctx_t ctx = munge_ctx_create();
  const char *sock = getenv("MORPH_MUNGE_SOCKET");
  if (ctx && sock && *sock && munge_ctx_set(ctx, MUNGE_OPT_SOCKET, sock) != EMUNGE_SUCCESS) {
    munge_ctx_destroy(ctx);
    return NULL;
  }
  return ctx;
}

static void hex(const unsigned char *v, size_t n, char *out)
{
  for (size_t i = 0; i < n; i++)
    snprintf(out + 2 * i, 3, "%02x", v[i]);
}

static int unhex(const char *s, unsigned char *v, size_t n)
{
  for (size_t i = 0; i < n; i++) {
    unsigned x;
    if (sscanf(s + 2 * i, "%2x", &x) != 1)
      return MORPH_EAUTH;
    v[i] = (unsigned char)x;
  }
  return MORPH_OK;
}

static int make_nonce(char out[NONCE_HEX + 1])
{
  unsigned char raw[NONCE_HEX / 2];
  if (getrandom(raw, sizeof raw, 0) != (ssize_t)sizeof raw)
    return MORPH_EIO;
  hex(raw, sizeof raw, out);
  return MORPH_OK;
}

/* Writes the auth line carrying cred. */
static int send_line(morph__conn *c, const char *cred)
{
  char line[2048];
  int n = snprintf(line, sizeof line, "{\"v\":1,\"type\":\"auth\",\"cred\":\"%s\"}\n", cred);
  if (n <= 0 || (size_t)n >= sizeof line)
    return why(c, MORPH_EAUTH, "MUNGE credential too long");
  if (morph__conn_write(c, line, (size_t)n) != MORPH_OK)
    return why(c, MORPH_ECONN, "the peer closed the connection");
  return MORPH_OK;
}

/* Sends {"v":1,"type":"auth","cred":<credential of payload>}, decodable
 * only by `for_uid` unless it is (uid_t)-1. */
static int send_cred(morph__conn *c, const char *payload, uid_t for_uid)
{
  munge_ctx_t ctx = context();
  char *cred = NULL;
  munge_err_t e = ctx ? EMUNGE_SUCCESS : EMUNGE_NO_MEMORY;
  if (ctx && for_uid != (uid_t)-1)
    e = munge_ctx_set(ctx, MUNGE_OPT_UID_RESTRICTION, for_uid);
  if (e == EMUNGE_SUCCESS)
    e = munge_encode(&cred, ctx, payload, (int)strlen(payload));
  int rc = e == EMUNGE_SUCCESS
             ? send_line(c, cred)
             : why(c, MORPH_EAUTH, "cannot make a MUNGE credential: %s (is munged running?)",
                   ctx ? munge_ctx_strerror(ctx) : munge_strerror(e));
  free(cred);
  if (ctx)
    munge_ctx_destroy(ctx);
  return rc;
}

/* The credential of an auth line, into cred. */
static int cred_of(morph__conn *c, const char *line, char *cred, size_t size)
{
  json_t *o = json_loads(line, 0, NULL);
  const char *type = json_string_value(json_object_get(o, "type"));
  const char *v = json_string_value(json_object_get(o, "cred"));
  int rc = MORPH_OK;
  if (!type || strcmp(type, "auth") != 0 || !v || strlen(v) >= size)
    rc = why(c, MORPH_EPROTO, "the peer did not authenticate (its first line is not a MUNGE "
             "credential)");
  else
    snprintf(cred, size, "%s", v);
  json_decref(o);
  return rc;
}

/* Decodes cred into its payload (NUL-terminated, at most size - 1 bytes)
 * and its user. */
static int decode(morph__conn *c, const char *cred, char *payload, size_t size, uid_t *uid,
                  gid_t *gid)
{
  munge_ctx_t ctx = context();
  void *buf = NULL;
  int len = 0;
  if (!ctx)
    return why(c, MORPH_EAUTH, "cannot reach munged");
  munge_err_t e = munge_decode(cred, ctx, &buf, &len, uid, gid);
  int rc = e == EMUNGE_SUCCESS ? MORPH_OK
                               : why(c, MORPH_EAUTH, "MUNGE credential refused: %s",
                                     munge_ctx_strerror(ctx));
  if (rc == MORPH_OK && (len <= 0 || (size_t)len >= size || memchr(buf, '\0', (size_t)len)))
    rc = why(c, MORPH_EAUTH, "a MUNGE credential for something else");
  if (rc == MORPH_OK)
    snprintf(payload, size, "%.*s", len, (const char *)buf);
  free(buf);
  munge_ctx_destroy(ctx);
  return rc;
}

/* The payload and user of the credential an auth line carries. */
static int line_cred(morph__conn *c, const char *line, char *payload, size_t size, uid_t *uid,
                     gid_t *gid)
{
  char cred[2048];
  int rc = cred_of(c, line, cred, sizeof cred);
  return rc == MORPH_OK ? decode(c, cred, payload, size, uid, gid) : rc;
}

/* Checks "<tag> <side> " at the start of payload; returns what follows. */
static const char *after_tag(morph__conn *c, const char *payload, const char *side)
{
  char want[64];
  int n = snprintf(want, sizeof want, "%s %s ", PAYLOAD_TAG, side);
  if (strncmp(payload, want, (size_t)n) == 0)
    return payload + n;
  if (!strncmp(payload, "morph-auth-1 ", 13))
    why(c, MORPH_EAUTH, "the peer speaks an older morph protocol (morph-auth-1): update it");
  else
    why(c, MORPH_EAUTH, "a MUNGE credential for something else (\"%.40s\")", payload);
  return NULL;
}

/* Reads the server's auth line within the deadline. */
static int recv_answer(morph__conn *c, double deadline, char *line, size_t size)
{
  for (;;) {
    if (morph__conn_line(c, line, size) >= 0)
      return MORPH_OK;
    double left = deadline - morph__now();
    if (left <= 0)
      return why(c, MORPH_ETIMEDOUT, "no authentication from the server in time");
    int rc = morph__conn_fill(c, left);
    if (rc < 0)
      return why(c, rc == MORPH_ECONN ? MORPH_ECONN : MORPH_EPROTO, "%s before authenticating",
                 rc == MORPH_ECONN ? "the server closed the connection" : "line too long");
  }
}

/* The server's answer: our nonce, then the session key. */
static int take_answer(morph__conn *c, const char *line, const char *nonce)
{
  char payload[256];
  uid_t uid;
  gid_t gid;
  int rc = line_cred(c, line, payload, sizeof payload, &uid, &gid);
  if (rc != MORPH_OK)
    return rc == MORPH_EPROTO ? MORPH_EAUTH : rc;
  if (!morph__auth_trusted_server(uid))
    return why(c, MORPH_EAUTH, "the server runs as uid %ld, not as root, morph or you: refusing "
               "to talk to it", (long)uid);
  const char *rest = after_tag(c, payload, "server");
  unsigned char key[MORPH__SEAL_KEY];
  if (!rest)
    return MORPH_EAUTH;
  if (strncmp(rest, nonce, NONCE_HEX) != 0 || rest[NONCE_HEX] != ' ')
    return why(c, MORPH_EAUTH, "the server's credential answers another request");
  const char *k = rest + NONCE_HEX + 1;
  if (strlen(k) != KEY_HEX || strspn(k, "0123456789abcdef") != KEY_HEX ||
      unhex(k, key, sizeof key) != MORPH_OK)
    return why(c, MORPH_EAUTH, "the server's credential carries no session key");
  if (morph__seal_start(&c->seal, key, 0) != MORPH_OK)
    return why(c, MORPH_EAUTH, "out of memory for the session's seal");
  c->uid = uid, c->gid = gid;
  return MORPH_OK;
}

int morph__auth_client(morph__conn *c, double deadline)
{
  char nonce[NONCE_HEX + 1], payload[128], line[2048];
  if (make_nonce(nonce) != MORPH_OK)
    return why(c, MORPH_EAUTH, "no random numbers for a nonce");
  snprintf(payload, sizeof payload, "%s client %s", PAYLOAD_TAG, nonce);
  int rc = send_cred(c, payload, (uid_t)-1);
  if (rc == MORPH_OK)
    rc = recv_answer(c, deadline, line, sizeof line);
  return rc == MORPH_OK ? take_answer(c, line, nonce) : rc;
}

/* The client's credential: its nonce (into nonce) and its user. */
static int check_client(morph__conn *c, const char *line, int any_user, char *nonce)
{
  char payload[256];
  uid_t uid;
  gid_t gid;
  int rc = line_cred(c, line, payload, sizeof payload, &uid, &gid);
  if (rc != MORPH_OK)
    return rc;
  if (!any_user && uid != geteuid())
    return why(c, MORPH_EAUTH, "credential of another user (uid %ld, we are %ld)", (long)uid,
               (long)geteuid());
  const char *rest = after_tag(c, payload, "client");
  if (!rest)
    return MORPH_EAUTH;
  if (strlen(rest) != NONCE_HEX || strspn(rest, "0123456789abcdef") != NONCE_HEX)
    return why(c, MORPH_EAUTH, "a MUNGE credential without a valid nonce");
  memcpy(nonce, rest, NONCE_HEX + 1);
  c->uid = uid, c->gid = gid;
  return MORPH_OK;
}

int morph__auth_server_line(morph__conn *c, const char *line, int any_user)
{
  char nonce[NONCE_HEX + 1], khex[KEY_HEX + 1], payload[256];
  unsigned char key[MORPH__SEAL_KEY];
  int rc = check_client(c, line, any_user, nonce);
  if (rc != MORPH_OK)
    return rc;
  if (morph__seal_new_key(key) != MORPH_OK)
    return why(c, MORPH_EAUTH, "no random numbers for a session key");
  hex(key, sizeof key, khex);
  snprintf(payload, sizeof payload, "%s server %s %s", PAYLOAD_TAG, nonce, khex);
  if (morph__seal_start(&c->seal, key, 1) != MORPH_OK)
    return why(c, MORPH_EAUTH, "out of memory for the session's seal");
  rc = send_cred(c, payload, c->uid);
  if (rc != MORPH_OK)
    morph__seal_end(&c->seal);
  return rc;
}
