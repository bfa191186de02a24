/*
 * Redistribution overlapped with computation (overlap.c): the registrations
 * the application declared constant move in the background between
 * morph_begin_overlap() and morph_commit(); the rest moves at the commit.
 */
#ifndef MORPH_RUNTIME_OVERLAP_H
#define MORPH_RUNTIME_OVERLAP_H

#include "runtime/window.h"

/*
 * Starts the background move of every constant registration over a copy of
 * w->newcomm and notes a hash of each old local part. Collective over the
 * processes of the window (joiners included). Errors: MORPH_ENOMEM,
 * MORPH_EMPI, MORPH_ETIMEDOUT (a process did not take part), MORPH_EINVAL;
 * what was started stays in w->bg for morph__overlap_finish.
 */
int morph__overlap_start(morph_ctx *ctx, morph__window *w);

/* Drives this process's background transfers once; *done is 1 when they
 * are complete (or there are none). Local. Errors: MORPH_EMPI. */
int morph__overlap_test(morph__window *w, int *done);

/*
 * Waits for the rest of the background transfers (until step_timeout from
 * now), checks that no constant part changed since the start, and agrees
 * with every process of the window: returns MORPH_OK only if every process
 * passes `rc` MORPH_OK and its transfers and checks succeeded. Collective
 * over the processes of the window. Errors: MORPH_EMISMATCH (a constant
 * registration was written during the window: w->why names it),
 * MORPH_ETIMEDOUT (w->abandoned set), MORPH_EMPI, or `rc`. Frees w->bg.
 */
int morph__overlap_finish(morph_ctx *ctx, morph__window *w, int rc);

#endif /* MORPH_RUNTIME_OVERLAP_H */
