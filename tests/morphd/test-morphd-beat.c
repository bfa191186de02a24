/*
 * Unit tests of morphd's heartbeats (rms/beat.h): the window estimator of
 * the outage probability, its journal text, and real connects to a
 * listening and a closed port on this machine. Each cmocka_unit_test is
 * its own ctest test.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <time.h>

#include "morph/error.h"
#include "rms/beat.h"
#include "rms/journal.h"

static void beat_window_estimates_missed_over_window(void **state)
{
  (void)state;
  morph__beat_window w;
  morph__beat_window_init(&w, 4);
  assert_true(morph__beat_window_p(&w) == 0.0);
  morph__beat_window_add(&w, 1); /* one miss, 3 beats not sent yet: 1/4 */
  assert_true(morph__beat_window_p(&w) == 0.25);
  morph__beat_window_add(&w, 1);
  morph__beat_window_add(&w, 0);
  morph__beat_window_add(&w, 1);
  assert_int_equal(morph__beat_window_misses(&w), 3);
  assert_true(morph__beat_window_p(&w) == 0.75);
  /* Answers push the misses out: after 4 answers the node is at 0. */
  for (int k = 0; k < 3; k++)
    morph__beat_window_add(&w, 0);
  assert_true(morph__beat_window_p(&w) == 0.25);
  morph__beat_window_add(&w, 0);
  assert_true(morph__beat_window_p(&w) == 0.0);
  /* The widest window: 64 misses are p = 1. */
  morph__beat_window_init(&w, 1000);
  assert_int_equal(w.size, MORPH__BEAT_WINDOW_MAX);
  for (int k = 0; k < 70; k++)
    morph__beat_window_add(&w, 1);
  assert_true(morph__beat_window_p(&w) == 1.0);
}

static void beat_window_text_round_trips_through_journal(void **state)
{
  (void)state;
  morph__beat_window w, back;
  morph__beat_window_init(&w, 5);
  morph__beat_window_add(&w, 0);
  morph__beat_window_add(&w, 1);
  morph__beat_window_add(&w, 1);
  char text[MORPH__BEAT_WINDOW_MAX + 1];
  morph__beat_window_format(&w, text, sizeof text);
  assert_string_equal(text, "011"); /* oldest first, only what was sent */

  char dir[] = "/tmp/test-morphd-beat-XXXXXX", path[64], err[256], got[80];
  assert_non_null(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/j.db", dir);
  morph__journal *j;
  assert_int_equal(morph__journal_open(path, 0, &j, err, sizeof err), MORPH_OK);
  assert_int_equal(morph__journal_node_load(j, "node2", got, sizeof got), MORPH_ENOENT);
  assert_int_equal(morph__journal_node_save(j, "node2", 1.0, text, morph__beat_window_p(&w)),
                   MORPH_OK);
  morph__journal_close(j);
  assert_int_equal(morph__journal_open(path, 0, &j, err, sizeof err), MORPH_OK);
  assert_int_equal(morph__journal_node_load(j, "node2", got, sizeof got), MORPH_OK);
  morph__journal_close(j);
  morph__beat_window_init(&back, 5);
  assert_int_equal(morph__beat_window_parse(&back, got), MORPH_OK);
  assert_true(morph__beat_window_p(&back) == morph__beat_window_p(&w));
  assert_int_equal(back.seen, 3);
  /* A smaller window keeps the newest part; junk is refused, w unchanged. */
  morph__beat_window_init(&back, 2);
  assert_int_equal(morph__beat_window_parse(&back, "10011"), MORPH_OK);
  assert_int_equal(morph__beat_window_misses(&back), 2);
  assert_int_equal(morph__beat_window_parse(&back, "01x"), MORPH_EPARSE);
  assert_int_equal(morph__beat_window_misses(&back), 2);
  unlink(path);
  char wal[80];
  snprintf(wal, sizeof wal, "%s-wal", path);
  unlink(wal);
  snprintf(wal, sizeof wal, "%s-shm", path);
  unlink(wal);
  rmdir(dir);
}

static double now_s(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A listening socket on 127.0.0.1, its port in *port. */
static int listener(int *port)
{
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  assert_true(fd >= 0);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
  assert_int_equal(listen(fd, 16), 0);
  socklen_t len = sizeof a;
  assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
  *port = ntohs(a.sin_port);
  return fd;
}

/* Ticks b until `beats` heartbeats were recorded (each round is 0.1 s). */
static void run_beats(morph__beat *b, int beats)
{
  double until = now_s() + 20;
  int seen = 0;
  while (seen < beats && now_s() < until) {
    seen += morph__beat_tick(b, now_s());
    usleep(10000);
  }
  assert_true(seen >= beats);
}

static void beat_misses_node_that_stops_answering(void **state)
{
  (void)state;
  int port, lfd = listener(&port);
  const char *hosts[] = {"127.0.0.1", "127.0.0.2"}; /* nothing listens on .2 */
  morph__beat b;
  assert_int_equal(morph__beat_init(&b, hosts, 2, 0.1, port, 4, now_s()), MORPH_OK);
  run_beats(&b, 2 * 4);
  assert_true(morph__beat_window_p(&b.nodes[0].win) == 0.0); /* accepted: answered */
  assert_true(morph__beat_window_p(&b.nodes[1].win) == 1.0); /* refused: missed */
  close(lfd); /* the node stops answering: refused from now on */
  run_beats(&b, 2 * 2);
  assert_true(morph__beat_window_p(&b.nodes[0].win) >= 0.5);
  morph__beat_fini(&b);
  assert_int_equal(morph__beat_init(&b, hosts, 1, 0, port, 4, 0), MORPH_EINVAL);
  assert_int_equal(morph__beat_init(&b, hosts, 1, 1, 70000, 4, 0), MORPH_EINVAL);
}

int main(int argc, char **argv)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(beat_window_estimates_missed_over_window),
    cmocka_unit_test(beat_window_text_round_trips_through_journal),
    cmocka_unit_test(beat_misses_node_that_stops_answering),
  };
  if (argc > 1)
    cmocka_set_test_filter(argv[1]);
  return cmocka_run_group_tests(tests, NULL, NULL);
}
