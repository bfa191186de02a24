/* Connections between hosts: TCP with MUNGE authentication both ways.
 * Run beside a private munged (with-munged.sh sets MORPH_MUNGE_SOCKET): a
 * valid peer gets through, a forged, replayed or missing credential is
 * refused with a reason, and a list of addresses falls through to TCP when
 * the local socket is not there. */
#include <munge.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <sys/socket.h>

#include <cmocka.h>

#include "common/clock.h"
#include "morph/error.h"
#include "proto/protocol.h"

typedef struct server {
  int lfd;
  char addr[128];
  pthread_t thread;
  morph__conn conn;
  int rc;
} server;

static void *accept_main(void *arg)
{
  server *s = arg;
  s->rc = morph__accept(s->lfd, &s->conn);
  return NULL;
}

static void server_start(server *s)
{
  memset(s, 0, sizeof *s);
  s->lfd = morph__listen("127.0.0.1:0");
  assert_true(s->lfd >= 0);
  assert_int_equal(morph__listen_name(s->lfd, s->addr, sizeof s->addr), MORPH_OK);
  assert_int_equal(strncmp(s->addr, "127.0.0.1:", 10), 0);
  assert_int_equal(pthread_create(&s->thread, NULL, accept_main, s), 0);
}

static void server_join(server *s)
{
  pthread_join(s->thread, NULL);
  close(s->lfd);
}

/* A raw TCP client that says what it is told, unauthenticated. */
static int raw_connect(const char *addr)
{
  int port = atoi(strrchr(addr, ':') + 1);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
  inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof a), 0);
  return fd;
}

static char *cred_of(const char *payload)
{
  munge_ctx_t ctx = munge_ctx_create();
  munge_ctx_set(ctx, MUNGE_OPT_SOCKET, getenv("MORPH_MUNGE_SOCKET"));
  char *cred = NULL;
  assert_int_equal(munge_encode(&cred, ctx, payload, (int)strlen(payload)), EMUNGE_SUCCESS);
  munge_ctx_destroy(ctx);
  return cred;
}

static char *client_cred(void)
{
  return cred_of("morph-auth-2 client 0123456789abcdef0123456789abcdef");
}

/* Sends one line from an unauthenticated client; returns accept's result. */
static int refused_with(const char *line, char *why, size_t size)
{
  server s;
  server_start(&s);
  int fd = raw_connect(s.addr);
  assert_true(write(fd, line, strlen(line)) == (ssize_t)strlen(line));
  server_join(&s);
  close(fd);
  snprintf(why, size, "%s", s.conn.why);
  if (s.rc == MORPH_OK) /* accepted: the connection (and its seal) is ours to close */
    morph__conn_close(&s.conn);
  return s.rc;
}

static void test_tcp_peers_authenticate_and_talk(void **state)
{
  (void)state;
  server s;
  server_start(&s);
  morph__conn c;
  assert_int_equal(morph__connect(s.addr, 2.0, &c), MORPH_OK);
  server_join(&s);
  assert_int_equal(s.rc, MORPH_OK);
  assert_int_equal(c.tcp, 1);
  assert_int_equal(s.conn.tcp, 1);
  morph__msg m, r;
  char err[128];
  morph__msg_init(&m, MORPH__MSG_RESIZE);
  m.size = 6;
  snprintf(m.hosts, sizeof m.hosts, "node2,node2");
  assert_int_equal(morph__send(&s.conn, &m), MORPH_OK);
  assert_int_equal(morph__recv(&c, &r, 2.0, err, sizeof err), 1);
  assert_int_equal(r.size, 6);
  assert_string_equal(r.hosts, "node2,node2");
  morph__conn_close(&c);
  morph__conn_close(&s.conn);
}

static void test_forged_credential_is_refused(void **state)
{
  (void)state;
  char why[256];
  assert_int_equal(refused_with("{\"v\":1,\"type\":\"auth\",\"cred\":\"MUNGE:AAAAforged:\"}\n", why,
                                sizeof why),
                   MORPH_EAUTH);
  assert_non_null(strstr(why, "refused"));
}

