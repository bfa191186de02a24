/*
 * MUNGE handshake of a TCP connection (auth.h has the exchange and why each
 * check is there).
 */
#include "proto/auth.h"

#include <jansson.h>
#include <munge.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "common/clock.h"
#include "morph/error.h"

#define PAYLOAD_TAG "morph-auth-1"
#define NONCE_HEX 32

__attribute__((format(printf, 3, 4))) static int why(morph__conn *c, int rc, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(c->why, sizeof c->why, fmt, ap);
  va_end(ap);
  return rc;
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

static int make_nonce(char out[NONCE_HEX + 1])
{
  unsigned char raw[NONCE_HEX / 2];
  if (getrandom(raw, sizeof raw, 0) != (ssize_t)sizeof raw)
    return MORPH_EIO;
  for (size_t i = 0; i < sizeof raw; i++)
    snprintf(out + 2 * i, 3, "%02x", raw[i]);
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

/* Sends {"v":1,"type":"auth","cred":<credential of payload>}. */
static int send_cred(morph__conn *c, const char *payload)
{
  munge_ctx_t ctx = context();
  char *cred = NULL;
  munge_err_t e = ctx ? munge_encode(&cred, ctx, payload, (int)strlen(payload)) : EMUNGE_NO_MEMORY;
  int rc = e == EMUNGE_SUCCESS
             ? send_line(c, cred)
             : why(c, MORPH_EAUTH, "cannot make a MUNGE credential: %s (is munged running?)",
                   ctx ? munge_ctx_strerror(ctx) : munge_strerror(e));
  free(cred);
  if (ctx)
    munge_ctx_destroy(ctx);
  return rc;
}

/* Reads the peer's auth line and returns its credential in cred. */
static int recv_cred(morph__conn *c, double deadline, char *cred, size_t size)
{
  char line[2048];
  for (;;) {
    if (morph__conn_line(c, line, sizeof line) >= 0)
      break;
    double left = deadline - morph__now();
    if (left <= 0)
      return why(c, MORPH_ETIMEDOUT, "no authentication from the peer in time");
    int rc = morph__conn_fill(c, left);
    if (rc < 0)
      return why(c, rc == MORPH_ECONN ? MORPH_ECONN : MORPH_EPROTO, "%s before authenticating",
                 rc == MORPH_ECONN ? "the peer closed the connection" : "line too long");
  }
  json_t *o = json_loads(line, 0, NULL);
  const char *type = json_string_value(json_object_get(o, "type"));
  const char *v = json_string_value(json_object_get(o, "cred"));
  int rc = MORPH_OK;
  if (!type || strcmp(type, "auth") != 0 || !v)
    rc = why(c, MORPH_EPROTO, "the peer did not authenticate (first line: %.60s)", line);
  else
    snprintf(cred, size, "%s", v);
  json_decref(o);
  return rc;
}

/* Decodes cred and checks user and payload ("<tag> <side> <nonce>"); the
 * nonce is returned in nonce (may be NULL when `expect` names it). */
static int check_cred(morph__conn *c, const char *cred, const char *side, const char *expect,
                      char nonce[NONCE_HEX + 1])
{
  munge_ctx_t ctx = context();
  void *buf = NULL;
  int len = 0;
  uid_t uid;
  gid_t gid;
  if (!ctx)
    return why(c, MORPH_EAUTH, "cannot reach munged");
  munge_err_t e = munge_decode(cred, ctx, &buf, &len, &uid, &gid);
  int rc = MORPH_OK;
  char got[128] = "", want[128];
  if (e != EMUNGE_SUCCESS)
    rc = why(c, MORPH_EAUTH, "MUNGE credential refused: %s", munge_ctx_strerror(ctx));
  else if (uid != geteuid())
    rc = why(c, MORPH_EAUTH, "credential of another user (uid %ld, we are %ld)", (long)uid,
             (long)geteuid());
  if (rc == MORPH_OK) {
    snprintf(got, sizeof got, "%.*s", len, buf ? (const char *)buf : "");
    int n = snprintf(want, sizeof want, "%s %s ", PAYLOAD_TAG, side);
    if (strncmp(got, want, (size_t)n) != 0 || strlen(got + n) != NONCE_HEX)
      rc = why(c, MORPH_EAUTH, "credential for something else (\"%.40s\")", got);
    else if (expect && strcmp(got + n, expect) != 0)
      rc = why(c, MORPH_EAUTH, "the server's credential answers another request");
    else if (nonce)
      memcpy(nonce, got + n, NONCE_HEX + 1);
  }
  free(buf);
  munge_ctx_destroy(ctx);
  return rc;
}

int morph__auth_client(morph__conn *c, double deadline)
{
  char nonce[NONCE_HEX + 1], payload[128], cred[2048];
  if (make_nonce(nonce) != MORPH_OK)
    return why(c, MORPH_EAUTH, "no random numbers for a nonce");
  snprintf(payload, sizeof payload, "%s client %s", PAYLOAD_TAG, nonce);
  int rc = send_cred(c, payload);
  if (rc == MORPH_OK)
    rc = recv_cred(c, deadline, cred, sizeof cred);
  if (rc == MORPH_OK)
    rc = check_cred(c, cred, "server", nonce, NULL);
  return rc;
}

int morph__auth_server(morph__conn *c, double deadline)
{
  char nonce[NONCE_HEX + 1], payload[128], cred[2048];
  int rc = recv_cred(c, deadline, cred, sizeof cred);
  if (rc == MORPH_OK)
    rc = check_cred(c, cred, "client", NULL, nonce);
  if (rc != MORPH_OK)
    return rc;
  snprintf(payload, sizeof payload, "%s server %s", PAYLOAD_TAG, nonce);
  return send_cred(c, payload);
}
