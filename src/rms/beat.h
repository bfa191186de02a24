/*
 * rms/beat: morphd's heartbeats to the nodes of its pool, and the outage
 * probability it estimates from them (paper 004's "failure probability"
 * of a node, fed to the placement stage).
 *
 * A heartbeat is one TCP connection to the node's heartbeat port (default
 * 22: sshd, which mpirun's rsh launch needs on every node anyway). It is
 * answered when the connection is accepted within the timeout; refused,
 * unreachable or silent past the timeout, it is missed. Every connect is
 * non-blocking and checked with a zero-timeout poll() from morphd's loop,
 * so a node that stops answering never holds the scheduler up: a round
 * costs one socket per node and ends at its timeout at the latest.
 *
 * Estimator: p = (heartbeats missed among the node's last W) / W, W the
 * window (default 20). Before W heartbeats were sent, the ones not sent
 * count as answered, so a new node starts at 0 and one miss weighs 1/W.
 * A node that answered its last W is at exactly 0 ("not faulty" for
 * paper 004's Eq. 1), and a node that comes back decays to 0 within W
 * rounds. The window is journaled per host (a string of '0' answered /
 * '1' missed, oldest first), so a restarted morphd goes on from it.
 */
#ifndef MORPH_RMS_BEAT_H
#define MORPH_RMS_BEAT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#define MORPH__BEAT_WINDOW_MAX 64
#define MORPH__BEAT_WINDOW_DEFAULT 20

/* The last `size` heartbeats of one node: bit k of `missed` is the k-th
 * newest (1: missed); `seen` of them were sent (<= size). */
typedef struct morph__beat_window {
  uint64_t missed;
  int size, seen;
} morph__beat_window;

/* An empty window of `size` heartbeats (clamped to 1..MORPH__BEAT_WINDOW_MAX). */
void morph__beat_window_init(morph__beat_window *w, int size);
/* Records one heartbeat, the oldest leaves the window. */
void morph__beat_window_add(morph__beat_window *w, int missed);
/* Missed heartbeats in the window. */
int morph__beat_window_misses(const morph__beat_window *w);
/* The estimate: misses / size, in [0, 1]. */
double morph__beat_window_p(const morph__beat_window *w);
/* "0010...": one character per heartbeat sent, oldest first. buf needs
 * size + 1 bytes (MORPH__BEAT_WINDOW_MAX + 1 always do). */
void morph__beat_window_format(const morph__beat_window *w, char *buf, size_t bufsize);
/* Replays a formatted window into w (w's size kept: a longer text keeps
 * its newest part). Errors: MORPH_EPARSE (a character other than 0 and
 * 1); w is unchanged then. */
int morph__beat_window_parse(morph__beat_window *w, const char *text);

/* One node's heartbeat. */
typedef struct morph__beat_node {
  char host[64];
  struct sockaddr_storage addr; /* resolved once, when the heartbeat starts */
  socklen_t addrlen;            /* 0: the name did not resolve (every beat missed) */
  int fd;                       /* the connection in flight; -1: none */
  morph__beat_window win;
  int changed;                  /* a heartbeat was recorded since the caller last looked */
} morph__beat_node;

typedef struct morph__beat {
  double period;  /* seconds between rounds */
  double timeout; /* seconds a connect may take (<= period) */
  int port;
  morph__beat_node *nodes;
  int nnodes;
  double round_at, deadline; /* next round; the end of the round in flight */
} morph__beat;

/* Sets up heartbeats to hosts[0..n-1] every `period` seconds on `port`
 * with a window of `window` (<= 0: MORPH__BEAT_WINDOW_DEFAULT), the first round due at `now`. Names are
 * resolved here (getaddrinfo: the hosts file on a cluster); a name that
 * does not resolve is kept and misses every heartbeat. Errors:
 * MORPH_EINVAL (period <= 0, port outside 1..65535, a host name too
 * long), MORPH_ENOMEM; b is empty then. */
int morph__beat_init(morph__beat *b, const char *const *hosts, int n, double period, int port,
                     int window, double now);
/* Closes the connections in flight and frees b. */
void morph__beat_fini(morph__beat *b);

/* Checks the connections in flight (never waits), records what they
 * answered or what timed out, and starts a round when one is due.
 * Returns the number of heartbeats recorded (their nodes have `changed`). */
int morph__beat_tick(morph__beat *b, double now);

#endif /* MORPH_RMS_BEAT_H */
