/* The wire format round-trips every field, and bad lines are rejected with
 * a reason rather than half-decoded. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#include <cmocka.h>

#include "morph/error.h"
#include "proto/protocol.h"

static void test_ack_roundtrip(void **state)
{
  (void)state;
  morph__msg a, b;
  morph__msg_init(&a, MORPH__MSG_ACK);
  a.id = 7, a.outcome = MORPH_ETIMEDOUT, a.old_size = 3, a.new_size = 3;
  a.t_spawn = 1.25, a.bytes = (int64_t)1 << 40, a.iteration = 123;
  snprintf(a.text, sizeof a.text, "spawn timed out \"quoted\"\n");
  char line[2048], err[128];
  int n = morph__msg_encode(&a, line, sizeof line);
  assert_true(n > 0);
  assert_int_equal(line[n - 1], '\n');
  assert_int_equal(morph__msg_decode(line, &b, err, sizeof err), MORPH_OK);
  assert_int_equal(b.kind, MORPH__MSG_ACK);
  assert_int_equal(b.id, 7);
  assert_int_equal(b.outcome, MORPH_ETIMEDOUT);
  assert_true(b.bytes == ((int64_t)1 << 40));
  assert_true(b.t_spawn == 1.25);
  assert_int_equal(b.iteration, 123);
  assert_string_equal(b.text, a.text);
}

/* morph run's HELLO names its checkpoint folder (morphd: a job that can
 * be relaunched without a host it leaves). */
static void test_hello_carries_the_checkpoint_folder(void **state)
{
  (void)state;
  morph__msg a, b;
  morph__msg_init(&a, MORPH__MSG_HELLO);
  snprintf(a.job, sizeof a.job, "42");
  a.mechanisms = MORPH__MECH_BIT_LIVE | MORPH__MECH_BIT_RELAUNCH;
  snprintf(a.checkpoint, sizeof a.checkpoint, "/shared/ckpt");
  char line[2048], err[128];
  assert_true(morph__msg_encode(&a, line, sizeof line) > 0);
  assert_int_equal(morph__msg_decode(line, &b, err, sizeof err), MORPH_OK);
  assert_string_equal(b.checkpoint, "/shared/ckpt");
  assert_int_equal(b.mechanisms, a.mechanisms);
}

static void test_fields_of_other_kinds_are_not_sent(void **state)
{
  (void)state;
  morph__msg a;
  morph__msg_init(&a, MORPH__MSG_RESIZE);
  a.size = 5, a.bytes = 99;
  char line[2048];
  assert_true(morph__msg_encode(&a, line, sizeof line) > 0);
  assert_non_null(strstr(line, "\"size\":5"));
  assert_null(strstr(line, "bytes"));
}

static void test_bad_lines_are_rejected(void **state)
{
  (void)state;
  static const char *const bad[] = {
    "not json", "[1,2]", "{\"type\":\"hello\"}", "{\"v\":2,\"type\":\"hello\"}",
    "{\"v\":1,\"type\":\"dance\"}", "{\"v\":1,\"type\":\"resize\",\"size\":\"four\"}",
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    morph__msg m;
    char err[128] = "";
    assert_int_equal(morph__msg_decode(bad[i], &m, err, sizeof err), MORPH_EPROTO);
    assert_true(strlen(err) > 0);
  }
}

static void test_unknown_fields_are_ignored(void **state)
{
  (void)state;
  morph__msg m;
  char err[128];
  assert_int_equal(morph__msg_decode("{\"v\":1,\"type\":\"resize\",\"size\":4,\"colour\":\"red\"}",
                                     &m, err, sizeof err),
                   MORPH_OK);
  assert_int_equal(m.size, 4);
}

static void test_socket_exchange_and_peer_close(void **state)
{
  (void)state;
  char path[64];
  snprintf(path, sizeof path, "/tmp/morph-test-proto-%d.sock", (int)getpid());
  int lfd = morph__listen(path);
  assert_true(lfd >= 0);
  morph__conn client, server;
  assert_int_equal(morph__connect(path, 1.0, &client), MORPH_OK);
  assert_int_equal(morph__accept(lfd, &server), MORPH_OK);
  morph__msg m, r;
  char err[128];
  morph__msg_init(&m, MORPH__MSG_HELLO);
  m.size = 3, m.min = 1, m.max = 8;
  assert_int_equal(morph__recv(&server, &r, 0, err, sizeof err), 0);
  assert_int_equal(morph__send(&client, &m), MORPH_OK);
  assert_int_equal(morph__send(&client, &m), MORPH_OK);
  assert_int_equal(morph__recv(&server, &r, 1.0, err, sizeof err), 1);
  assert_int_equal(r.max, 8);
  assert_int_equal(morph__recv(&server, &r, 1.0, err, sizeof err), 1);
  morph__conn_close(&client);
  assert_int_equal(morph__recv(&server, &r, 1.0, err, sizeof err), MORPH_ECONN);
  morph__conn_close(&server);
  close(lfd);
  unlink(path);
}

static void test_connect_to_missing_socket_fails_fast(void **state)
{
  (void)state;
  morph__conn c;
  assert_int_equal(morph__connect("/tmp/morph-no-such.sock", 0.1, &c), MORPH_ECONN);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_ack_roundtrip),
    cmocka_unit_test(test_hello_carries_the_checkpoint_folder),
    cmocka_unit_test(test_fields_of_other_kinds_are_not_sent),
    cmocka_unit_test(test_bad_lines_are_rejected),
    cmocka_unit_test(test_unknown_fields_are_ignored),
    cmocka_unit_test(test_socket_exchange_and_peer_close),
    cmocka_unit_test(test_connect_to_missing_socket_fails_fast),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
