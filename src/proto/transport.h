/*
 * Stream connections between morph's programs (docs/protocol.md,
 * "Transport"). An address is one of:
 *
 *   /path/to/sock    a Unix stream socket on this host, created
 *                    owner-only (mode 0600; a shared server such as
 *                    morphd opens it up itself); the kernel says who the
 *                    peer is (SO_PEERCRED);
 *   host:port        TCP between hosts. Both sides prove who they are with
 *                    MUNGE credentials (auth.h) before anything else is
 *                    said, and every later line is sealed with the session
 *                    key the handshake gave (seal.h); a peer that fails is
 *                    refused and the reason kept in the connection's `why`.
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
#include <sys/types.h>

#include "proto/seal.h"

/* A connection: a socket, who is at the other end, its read buffer and,
 * after a failure, why. */
typedef struct morph__conn {
  int fd;          /* -1: closed */
  int tcp;         /* 1: a TCP connection (authenticated), 0: Unix */
  uid_t uid;       /* the peer's user and group: SO_PEERCRED on a Unix */
  gid_t gid;       /* socket, the MUNGE credential over TCP */
  morph__seal seal; /* TCP after the handshake: every line carries a MAC */
  size_t len;      /* bytes waiting in buf */
  char buf[8192];
  char peer[64];   /* "unix" or the peer's "address:port" */
  char why[256];   /* the last failure of connect / accept, for people */
  int err;         /* its errno, when a system call failed (0: none) */
} morph__conn;

/* A fresh connection on fd: no peer known yet (uid and gid -1), not
 * sealed, empty buffer, peer "unix". */
void morph__conn_init(morph__conn *c, int fd, int tcp);

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

/* Accepts one client on a listening fd into *c, blocking: a TCP client
 * must authenticate as our own user within 2 s (a server that must never
 * wait on a peer uses listener.h instead). A Unix client's uid and gid are
 * taken from the kernel (SO_PEERCRED).
 * Errors: MORPH_EIO (accept failed), MORPH_EAUTH (the client was refused:
 * c->why says why, the connection is closed). On error c->fd is -1. */
int morph__accept(int listen_fd, morph__conn *c);

/* Sets c->uid and c->gid from the kernel's record of a Unix socket's peer
 * (SO_PEERCRED). Errors: MORPH_EIO (not a Unix socket). */
int morph__conn_peercred(morph__conn *c);

struct sockaddr_storage;
/* Names a TCP peer "address:port" in c->peer. */
void morph__conn_name_peer(morph__conn *c, const struct sockaddr_storage *ss);

/* Connects to the first of the comma-separated addresses that answers,
 * trying them in rounds until `timeout` seconds have passed (a server may
 * still be starting). The server must run as a user a client trusts
 * (morph__auth_trusted_server: the kernel says it on a Unix socket, its
 * MUNGE credential over TCP); a TCP connection is authenticated both ways
 * and sealed. Errors: MORPH_ECONN (nothing answered in time), MORPH_EAUTH
 * (the server refused our credential, gave none that is valid, or runs as
 * an untrusted user), MORPH_EINVAL (malformed address). c->why says what
 * happened; on error c->fd is -1. */
int morph__connect(const char *addrs, double timeout, morph__conn *c);

/* Writes n bytes as they are. Errors: MORPH_ECONN (peer gone). */
int morph__conn_write(morph__conn *c, const char *buf, size_t n);

/* Writes one line: the payload (n bytes, no '\n'), sealed if the
 * connection is (seal.h), and its '\n'. Errors: MORPH_ECONN (peer gone),
 * MORPH_ENOMEM. */
int morph__conn_send_line(morph__conn *c, const char *payload, size_t n);

/* Reads what has arrived within `timeout` seconds (0: only what is there,
 * negative: wait) into the buffer. Returns 1 if bytes came, 0 if none did
 * in time, MORPH_ECONN if the peer closed, MORPH_EPROTO if the buffer is
 * full without a line end (no valid line is that long). */
int morph__conn_fill(morph__conn *c, double timeout);

/* Takes the first complete line out of the buffer: copies it (its payload
 * on a sealed connection), without its '\n' and NUL-terminated, into line.
 * Returns its length; -1 if no complete line has arrived yet (or it does
 * not fit in size bytes, in which case it stays in the buffer);
 * MORPH_EAUTH if the line is not the peer's next sealed line (injected,
 * replayed or changed on the way): the caller must close the connection. */
int morph__conn_line(morph__conn *c, char *line, size_t size);

/* Closes the connection (idempotent); `why` is kept. */
void morph__conn_close(morph__conn *c);

#endif /* MORPH_PROTO_TRANSPORT_H */