static void test_replayed_credential_is_refused(void **state)
{
  (void)state;
  char *cred = client_cred(), line[1024], why[256];
  snprintf(line, sizeof line, "{\"v\":1,\"type\":\"auth\",\"cred\":\"%s\"}\n", cred);
  /* The first use is accepted (the client then hangs up); the same
   * credential a second time is a replay. */
  assert_int_equal(refused_with(line, why, sizeof why), MORPH_OK);
  assert_int_equal(refused_with(line, why, sizeof why), MORPH_EAUTH);
  assert_non_null(strstr(why, "eplayed"));
  free(cred);
}

static void test_client_that_does_not_authenticate_is_refused(void **state)
{
  (void)state;
  char why[256];
  assert_int_equal(refused_with("{\"v\":1,\"type\":\"hello\",\"size\":2}\n", why, sizeof why),
                   MORPH_EAUTH);
  assert_non_null(strstr(why, "did not authenticate"));
}

static void test_older_protocol_is_refused_by_name(void **state)
{
  (void)state;
  char *cred = cred_of("morph-auth-1 client 0123456789abcdef0123456789abcdef"), line[1024],
       why[256];
  snprintf(line, sizeof line, "{\"v\":1,\"type\":\"auth\",\"cred\":\"%s\"}\n", cred);
  assert_int_equal(refused_with(line, why, sizeof why), MORPH_EAUTH);
  assert_non_null(strstr(why, "older morph"));
  free(cred);
}

/* After the handshake every line is sealed: a line written into the stream
 * by someone else (here: raw bytes on the server's socket, as an on-path
 * relay would inject them) is refused, and so is a sealed line sent twice. */
static void test_injected_line_after_handshake_is_refused(void **state)
{
  (void)state;
  server s;
  server_start(&s);
  morph__conn c;
  assert_int_equal(morph__connect(s.addr, 2.0, &c), MORPH_OK);
  server_join(&s);
  assert_int_equal(s.rc, MORPH_OK);
  const char *bare = "{\"v\":1,\"type\":\"resize\",\"size\":9}\n";
  assert_int_equal(morph__conn_write(&s.conn, bare, strlen(bare)), MORPH_OK);
  morph__msg r;
  char err[160];
  assert_int_equal(morph__recv(&c, &r, 2.0, err, sizeof err), MORPH_EAUTH);
  assert_non_null(strstr(err, "sealed"));
  morph__conn_close(&c);
  morph__conn_close(&s.conn);
}

static void test_replayed_sealed_line_is_refused(void **state)
{
  (void)state;
  server s;
  server_start(&s);
  morph__conn c;
  assert_int_equal(morph__connect(s.addr, 2.0, &c), MORPH_OK);
  server_join(&s);
  char line[512];
  static const char welcome[] = "{\"v\":1,\"type\":\"welcome\"}";
  int n = morph__seal_line(&s.conn.seal, welcome, strlen(welcome), line, sizeof line);
  assert_true(n > MORPH__SEAL_OVERHEAD);
  assert_int_equal(morph__conn_write(&s.conn, line, (size_t)n), MORPH_OK);
  assert_int_equal(morph__conn_write(&s.conn, line, (size_t)n), MORPH_OK);
  morph__msg r;
  char err[160];
  assert_int_equal(morph__recv(&c, &r, 2.0, err, sizeof err), 1);
  assert_int_equal(r.kind, MORPH__MSG_WELCOME);
  assert_int_equal(morph__recv(&c, &r, 2.0, err, sizeof err), MORPH_EAUTH);
  morph__conn_close(&c);
  morph__conn_close(&s.conn);
}

/* The server's answer carries the session key in a credential only the
 * client's user can decode, and both sides learn who the other is. */
