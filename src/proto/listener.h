/*
 * A listening socket for a server that must never wait on one peer
 * (morphd, morph run): accepting, reading a TCP client's credential and
 * answering it all happen without blocking, one step each time the
 * server's poll loop wakes, with a deadline per connection and a cap on
 * the connections still authenticating.
 *
 *   morph__listener_open          once
 *   loop: morph__listener_fds     adds its fds to the server's poll set
 *         poll(...)
 *         while ((rc = morph__listener_take(l, &c)) != 0)
 *           rc == 1: c is a new connection, authenticated
 *           rc < 0:  one was refused (c.peer, c.why say who and why)
 *   morph__listener_close         once
 *
 * A Unix client is ready at once (the kernel says who it is). A TCP client
 * waits in a pending slot until its credential line arrives (at most
 * MORPH__AUTH_TIMEOUT seconds); when all MORPH__PENDING_MAX slots are
 * taken, the oldest pending one is dropped for the newcomer, so silent or
 * half-open connections cannot lock legitimate clients out. At most
 * MORPH__ACCEPT_BURST connections are accepted per turn of the loop, and
 * running out of file descriptors drops the newcomer instead of spinning.
 */
#ifndef MORPH_PROTO_LISTENER_H
#define MORPH_PROTO_LISTENER_H

#include <poll.h>

#include "proto/transport.h"

#define MORPH__AUTH_TIMEOUT 2.0
#define MORPH__PENDING_MAX 256
#define MORPH__ACCEPT_BURST 32

typedef struct morph__pending {
  morph__conn c;
  double deadline; /* morph__now() by which its credential must be in */
} morph__pending;

typedef struct morph__listener {
  int fd;            /* the listening socket; -1: closed */
  int any_user;      /* TCP: accept every user's credential (morphd), not
                        only our own (morph run) */
  int reserve;       /* an fd kept open to accept-and-close with when the
                        process has no fd left */
  int burst;         /* accepted since take last returned 0 */
  int scan;          /* the pending slot this turn's next take looks at */
  morph__pending *pend; /* MORPH__PENDING_MAX slots, oldest first */
  int npend;
  long refused;      /* connections refused so far (for status) */
} morph__listener;

/* Listens on addr (transport.h's morph__listen: a Unix socket path, mode
 * 0600, or host:port). Errors: those of morph__listen, MORPH_ENOMEM;
 * nothing is left open then. */
int morph__listener_open(morph__listener *l, const char *addr, int any_user);

/* Writes the pollfds to watch (the listening socket, then each pending
 * connection) into p, at most room of them; returns how many. */
int morph__listener_fds(const morph__listener *l, struct pollfd *p, int room);

/* One step; never waits. Returns 1 with *out a new connection (Unix, or
 * TCP authenticated and sealed), 0 when nothing more is ready this turn,
 * or a negative error for a connection refused and closed: MORPH_EAUTH
 * (bad, missing or late credential, dropped for a newer one), MORPH_EIO
 * (accept failed); out->peer and out->why say who and why. Call until it
 * returns 0. */
int morph__listener_take(morph__listener *l, morph__conn *out);

/* Closes the listening socket and every pending connection (idempotent).
 * A Unix socket's file is not removed: its owner does that. */
void morph__listener_close(morph__listener *l);

#endif /* MORPH_PROTO_LISTENER_H */
