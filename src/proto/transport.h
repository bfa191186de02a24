/*
 * Stream connections between morph's programs (docs/protocol.md,
 * "Transport"). An address is one of:
 *
 *   /path/to/sock    a Unix stream socket on this host, owner-only (mode
 *                    0600): only the same user on the same host connects;
 *   host:port        TCP between hosts. Both sides prove who they are with
 *                    MUNGE credentials (auth.c) before anything else is
 *                    said; a peer without a valid, fresh credential of the
 *                    same user is refused and the reason kept in the
 *                    connection's `why`.
 *
 * A client may name several addresses separated by commas (for example the
 * launcher's local socket, then its TCP address): morph__connect tries them
 * in order, so a process on the launcher's host takes the local socket and
 * one on another host, where that path does not exist, goes over TCP.
 *
 * No MPI here; used by libmorph (rank 0), morph run and morphd.
 */
#ifndef MORPH_PROTO_TRANSPORT_H
#define MORPH_PROTO_TRANSPORT_H

#include <stddef.h>

/* A connection: a socket, its read buffer and, after a failure, why. */
typedef struct morph__conn {
  int fd;          /* -1: closed */
  int tcp;         /* 1: a TCP connection (authenticated), 0: Unix */
  size_t len;      /* bytes waiting in buf */
  char buf[8192];
  char peer[64];   /* "unix" or the peer's "address:port" */
  char why[256];   /* the last failure of connect / accept, for people */
} morph__conn;

/* 1 if `addr` names a TCP endpoint ("host:port"), 0 if a socket path. */
int morph__addr_is_tcp(const char *addr);

/* Creates a listening socket.
 *  - a path: a Unix socket readable and writable only by its owner (mode
 *    0600); an existing stale socket file is replaced;
 *  - "host:port": TCP on that address ("*" or "" for every address; port
 *    0 for one the system chooses, see morph__listen_name).
 * Returns the fd, or MORPH_EINVAL (path too long, malformed address,
 * unknown host), MORPH_EIO (socket, bind or listen failed). Nothing is left
 * open on error. */
int morph__listen(const char *addr);

/* Writes the address a client should connect to for the listening socket
 * fd into buf: the path of a Unix socket, "address:port" of a TCP one (the
 * host name of this machine when it listens on every address).
 * Errors: MORPH_EIO (not a socket), MORPH_EINVAL (buf too small). */
int morph__listen_name(int fd, char *buf, size_t size);

/* Accepts one client on a listening fd into *c. A TCP client must first
 * authenticate (MUNGE, within 2 s). Blocks until a client arrives.
 * Errors: MORPH_EIO (accept failed), MORPH_EAUTH (the client was refused:
 * c->why says why, the connection is closed). On error c->fd is -1. */
int morph__accept(int listen_fd, morph__conn *c);

/* Connects to the first of the comma-separated addresses that answers,
 * trying them in rounds until `timeout` seconds have passed (a server may
 * still be starting). A TCP connection is authenticated both ways.
 * Errors: MORPH_ECONN (nothing answered in time), MORPH_EAUTH (the server
 * refused our credential or gave none that is valid), MORPH_EINVAL
 * (malformed address). c->why says what happened; on error c->fd is -1. */
int morph__connect(const char *addrs, double timeout, morph__conn *c);

/* Writes n bytes. Errors: MORPH_ECONN (peer gone). */
int morph__conn_write(morph__conn *c, const char *buf, size_t n);

/* Reads what has arrived within `timeout` seconds (0: only what is there,
 * negative: wait) into the buffer. Returns 1 if bytes came, 0 if none did
 * in time, MORPH_ECONN if the peer closed, MORPH_EPROTO if the buffer is
 * full without a line end (no valid line is that long). */
int morph__conn_fill(morph__conn *c, double timeout);

/* Takes the first complete line out of the buffer: copies it, without its
 * '\n' and NUL-terminated, into line. Returns its length, or -1 if no
 * complete line has arrived yet (or it does not fit in size bytes, in which
 * case it stays in the buffer). */
int morph__conn_line(morph__conn *c, char *line, size_t size);

/* Closes the connection (idempotent); `why` is kept. */
void morph__conn_close(morph__conn *c);

#endif /* MORPH_PROTO_TRANSPORT_H */
