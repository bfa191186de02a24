/*
 * The live mechanism's data movement: registrations moved in memory over
 * the window's communicator by the redistribution engine (move.c).
 */
#ifndef MORPH_RUNTIME_MOVE_H
#define MORPH_RUNTIME_MOVE_H

#include "runtime/window.h"

/* Moves every registration in memory from old_size to new_size processes
 * over w->newcomm, into w->newbufs (move.c), except those already there
 * (moved in the background, overlap.c). Old buffers are not touched. */
int morph__data_move(morph_ctx *ctx, morph__window *w);

/* Allocates w->newbufs and w->newcounts if not yet there (move.c).
 * Errors: MORPH_ENOMEM. */
int morph__data_buffers(const morph_ctx *ctx, morph__window *w);

/* The plan of block, block-cyclic or varcount registration i for process
 * `me` of w->newcomm; its new local part is allocated into w->newbufs[i]
 * (its length into w->newcounts[i], the bytes it will receive added to
 * w->bytes), ready for the transfer (move.c). Varcount gathers the old
 * lengths (collective over w->newcomm, until `deadline`).
 * Errors: MORPH_ENOMEM, MORPH_EINVAL, MORPH_EMPI, MORPH_ETIMEDOUT; on error
 * no plan is left allocated and w->newbufs[i] is NULL. */
int morph__data_plan(const morph__data *d, morph__window *w, int me, int i, double deadline,
                     morph__plan *plan);

/* 1 if rank p of w->newcomm is a joiner or a leaver of the window (move.c). */
int morph__window_nonstay(const morph__window *w, int p);

/* Rank in the new communicator of rank p of w->newcomm, or -1 if p does
 * not belong to it (a leaver) (move.c). */
int morph__window_new_rank(const morph__window *w, int p);

/* At a commit, gives back the pages of the old parts that no new part
 * adopted (part.h: morph__part_trim); every process that had an old part
 * calls it, leavers included (move.c). */
void morph__data_trim(morph_ctx *ctx);

/* Installs w->newbufs as the registrations' buffers, old parts trimmed
 * (commit), or frees them (rollback) (move.c). */
void morph__data_install(morph_ctx *ctx, morph__window *w);
void morph__data_discard(morph_ctx *ctx, morph__window *w);

#endif /* MORPH_RUNTIME_MOVE_H */
