/*
 * Rank 0's side of the launcher protocol (client.c).
 */
#ifndef MORPH_RUNTIME_CLIENT_H
#define MORPH_RUNTIME_CLIENT_H

#include "runtime/ctx.h"

/* Launcher connection of rank 0 (client.c). All return MORPH_OK when there
 * is no launcher: a standalone job simply never gets decisions. */
int morph__client_open(morph_ctx *ctx);
int morph__client_poll(morph_ctx *ctx);           /* takes a RESIZE if any */
int morph__client_progress(morph_ctx *ctx);       /* rate-limited PROGRESS */
int morph__client_ack(morph_ctx *ctx, const char *checkpoint);
int morph__client_limits(morph_ctx *ctx);
void morph__client_bye(morph_ctx *ctx, int exit_status, const char *text);

#endif /* MORPH_RUNTIME_CLIENT_H */
