/*
 * A stand-in for morphd, for testing morph run's relay: it accepts the
 * connection of one `morph run`, prints every message it receives as
 * "fake-morphd: <json>", sends the RESIZEs of --resize one after another
 * (the first once a malleable HELLO has arrived, each next one after the
 * ACK of the previous), and ends on BYE, after --exit-after-ack, or after
 * --lifetime seconds.
 *
 * usage: fake-morphd --socket PATH [--resize 3,2] [--exit-after-ack]
 *                    [--lifetime S]
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"
#include "morph/error.h"
#include "proto/protocol.h"

struct daemon {
  const char *socket;
  int sizes[16], n_sizes, next;
  int exit_after_ack, outstanding;
  double lifetime;
};

static void print(const morph__msg *m)
{
  char line[2048];
  if (morph__msg_encode(m, line, sizeof line) > 0)
    printf("fake-morphd: %s", line);
  fflush(stdout);
}

static void send_next(struct daemon *d, morph__conn *c)
{
  if (d->outstanding || d->next >= d->n_sizes)
    return;
  morph__msg r;
  morph__msg_init(&r, MORPH__MSG_RESIZE);
  r.id = 100 + d->next;
  r.size = d->sizes[d->next++];
  morph__send(c, &r);
  d->outstanding = 1;
  printf("fake-morphd: sent resize %d to %d\n", r.id, r.size);
}

/* Returns 1 when the daemon should end. */
static int on_message(struct daemon *d, morph__conn *c, const morph__msg *m)
{
  print(m);
  if (m->kind == MORPH__MSG_HELLO) {
    morph__msg w;
    morph__msg_init(&w, MORPH__MSG_WELCOME);
    snprintf(w.job, sizeof w.job, "%s", m->job);
    morph__send(c, &w);
  }
  if (m->kind == MORPH__MSG_ACK) {
    d->outstanding = 0;
    if (d->exit_after_ack)
      return 1;
  }
  if (m->kind == MORPH__MSG_BYE)
    return 1;
  if (m->kind == MORPH__MSG_HELLO && m->mechanisms)
    send_next(d, c);
  else if (m->kind == MORPH__MSG_ACK)
    send_next(d, c);
  return 0;
}

static int serve(struct daemon *d, int lfd)
{
  morph__conn c;
  if (morph__accept(lfd, &c) != MORPH_OK)
    return 1;
  double end = morph__now() + d->lifetime;
  while (morph__now() < end) {
    morph__msg m;
    char err[256];
    int rc = morph__recv(&c, &m, 0.1, err, sizeof err);
    if (rc < 0) {
      printf("fake-morphd: connection closed\n");
      return 0;
    }
    if (rc == 1 && on_message(d, &c, &m))
      break;
  }
  morph__conn_close(&c);
  return 0;
}

int main(int argc, char **argv)
{
  struct daemon d = {.lifetime = 60};
  static const struct option o[] = {{"socket", 1, 0, 's'}, {"resize", 1, 0, 'r'},
                                    {"exit-after-ack", 0, 0, 'x'}, {"lifetime", 1, 0, 'l'},
                                    {0, 0, 0, 0}};
  int c;
  while ((c = getopt_long(argc, argv, "", o, NULL)) != -1) {
    if (c == 's')
      d.socket = optarg;
    else if (c == 'x')
      d.exit_after_ack = 1;
    else if (c == 'l')
      d.lifetime = atof(optarg);
    else if (c == 'r')
      for (char *t = strtok(optarg, ","); t && d.n_sizes < 16; t = strtok(NULL, ","))
        d.sizes[d.n_sizes++] = atoi(t);
    else
      return 2;
  }
  int lfd = d.socket ? morph__listen(d.socket) : -1;
  if (lfd < 0)
    return fprintf(stderr, "fake-morphd: cannot listen\n"), 1;
  printf("fake-morphd: listening\n");
  fflush(stdout);
  int rc = serve(&d, lfd);
  close(lfd);
  unlink(d.socket);
  return rc;
}