static void test_handshake_names_both_users(void **state)
{
  (void)state;
  server s;
  server_start(&s);
  morph__conn c;
  assert_int_equal(morph__connect(s.addr, 2.0, &c), MORPH_OK);
  server_join(&s);
  assert_int_equal(c.uid, geteuid());
  assert_int_equal(s.conn.uid, geteuid());
  assert_true(c.seal.on && s.conn.seal.on);
  /* Both ends hold the same key: what one seals, the other opens. */
  char line[256];
  const char *payload;
  int n = morph__seal_line(&c.seal, "{}", 2, line, sizeof line);
  assert_int_equal(morph__seal_open(&s.conn.seal, line, (size_t)n - 1, &payload), 2);
  morph__conn_close(&c);
  morph__conn_close(&s.conn);
}

static void *fake_server_main(void *arg)
{
  int lfd = *(int *)arg;
  int fd = accept(lfd, NULL, NULL);
  char buf[2048];
  ssize_t n = read(fd, buf, sizeof buf);
  (void)n;
  /* A valid credential, but not an answer to this client's nonce. */
  char *cred = client_cred(), line[1024];
  snprintf(line, sizeof line, "{\"v\":1,\"type\":\"auth\",\"cred\":\"%s\"}\n", cred);
  n = write(fd, line, strlen(line));
  free(cred);
  morph__sleep(0.5);
  close(fd);
  return NULL;
}

static void test_server_without_a_fresh_answer_is_refused(void **state)
{
  (void)state;
  int lfd = morph__listen("127.0.0.1:0");
  char addr[128];
  assert_int_equal(morph__listen_name(lfd, addr, sizeof addr), MORPH_OK);
  pthread_t t;
  pthread_create(&t, NULL, fake_server_main, &lfd);
  morph__conn c;
  assert_int_equal(morph__connect(addr, 2.0, &c), MORPH_EAUTH);
  assert_int_equal(c.fd, -1);
  assert_true(strlen(c.why) > 0);
  pthread_join(t, NULL);
  close(lfd);
}

static void test_address_list_falls_through_to_tcp(void **state)
{
  (void)state;
  server s;
  server_start(&s);
  char list[256];
  snprintf(list, sizeof list, "/tmp/morph-no-such-%d.sock,%s", (int)getpid(), s.addr);
  morph__conn c;
  assert_int_equal(morph__connect(list, 2.0, &c), MORPH_OK);
  server_join(&s);
  assert_int_equal(s.rc, MORPH_OK);
  assert_int_equal(c.tcp, 1);
  morph__conn_close(&c);
  morph__conn_close(&s.conn);
}

static void test_nobody_listening_times_out(void **state)
{
  (void)state;
  int lfd = morph__listen("127.0.0.1:0");
  char addr[128];
  morph__listen_name(lfd, addr, sizeof addr);
  close(lfd); /* the port is now closed */
  morph__conn c;
  double t0 = morph__now();
  assert_int_equal(morph__connect(addr, 0.3, &c), MORPH_ECONN);
  assert_true(morph__now() - t0 < 2.0);
  assert_true(strlen(c.why) > 0);
}

static void test_addresses_are_classified(void **state)
{
  (void)state;
  assert_true(morph__addr_is_tcp("node1:7000"));
  assert_true(morph__addr_is_tcp("198.18.0.11:0"));
  assert_false(morph__addr_is_tcp("/tmp/x.sock"));
  assert_false(morph__addr_is_tcp("/tmp/a:b/x.sock"));
  assert_false(morph__addr_is_tcp("job.sock"));
  assert_true(morph__listen("node1:notaport") < 0);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_addresses_are_classified),
    cmocka_unit_test(test_tcp_peers_authenticate_and_talk),
    cmocka_unit_test(test_forged_credential_is_refused),
    cmocka_unit_test(test_replayed_credential_is_refused),
    cmocka_unit_test(test_older_protocol_is_refused_by_name),
    cmocka_unit_test(test_injected_line_after_handshake_is_refused),
    cmocka_unit_test(test_replayed_sealed_line_is_refused),
    cmocka_unit_test(test_handshake_names_both_users),
    cmocka_unit_test(test_client_that_does_not_authenticate_is_refused),
    cmocka_unit_test(test_server_without_a_fresh_answer_is_refused),
    cmocka_unit_test(test_address_list_falls_through_to_tcp),
    cmocka_unit_test(test_nobody_listening_times_out),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
