/*
 * Messages per second over one TCP connection between two threads, three
 * ways, alternating in rounds so that load on the machine hits all alike:
 *
 *   plain   messages as they are (the handshake done, sealing switched off)
 *   sealed  every line with its HMAC and sequence number (what morph does)
 *   munge   a MUNGE credential made and decoded per message (what Slurm
 *           does per RPC), for the choice docs/protocol.md explains
 *
 * Each message is a PROGRESS encoded, sent, received and decoded as morph
 * run and morphd do.
 *
 *   seal-rate ROUNDS MESSAGES    (beside munged: MORPH_MUNGE_SOCKET)
 * prints one line per round: "plain R sealed R munge R" (messages/s).
 */
#include <munge.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "morph/error.h"
#include "proto/listener.h"
#include "proto/protocol.h"

typedef struct pair {
  morph__listener l;
  morph__conn server, client;
} pair;

static void *connect_main(void *arg)
{
  pair *p = arg;
  char addr[128];
  morph__listen_name(p->l.fd, addr, sizeof addr);
  if (morph__connect(addr, 5.0, &p->client) != MORPH_OK)
    fprintf(stderr, "seal-rate: connect: %s\n", p->client.why);
  return NULL;
}

/* An authenticated, sealed connection between two ends of this process. */
static int pair_open(pair *p)
{
  if (morph__listener_open(&p->l, "127.0.0.1:0", 0) != MORPH_OK)
    return MORPH_EIO;
  pthread_t t;
  pthread_create(&t, NULL, connect_main, p);
  int rc = 0;
  for (double until = morph__now() + 5; rc != 1 && morph__now() < until;) {
    struct pollfd fds[4];
    poll(fds, (nfds_t)morph__listener_fds(&p->l, fds, 4), 50);
    rc = morph__listener_take(&p->l, &p->server);
  }
  pthread_join(t, NULL);
  morph__listener_close(&p->l);
  return rc == 1 && p->client.fd >= 0 ? MORPH_OK : MORPH_EAUTH;
}

typedef struct reader {
  morph__conn *c;
  long n;
  int munge;
} reader;

/* munged's context, on MORPH_MUNGE_SOCKET. */
static munge_ctx_t context(void)
{
  munge_ctx_t ctx = munge_ctx_create();
  const char *sock = getenv("MORPH_MUNGE_SOCKET");
  if (sock)
    munge_ctx_set(ctx, MUNGE_OPT_SOCKET, sock);
  return ctx;
}

/* Receives r->n messages: protocol lines (decoded as morphd does), or
 * MUNGE credentials each carrying one. */
static void *read_main(void *arg)
{
  reader *r = arg;
  munge_ctx_t ctx = r->munge ? context() : NULL;
  char line[8192], err[128];
  morph__msg m;
  for (long k = 0; k < r->n;) {
    if (!ctx) {
      if (morph__recv(r->c, &m, 5.0, err, sizeof err) != 1)
        break;
      k++;
      continue;
    }
    int n = morph__conn_line(r->c, line, sizeof line);
    if (n < 0 && morph__conn_fill(r->c, 5.0) <= 0)
      break;
    if (n < 0)
      continue;
    void *buf = NULL;
    int len;
    if (munge_decode(line, ctx, &buf, &len, NULL, NULL) == EMUNGE_SUCCESS)
      morph__msg_decode(buf, &m, err, sizeof err);
    free(buf);
    k++;
  }
  if (ctx)
    munge_ctx_destroy(ctx);
  return NULL;
}

/* One PROGRESS message as a MUNGE credential. */
static int send_munged(morph__conn *c, munge_ctx_t ctx, const morph__msg *m)
{
  char line[2048], *cred = NULL;
  int len = morph__msg_encode(m, line, sizeof line);
  if (len < 0 || munge_encode(&cred, ctx, line, len) != EMUNGE_SUCCESS)
    return MORPH_EAUTH;
  int rc = morph__conn_send_line(c, cred, strlen(cred));
  free(cred);
  return rc;
}

/* Sends n PROGRESS messages as morph does (encoded, sent; received,
 * decoded); returns the seconds it took, the reader's end included. */
static double batch(pair *p, long n, int munge)
{
  morph__msg m;
  morph__msg_init(&m, MORPH__MSG_PROGRESS);
  m.iteration = 1234, m.iter_time = 0.0123, m.mpi_time = 0.0012;
  munge_ctx_t ctx = munge ? context() : NULL;
  reader r = {&p->server, n, munge};
  pthread_t t;
  double t0 = morph__now();
  pthread_create(&t, NULL, read_main, &r);
  for (long k = 0; k < n; k++)
    if ((ctx ? send_munged(&p->client, ctx, &m) : morph__send(&p->client, &m)) != MORPH_OK)
      break;
  pthread_join(t, NULL);
  if (ctx)
    munge_ctx_destroy(ctx);
  return morph__now() - t0;
}

/* One round: short batches of each kind in turn, so that a change of load
 * on the machine falls on all three alike; prints their rates. */
static void round_of(pair *p, long n)
{
  enum { BATCHES = 20 };
  long per = n / BATCHES > 0 ? n / BATCHES : 1, per_munge = per / 20 > 0 ? per / 20 : 1;
  double t[3] = {0, 0, 0};
  for (int b = 0; b < BATCHES; b++) {
    p->client.seal.on = p->server.seal.on = 0;
    t[0] += batch(p, per, 0);
    t[2] += batch(p, per_munge, 1);
    p->client.seal.on = p->server.seal.on = 1;
    t[1] += batch(p, per, 0);
  }
  printf("plain %.0f sealed %.0f munge %.0f\n", (double)(per * BATCHES) / t[0],
         (double)(per * BATCHES) / t[1], (double)(per_munge * BATCHES) / t[2]);
  fflush(stdout);
}

int main(int argc, char **argv)
{
  int rounds = argc > 1 ? atoi(argv[1]) : 5;
  long n = argc > 2 ? atol(argv[2]) : 20000;
  pair p;
  if (pair_open(&p) != MORPH_OK) {
    fprintf(stderr, "seal-rate: no authenticated connection (is munged running?)\n");
    return 1;
  }
  for (int k = 0; k < rounds; k++)
    round_of(&p, n);
  morph__conn_close(&p.client);
  morph__conn_close(&p.server);
  return 0;
}
