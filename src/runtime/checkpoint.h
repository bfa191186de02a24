/*
 * The relaunch mechanism's data movement: the checkpoint file
 * (checkpoint.c).
 */
#ifndef MORPH_RUNTIME_CHECKPOINT_H
#define MORPH_RUNTIME_CHECKPOINT_H

#include "runtime/window.h"

/* The relaunch mechanism's checkpoint file (checkpoint.c). Collective over
 * ctx->comm. morph__ckpt_write writes every registration to w->checkpoint
 * and sets w->bytes (rank 0: the file's size); MORPH_EIO, MORPH_ENOMEM,
 * MORPH_EMPI, or a pack callback's error; the file may be left partly
 * written. morph__ckpt_peek reads a checkpoint's head; morph__ckpt_restore
 * also each registration's part for the current size (EIO, EMISMATCH,
 * ENOMEM, an unpack callback's error; with the reason in ctx->errmsg;
 * registrations read so far keep their new contents). */
typedef struct morph__ckpt_info {
  int64_t iteration, seq, old_size;
} morph__ckpt_info;

int morph__ckpt_write(morph_ctx *ctx, morph__window *w);

/* Before the write (ckptspace.c), collective over ctx->comm: the
 * checkpoint folder must be one every process can write into, and rank 0
 * creates w->checkpoint with the space the registered data needs
 * (fallocate; else the file system's free space is compared). Errors:
 * MORPH_EIO with w->why naming the folder and the reason (the file is
 * removed), MORPH_ETIMEDOUT, MORPH_EMPI, MORPH_ENOMEM. */
int morph__ckpt_reserve(morph_ctx *ctx, morph__window *w);
int morph__ckpt_peek(morph_ctx *ctx, const char *path, morph__ckpt_info *info);
int morph__ckpt_restore(morph_ctx *ctx, const char *path, morph__ckpt_info *info);

#endif /* MORPH_RUNTIME_CHECKPOINT_H */
