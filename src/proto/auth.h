/*
 * MUNGE authentication of a TCP connection, both ways, before the first
 * protocol message (docs/protocol.md, "Between hosts"). This is how Slurm
 * authenticates its own daemons: every host runs munged with the cluster's
 * one key, and a credential proves the user that made it, the host it came
 * from and when.
 *
 *   client -> server  {"v":1,"type":"auth","cred":C1}
 *                      C1 = MUNGE credential of "morph-auth-1 client <nonce>"
 *   server -> client  {"v":1,"type":"auth","cred":C2}
 *                      C2 = MUNGE credential of "morph-auth-1 server <nonce>"
 *
 * The server accepts C1 only if munged decodes it (a forged credential is
 * invalid, a replayed one is refused by munged, an old one has expired) and
 * it was made by the server's own user. The client accepts C2 only if it is
 * valid, made by its own user and carries its own fresh nonce, so a
 * recorded server answer is useless too. Any failure closes the connection
 * and says why.
 *
 * munged's socket: the documented variable MORPH_MUNGE_SOCKET, else
 * libmunge's default (/run/munge/munge.socket.2).
 */
#ifndef MORPH_PROTO_AUTH_H
#define MORPH_PROTO_AUTH_H

#include "proto/transport.h"

/* Client side, on a connected socket, until `deadline` (morph__now()).
 * Errors: MORPH_EAUTH (refused, or the server's answer is not valid),
 * MORPH_ETIMEDOUT, MORPH_ECONN; c->why says which. The connection is left
 * open either way: the caller closes it on error. */
int morph__auth_client(morph__conn *c, double deadline);

/* Server side, on an accepted socket, until `deadline`.
 * Errors: MORPH_EAUTH (no valid credential of our user: forged, replayed,
 * expired, another user's, or munged unreachable), MORPH_ETIMEDOUT,
 * MORPH_ECONN, MORPH_EPROTO (not an auth line); c->why says which. The
 * connection is left open: the caller closes it on error. */
int morph__auth_server(morph__conn *c, double deadline);

#endif /* MORPH_PROTO_AUTH_H */
