/*
 * DMR_RECONFIG's steps over morph.h's split point: probe (is a change
 * pending?); the parents' Send expression (the predefined functions note
 * their arrays; user functions, paper 000 Listing 3, send on DMR_INTERCOMM,
 * so a live window opens before it and the children exist); the window,
 * whose callbacks carry the noted arrays (blob.c); the children's Recv
 * expression (the predefined functions rebalance the arrays, rebalance.c;
 * user functions receive on DMR_INTERCOMM); the commit.
 */
#include <stdlib.h>

#include "internal.h"

static void note(const void *data, MPI_Datatype type, int cyclic, int64_t units, int64_t block) {
  dmr__ctx *c = dmr__get();
  if (!c || !c->capturing)
    return;
  if (c->nslots == DMR__MAX_SLOTS)
    dmr__fatal(c, "more than %d arrays in one DMR_RECONFIG", DMR__MAX_SLOTS);
  if (units < 0 || block < 1 || (units > 0 && !data))
    dmr__fatal(c, "Send function: bad array (%lld units of %lld)", (long long)units,
               (long long)block);
  c->slots[c->nslots++] = (dmr__slot){data, type, cyclic, units, block};
}

void DMR_Send_expand_default(void *data, MPI_Datatype type, int size) {
  note(data, type, 0, size, 1);
}

void DMR_Send_shrink_default(void *data, MPI_Datatype type, int size) {
  note(data, type, 0, size, 1);
}

void DMR_Send_expand_blockcyclic(void *data, MPI_Datatype type, int n, int size) {
  note(data, type, 1, n, size);
}

void DMR_Send_shrink_blockcyclic(void *data, MPI_Datatype type, int n, int size) {
  note(data, type, 1, n, size);
}

/* Is a change pending? Joiners and relaunched processes already know
 * theirs from DMR_Init. A probe counts a DMR_RECONFIG point. */
int DMR__probe(void) {
  dmr__ctx *c = dmr__get();
  if (!c)
    dmr__fatal(NULL, "DMR_RECONFIG before DMR_Init");
  if (c->resume) {
    int kind = c->resume;
    c->resume = 0;
    return kind;
  }
  c->old_rank = morph_rank(c->m);
  c->old_size = morph_size(c->m);
  c->shared[DMR__SH_CALLS]++;
  c->shared[DMR__SH_SIZE] = c->old_size;
  dmr__drop_received(c);
  morph_change ch;
  morph_frontend_enter(c->m);
  int rc = morph_probe(c->m, &ch);
  morph_frontend_leave(c->m);
  if (rc != MORPH_OK)
    dmr__fatal(c, "morph_probe: %s (%s)", morph_strerror(rc), morph_errmsg(c->m));
  c->pending = !ch.pending ? DMR__NONE : ch.new_size > ch.old_size ? DMR__EXPAND : DMR__SHRINK;
  c->live = ch.mechanism == MORPH_MECH_LIVE;
  return c->pending;
}

/* A window that changes nothing: the spawn failed or timed out and
 * morph_begin rolled it back, or a relaunch restarts the job. */
static int unchanged(const morph_window_info *w) {
  return w->comm == MPI_COMM_NULL || w->new_size == w->old_size;
}

/* The parents evaluate the Send expression: the predefined functions note
 * their arrays, user functions send on DMR_INTERCOMM. A live window opens
 * first, so that a rolled-back one skips the expression: Listing 3's
 * functions would otherwise send the whole array to themselves with a
 * blocking MPI_Send on the old processes, which never completes above the
 * eager limit (the job hung after an Open MPI spawn timed out). A relaunch
 * opens its window after the expression, since the checkpoint carries the
 * noted arrays. */
int DMR__sending(void) {
  dmr__ctx *c = dmr__get();
  c->nslots = 0;
  if (c->pending && c->live && !c->in_window) {
    dmr__open_window(c);
    if (unchanged(&c->win)) {
      c->pending = DMR__NONE;
      c->rolled_back = 1;
      DMR__done();
      return 0;
    }
  }
  c->capturing = morph_get_status(c->m) != MORPH_JOINING;
  return c->capturing;
}

/* Opens the window if no Send function did (the noted arrays travel in
 * it). A relaunch ends here: the checkpoint holds the arrays. Returns 1 on
 * the processes of the new size, which evaluate the Recv expression. */
int DMR__sent(void) {
  dmr__ctx *c = dmr__get();
  c->capturing = 0;
  if (c->rolled_back) {
    c->rolled_back = 0;
    return 0;
  }
  if (c->pending && !c->in_window)
    dmr__open_window(c);
  c->pending = DMR__NONE;
  if (!c->in_window) /* restarted by a relaunch: the arrays arrived */
    return 1;
  morph_window_info *w = &c->win;
  /* A relaunch ends here, a failed window is rolled back here, and a
   * leaver ends here once its arrays are on their way. */
  if (unchanged(w)) {
    DMR__done();
    return 0;
  }
  dmr__exchange(c);
  if (w->status == MORPH_LEAVING) {
    DMR__done();
    return 0;
  }
  return 1;
}

void DMR__done(void) {
  dmr__ctx *c = dmr__get();
  int left = c->nblobs ? c->nheld - c->cursor : 0;
  if (left != 0 && c->in_window && c->win.status != MORPH_LEAVING)
    dmr__fatal(c, "the Recv expression received %d arrays, the Send expression noted %d",
               c->cursor, c->cursor + left);
  if (c->in_window) {
    morph_status st;
    morph_frontend_enter(c->m);
    int rc = morph_commit(c->m, MORPH_OK, &st);
    morph_frontend_leave(c->m);
    c->in_window = c->exchanging = 0;
    if (st == MORPH_LEAVING) /* DMRlib's parents end after sending */
      exit(DMR_Finalize());
    /* A relaunch that failed moved nothing: the predefined functions only
     * noted the arrays (user functions need live), so the job goes on at
     * its old size with them, as after a rolled-back live window. */
    if (rc != MORPH_OK && c->win.new_size != c->win.old_size && c->live)
      dmr__fatal(c, "the reconfiguration was rolled back after the arrays were redistributed: "
                 "%s (%s)", morph_strerror(rc), morph_errmsg(c->m));
  }
  dmr__drop_received(c);
}

static int64_t recv(void **data, MPI_Datatype type, int cyclic, int64_t *block) {
  dmr__ctx *c = dmr__get();
  if (!c || !c->unpacked)
    dmr__fatal(c, "a Recv function outside DMR_RECONFIG");
  return dmr__rebalance(c, data, type, cyclic, block);
}

void(DMR_Recv_expand_default)(void **data, MPI_Datatype type, int *size) {
  int64_t block = 1;
  *size = (int)recv(data, type, 0, &block);
}

void(DMR_Recv_shrink_default)(void **data, MPI_Datatype type, int *size) {
  int64_t block = 1;
  *size = (int)recv(data, type, 0, &block);
}

void(DMR_Recv_expand_blockcyclic)(void **data, MPI_Datatype type, int *n, int *size) {
  int64_t block = *size;
  *n = (int)recv(data, type, 1, &block);
  *size = (int)block;
}

void(DMR_Recv_shrink_blockcyclic)(void **data, MPI_Datatype type, int *n, int *size) {
  int64_t block = *size;
  *n = (int)recv(data, type, 1, &block);
  *size = (int)block;
}
