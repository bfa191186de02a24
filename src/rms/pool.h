/*
 * The pool of slots of the embedded backend: the nodes of this machine or
 * of a hostfile, each with a number of slots and how many of them are
 * booked.
 *
 * The pool is the last guard against double booking: a booking that would
 * put more slots on a node than it has fails as a whole (MORPH_EBUSY) and
 * changes nothing, whatever the caller believed.
 */
#ifndef MORPH_RMS_POOL_H
#define MORPH_RMS_POOL_H

#include <stddef.h>

#include "rms/alloc.h"
#include "rms/backend.h"

typedef struct morph__pool {
  morph__node *nodes;
  int n;
  int total; /* sum of slots */
  int local; /* one node that is this machine: jobs need no hostfile */
} morph__pool;

/* One node "localhost" with `slots` slots. Errors: MORPH_EINVAL (slots < 1),
 * MORPH_ENOMEM. */
int morph__pool_local(morph__pool *p, int slots);

/* Nodes from a hostfile: "host [slots=N]" or "host:N" per line (common/hostfile.h; slots
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

#endif
