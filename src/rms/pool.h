/*
 * The pool of slots morphd hands out (embedded backend): the nodes of this
 * machine or of a hostfile, each with a number of slots and how many of
 * them are booked. Allocations are lists of pieces {node index, slots},
 * the same pieces the policy engine uses, so a decision maps 1:1 to
 * bookings.
 *
 * The pool is the last guard against double booking: a booking that would
 * put more slots on a node than it has fails as a whole (MORPH_EBUSY) and
 * changes nothing, whatever the caller believed.
 */
#ifndef MORPH_RMS_POOL_H
#define MORPH_RMS_POOL_H

#include <stddef.h>

#include "morph/policy.h"

typedef struct morph__node {
  char host[64];
  int slots;
  int used;
} morph__node;

typedef struct morph__pool {
  morph__node *nodes;
  int n;
  int total; /* sum of slots */
  int local; /* one node that is this machine: jobs need no hostfile */
} morph__pool;

/* A growable list of pieces, kept merged (one piece per node) and sorted
 * by node index except that the first piece stays first (it holds the
 * job's rank 0 and is never released). */
typedef struct morph__alloc {
  morph_policy_alloc *v;
  int n, cap;
} morph__alloc;

/* One node "localhost" with `slots` slots. Errors: MORPH_EINVAL (slots < 1),
 * MORPH_ENOMEM. */
int morph__pool_local(morph__pool *p, int slots);

/* Nodes from a hostfile: "host [slots=N]" per line ('#' comments; slots
 * default 1; a host listed twice adds up). Errors: MORPH_EIO (cannot read),
 * MORPH_EPARSE ("file:line: ..." in err), MORPH_ENOMEM. On error *p is
 * empty. */
int morph__pool_hostfile(morph__pool *p, const char *path, char *err, size_t errsize);

void morph__pool_free(morph__pool *p);

/* Slots not booked. */
int morph__pool_free_slots(const morph__pool *p);

/* Books every piece, or none: MORPH_EBUSY if a node would exceed its slots,
 * MORPH_EINVAL for a bad node index or a piece of <= 0 slots. */
int morph__pool_book(morph__pool *p, const morph__alloc *a);

/* Gives the pieces back (never below 0 per node). */
void morph__pool_release(morph__pool *p, const morph__alloc *a);

/* Alloc helpers. */
void morph__alloc_init(morph__alloc *a);
void morph__alloc_free(morph__alloc *a);
void morph__alloc_clear(morph__alloc *a);
int morph__alloc_add(morph__alloc *a, int node, int slots);
int morph__alloc_add_all(morph__alloc *a, const morph__alloc *b);
/* Removes b's pieces from a. Errors: MORPH_EINVAL if a lacks any (a is
 * unchanged then). */
int morph__alloc_sub(morph__alloc *a, const morph__alloc *b);
int morph__alloc_total(const morph__alloc *a);
int morph__alloc_copy(morph__alloc *dst, const morph__alloc *src);
/* "0:2,1:1" (node index:slots); "" when empty. */
void morph__alloc_format(const morph__alloc *a, char *buf, size_t size);
/* Parses morph__alloc_format's text (replaces a). Errors: MORPH_EPARSE. */
int morph__alloc_parse(morph__alloc *a, const char *text);
/* "host1,host1,host2": one host per slot, for the joiners of a RESIZE. */
void morph__alloc_hosts(const morph__alloc *a, const morph__pool *p, char *buf, size_t size);

#endif
