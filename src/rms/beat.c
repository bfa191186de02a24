/*
 * morphd's heartbeats: non-blocking TCP connects to each node, and the
 * window estimator of the outage probability (beat.h).
 */
#include "rms/beat.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "morph/error.h"

#define BEAT_TIMEOUT_MAX_S 2.0 /* a live node on a LAN answers in milliseconds */

void morph__beat_window_init(morph__beat_window *w, int size)
{
  w->missed = 0;
  w->seen = 0;
  w->size = size < 1 ? 1 : size > MORPH__BEAT_WINDOW_MAX ? MORPH__BEAT_WINDOW_MAX : size;
}

static uint64_t window_mask(const morph__beat_window *w)
{
  return w->size == 64 ? ~(uint64_t)0 : (((uint64_t)1 << w->size) - 1);
}

void morph__beat_window_add(morph__beat_window *w, int missed)
{
  w->missed = ((w->missed << 1) | (missed ? 1u : 0u)) & window_mask(w);
  if (w->seen < w->size)
    w->seen++;
}

int morph__beat_window_misses(const morph__beat_window *w)
{
  return __builtin_popcountll(w->missed);
}

double morph__beat_window_p(const morph__beat_window *w)
{
  return (double)morph__beat_window_misses(w) / w->size;
}

void morph__beat_window_format(const morph__beat_window *w, char *buf, size_t bufsize)
{
  size_t n = 0;
  for (int k = w->seen - 1; k >= 0 && n + 1 < bufsize; k--)
    buf[n++] = (w->missed >> k) & 1 ? '1' : '0';
  if (bufsize > 0)
    buf[n] = '\0';
}

int morph__beat_window_parse(morph__beat_window *w, const char *text)
{
  if (!text || strspn(text, "01") != strlen(text))
    return MORPH_EPARSE;
  morph__beat_window r;
  morph__beat_window_init(&r, w->size);
  for (const char *c = text; *c; c++)
    morph__beat_window_add(&r, *c == '1');
  *w = r;
  return MORPH_OK;
}

/* The node's address for `port`; addrlen 0 if it does not resolve. */
static void resolve(morph__beat_node *n, int port)
{
  char service[16];
  snprintf(service, sizeof service, "%d", port);
  struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *res = NULL;
  n->addrlen = 0;
  if (getaddrinfo(n->host, service, &hints, &res) != 0 || !res)
    return;
  if (res->ai_addrlen <= sizeof n->addr) {
    memcpy(&n->addr, res->ai_addr, res->ai_addrlen);
    n->addrlen = res->ai_addrlen;
  }
  freeaddrinfo(res);
}

int morph__beat_init(morph__beat *b, const char *const *hosts, int n, double period, int port,
                     int window, double now)
{
  memset(b, 0, sizeof *b);
  if (!(period > 0) || port < 1 || port > 65535 || n < 0 || (n > 0 && !hosts))
    return MORPH_EINVAL;
  for (int i = 0; i < n; i++)
    if (!hosts[i] || strlen(hosts[i]) >= sizeof b->nodes[0].host)
      return MORPH_EINVAL;
  b->nodes = calloc((size_t)n + 1, sizeof *b->nodes);
  if (!b->nodes)
    return MORPH_ENOMEM;
  b->nnodes = n, b->period = period, b->port = port;
  b->timeout = period < BEAT_TIMEOUT_MAX_S ? period : BEAT_TIMEOUT_MAX_S;
  b->round_at = now;
  for (int i = 0; i < n; i++) {
    morph__beat_node *x = &b->nodes[i];
    snprintf(x->host, sizeof x->host, "%s", hosts[i]);
    x->fd = -1;
    morph__beat_window_init(&x->win, window > 0 ? window : MORPH__BEAT_WINDOW_DEFAULT);
    resolve(x, port);
  }
  return MORPH_OK;
}

void morph__beat_fini(morph__beat *b)
{
  for (int i = 0; i < b->nnodes; i++)
    if (b->nodes[i].fd >= 0)
      close(b->nodes[i].fd);
  free(b->nodes);
  memset(b, 0, sizeof *b);
}

static void record(morph__beat_node *x, int missed)
{
  if (x->fd >= 0)
    close(x->fd);
  x->fd = -1;
  morph__beat_window_add(&x->win, missed);
  x->changed = 1;
}

/* Starts node x's connect; returns 1 if it completed (recorded) at once. */
static int start(morph__beat_node *x)
{
  if (x->addrlen == 0)
    return record(x, 1), 1;
  x->fd = socket(x->addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (x->fd < 0)
    return record(x, 1), 1;
  if (connect(x->fd, (struct sockaddr *)&x->addr, x->addrlen) == 0)
    return record(x, 0), 1;
  if (errno != EINPROGRESS)
    return record(x, 1), 1;
  return 0;
}

/* The connects in flight that finished, or all of them past the deadline. */
static int check(morph__beat *b, double now)
{
  int recorded = 0;
  for (int i = 0; i < b->nnodes; i++) {
    morph__beat_node *x = &b->nodes[i];
    if (x->fd < 0)
      continue;
    struct pollfd p = {.fd = x->fd, .events = POLLOUT};
    if (poll(&p, 1, 0) == 1) {
      int err = 0;
      socklen_t len = sizeof err;
      if (getsockopt(x->fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0)
        err = errno;
      record(x, err != 0);
      recorded++;
    } else if (now >= b->deadline) {
      record(x, 1);
      recorded++;
    }
  }
  return recorded;
}

int morph__beat_tick(morph__beat *b, double now)
{
  int recorded = check(b, now);
  if (now < b->round_at)
    return recorded;
  for (int i = 0; i < b->nnodes; i++)
    if (b->nodes[i].fd >= 0)
      return recorded; /* the round in flight has not ended */
  for (int i = 0; i < b->nnodes; i++)
    recorded += start(&b->nodes[i]);
  b->deadline = now + b->timeout;
  b->round_at = now + b->period;
  return recorded;
}
