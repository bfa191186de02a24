/* The listener never waits on one peer: silent, half-open and chatty
 * connections beside a real client (run beside a private munged, as
 * test-transport is). The server side runs in this thread as a poll loop,
 * the way morphd and morph run use it; clients run in threads. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/clock.h"
#include "morph/error.h"
#include "proto/listener.h"
#include "proto/protocol.h"

typedef struct client {
  char addr[128];
  pthread_t thread;
  int rc;
  double took;
} client;

static void *client_main(void *arg)
{
  client *k = arg;
  morph__conn c;
  double t0 = morph__now();
  k->rc = morph__connect(k->addr, 5.0, &c);
  k->took = morph__now() - t0;
  if (k->rc == MORPH_OK) {
    morph__msg m;
    morph__msg_init(&m, MORPH__MSG_HELLO);
    morph__send(&c, &m);
    morph__sleep(0.2); /* let the server read it before we hang up */
    morph__conn_close(&c);
  }
  return NULL;
}

/* A raw TCP connection to addr that says `say` (may be "") and stays. */
static int raw(const char *addr, const char *say)
{
  int port = atoi(strrchr(addr, ':') + 1);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
  inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof a), 0);
  if (*say)
    assert_true(write(fd, say, strlen(say)) == (ssize_t)strlen(say));
  return fd;
}

/* Runs the server loop until a connection is handed over or `limit`
 * seconds pass; returns 1 with *got, else 0. Counts refusals. */
static int serve(morph__listener *l, double limit, morph__conn *got, int *refused)
{
  double until = morph__now() + limit;
  struct pollfd p[MORPH__PENDING_MAX + 1];
  while (morph__now() < until) {
    poll(p, (nfds_t)morph__listener_fds(l, p, MORPH__PENDING_MAX + 1), 50);
    int rc;
    while ((rc = morph__listener_take(l, got)) != 0) {
      if (rc == 1)
        return 1;
      (*refused)++;
    }
  }
  return 0;
}

static void open_tcp(morph__listener *l, char *addr, size_t size)
{
  assert_int_equal(morph__listener_open(l, "127.0.0.1:0", 1), MORPH_OK);
  assert_int_equal(morph__listen_name(l->fd, addr, size), MORPH_OK);
}

enum { SILENT = 300, HALF = 100 };

typedef struct flood {
  client k;
  int fds[SILENT + HALF];
} flood;

/* Opens the silent and half-open connections (connect blocks while the
 * backlog is full, so the server must be running), then the real client. */
static void *flood_main(void *arg)
{
  flood *f = arg;
  for (int i = 0; i < SILENT; i++)
    f->fds[i] = raw(f->k.addr, "");
  for (int i = 0; i < HALF; i++)
    f->fds[SILENT + i] = raw(f->k.addr, "{\"v\":1,\"type\":\"auth\",\"cred\":\"MUNGE:");
  return client_main(&f->k);
}

static void test_client_gets_in_past_silent_and_half_open_connections(void **state)
{
  (void)state;
  morph__listener l;
  flood f;
  open_tcp(&l, f.k.addr, sizeof f.k.addr);
  int refused = 0;
  pthread_create(&f.k.thread, NULL, flood_main, &f);
  morph__conn c;
  assert_int_equal(serve(&l, 10.0, &c, &refused), 1);
  pthread_join(f.k.thread, NULL);
  assert_int_equal(f.k.rc, MORPH_OK);
  assert_true(f.k.took < 2.0);
  assert_int_equal(c.uid, geteuid());
  /* More than the pending slots came: the oldest were dropped for them. */
  assert_true(refused >= SILENT + HALF - MORPH__PENDING_MAX);
  morph__conn_close(&c);
  for (int i = 0; i < SILENT + HALF; i++)
    close(f.fds[i]);
  morph__listener_close(&l);
}

static void test_silent_connection_is_refused_after_its_deadline(void **state)
{
  (void)state;
  morph__listener l;
  char addr[128];
  open_tcp(&l, addr, sizeof addr);
  int fd = raw(addr, "");
  morph__conn c;
  int refused = 0;
  double t0 = morph__now();
  struct pollfd p[4];
  int rc = 0;
  while (rc == 0 && morph__now() - t0 < 5.0) {
    poll(p, (nfds_t)morph__listener_fds(&l, p, 4), 50);
    rc = morph__listener_take(&l, &c);
  }
  assert_int_equal(rc, MORPH_EAUTH);
  assert_non_null(strstr(c.why, "within 2 s"));
  double waited = morph__now() - t0;
  assert_true(waited >= MORPH__AUTH_TIMEOUT && waited < MORPH__AUTH_TIMEOUT + 1.0);
  (void)refused;
  close(fd);
  morph__listener_close(&l);
}

static void test_garbage_first_line_is_refused_at_once(void **state)
{
  (void)state;
  morph__listener l;
  char addr[128];
  open_tcp(&l, addr, sizeof addr);
  int fd = raw(addr, "{\"cmd\":\"cancel\",\"id\":3}\n");
  morph__conn c;
  int refused = 0;
  assert_int_equal(serve(&l, 1.0, &c, &refused), 0);
  assert_int_equal(refused, 1);
  assert_int_equal(l.npend, 0);
  close(fd);
  morph__listener_close(&l);
}

static void test_unix_client_is_known_by_its_uid_at_once(void **state)
{
  (void)state;
  morph__listener l;
  client k;
  snprintf(k.addr, sizeof k.addr, "/tmp/test-listener-%d.sock", (int)getpid());
  assert_int_equal(morph__listener_open(&l, k.addr, 1), MORPH_OK);
  pthread_create(&k.thread, NULL, client_main, &k);
  morph__conn c;
  int refused = 0;
  assert_int_equal(serve(&l, 3.0, &c, &refused), 1);
  pthread_join(k.thread, NULL);
  assert_int_equal(k.rc, MORPH_OK);
  assert_int_equal(c.tcp, 0);
  assert_int_equal(c.uid, geteuid());
  assert_int_equal(c.gid, getegid());
  morph__conn_close(&c);
  morph__listener_close(&l);
  unlink(k.addr);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_client_gets_in_past_silent_and_half_open_connections),
    cmocka_unit_test(test_silent_connection_is_refused_after_its_deadline),
    cmocka_unit_test(test_garbage_first_line_is_refused_at_once),
    cmocka_unit_test(test_unix_client_is_known_by_its_uid_at_once),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
