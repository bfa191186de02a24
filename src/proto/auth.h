/*
 * Who is at the other end of a connection (docs/protocol.md, "Transport",
 * and docs/security.md).
 *
 * On a Unix socket the kernel says it: SO_PEERCRED gives the peer's uid and
 * gid, and nobody can write into the connection but the two processes.
 *
 * Over TCP both sides prove who they are with MUNGE, the way Slurm
 * authenticates its daemons: every host runs munged with the cluster's one
 * key, and a credential proves the user that made it, the host it came from
 * and when, and munged refuses one it has seen before.
 *
 *   client -> server  {"v":1,"type":"auth","cred":C1}
 *                      C1 = MUNGE credential of "morph-auth-2 client <nonce>"
 *   server -> client  {"v":1,"type":"auth","cred":C2}
 *                      C2 = MUNGE credential of
 *                           "morph-auth-2 server <nonce> <session key>",
 *                      which only the client's user (and root) may decode
 *
 * The server takes C1's uid and gid as the peer's identity; a server for
 * one user (morph run) refuses any other user, morphd takes every user and
 * decides per request. The client accepts C2 only if munged decodes it, it
 * carries the client's own fresh nonce, and it was made by a user a client
 * may trust as a server (morph__auth_trusted_server). From then on every
 * line both ways is sealed with the session key (seal.h), so a process on
 * the path can neither inject nor replay a line after the handshake.
 *
 * munged's socket: the documented variable MORPH_MUNGE_SOCKET, else
 * libmunge's default (/run/munge/munge.socket.2).
 */
#ifndef MORPH_PROTO_AUTH_H
#define MORPH_PROTO_AUTH_H

#include <sys/types.h>

#include "proto/transport.h"

/* True if a client may talk to a server running as `uid`: root, the
 * client's own user, or the service account named "morph" (the user a
 * packaged morphd runs as; docs/security.md). */
int morph__auth_trusted_server(uid_t uid);

/* Client side, on a connected TCP socket, until `deadline` (morph__now()).
 * On success the connection is sealed and c->uid / c->gid are the server's.
 * Errors: MORPH_EAUTH (refused, or the server's answer is not valid or
 * comes from an untrusted user), MORPH_ETIMEDOUT, MORPH_ECONN; c->why says
 * which. The connection is left open either way: the caller closes it. */
int morph__auth_client(morph__conn *c, double deadline);

/* Server side: checks the client's first line (its credential), answers
 * with ours and seals the connection; c->uid / c->gid become the client's.
 * With any_user 0 only our own user is accepted. Never waits for the peer
 * (the answer is one short line on a fresh socket).
 * Errors: MORPH_EAUTH (forged, replayed, expired, another user's when
 * any_user is 0, or munged unreachable), MORPH_EPROTO (not an auth line),
 * MORPH_ECONN (the answer could not be sent); c->why says which. The
 * connection is left open: the caller closes it on error. */
int morph__auth_server_line(morph__conn *c, const char *line, int any_user);

#endif /* MORPH_PROTO_AUTH_H */
