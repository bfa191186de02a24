/*
 * The client side of morphd's command protocol, for the `morph` commands:
 * where the daemon is, connecting with the one clear error message, and
 * request/reply calls (docs/morphd.md).
 */
#ifndef MORPH_RMS_CLIENT_H
#define MORPH_RMS_CLIENT_H

#include <jansson.h>
#include <limits.h>
#include <stddef.h>

#include "proto/seal.h"

/* The shared morphd's folder, root's default: a lasting one (its journal
 * must survive a reboot), as slurmctld's StateSaveLocation is. */
#define MORPH__SYSTEM_DIR "/var/lib/morph"

typedef struct morph__cli {
  int fd;
  morph__seal seal; /* TCP: lines sealed both ways (proto/seal.h) */
  char dir[PATH_MAX];
  char sock[108];
  size_t len;
  char buf[1 << 16];
  char errmsg[512];
} morph__cli;

/* The state folder of a morphd this user runs: root's is /var/lib/morph,
 * another user's $XDG_RUNTIME_DIR/morph. Errors: MORPH_ENOENT (not root
 * and no XDG_RUNTIME_DIR: no folder is safe to assume), MORPH_EINVAL (too
 * long). */
int morph__own_dir(char *out, size_t size);

/* Fills dir and sock of c from the options (NULL when not given), then
 * $MORPH_DIR, then the user's own morphd's folder (morph__own_dir) if that
 * morphd runs, else the cluster's shared /var/lib/morph.
 * Errors: MORPH_EINVAL (too long). */
int morph__cli_paths(morph__cli *c, const char *dir, const char *sock);

/* Connects; on failure prints why when `say` is set: "is it running?"
 * only when nothing listens there, "permission denied" when the folder is
 * closed to this user, or why the server was refused.
 * Errors: MORPH_ECONN, MORPH_EAUTH (the server runs as an untrusted user or
 * failed MUNGE). */
int morph__cli_connect(morph__cli *c, int say);

/* Sends req (the reference is stolen) and waits up to `timeout` seconds
 * for the reply. Returns MORPH_OK with *reply when "ok" is true; else the
 * reply's code (message in c->errmsg; *reply still set when one came) or
 * MORPH_ECONN / MORPH_ETIMEDOUT / MORPH_EPROTO. The caller decrefs
 * *reply. */
int morph__cli_call(morph__cli *c, json_t *req, json_t **reply, double timeout);

void morph__cli_close(morph__cli *c);

/* Reads the communication matrix `path` (Matrix Market, bytes: docs/prof.md)
 * into a submit request as "traffic" (n * n byte counts, row-major) and
 * "traffic_n", for the placement. Errors: those of
 * morph_comm_matrix_load, message (file, line, field) in err. */
int morph__cli_add_matrix(json_t *req, const char *path, char *err, size_t errsize);

#endif
