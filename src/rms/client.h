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

typedef struct morph__cli {
  int fd;
  char dir[PATH_MAX];
  char sock[108];
  size_t len;
  char buf[1 << 16];
  char errmsg[512];
} morph__cli;

/* Fills dir and sock of c from the options (NULL when not given), then
 * $MORPH_DIR, then /tmp/morph-<uid>. Errors: MORPH_EINVAL (too long). */
int morph__cli_paths(morph__cli *c, const char *dir, const char *sock);

/* Connects; on failure prints "morph: cannot reach morphd at PATH: is it
 * running? (morph daemon --help)" when `say` is set.
 * Errors: MORPH_ECONN. */
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
