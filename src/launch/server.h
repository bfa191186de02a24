/*
 * The job's side of morph run: a Unix socket in a private folder, one job
 * connection at a time (rank 0 of the current incarnation), and the
 * handlers of what the job sends.
 */
#ifndef MORPH_LAUNCH_SERVER_H
#define MORPH_LAUNCH_SERVER_H

#include "launch.h"

/* Creates the private folder and listens on r->sock in it; with --listen
 * (r->opt->listen) listens there instead, r->sock being its name.
 * Errors: MORPH_EIO (no folder), MORPH_EINVAL (path too long), the error
 * of morph__listen; said on stderr. */
int morph__launch_server_open(struct morph__launch *r);

/* Closes the job's connection and the socket, removes both (idempotent). */
void morph__launch_server_close(struct morph__launch *r);

/* Takes the connections the listener has ready, never waiting on a peer:
 * the job's, or refused if one is connected already. */
void morph__launch_server_accept(struct morph__launch *r);

/* Reads and handles what the job sent; a closed connection ends the job's
 * talk (phase ENDING). */
void morph__launch_server_read(struct morph__launch *r);

/* Sends *m to the job. Errors: those of morph__send (logged with -v). */
int morph__launch_job_send(struct morph__launch *r, const morph__msg *m);

#endif
