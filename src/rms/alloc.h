/*
 * Allocations as morphd keeps them: growable lists of pieces {node index,
 * slots}, the same pieces the policy engine uses, so a decision maps 1:1
 * to what a backend books.
 */
#ifndef MORPH_RMS_ALLOC_H
#define MORPH_RMS_ALLOC_H

#include <stddef.h>

#include "morph/policy.h"

/* Kept merged (one piece per node) and in order of first appearance, so
 * the first piece stays first (it holds the job's rank 0 and is never
 * released). */
typedef struct morph__alloc {
  morph_policy_alloc *v;
  int n, cap;
} morph__alloc;

void morph__alloc_init(morph__alloc *a);
void morph__alloc_free(morph__alloc *a);
void morph__alloc_clear(morph__alloc *a);
/* Errors: MORPH_EINVAL (node < 0 or slots < 0), MORPH_ENOMEM; a is
 * unchanged then. Adding 0 slots does nothing. */
int morph__alloc_add(morph__alloc *a, int node, int slots);
int morph__alloc_add_all(morph__alloc *a, const morph__alloc *b);
/* Removes b's pieces from a. Errors: MORPH_EINVAL if a lacks any (a is
 * unchanged then). */
int morph__alloc_sub(morph__alloc *a, const morph__alloc *b);
int morph__alloc_total(const morph__alloc *a);
/* Slots of a on one node. */
int morph__alloc_on(const morph__alloc *a, int node);
int morph__alloc_copy(morph__alloc *dst, const morph__alloc *src);
/* "0:2,1:1" (node index:slots); "" when empty. */
void morph__alloc_format(const morph__alloc *a, char *buf, size_t size);
/* Parses morph__alloc_format's text (replaces a). Errors: MORPH_EPARSE. */
int morph__alloc_parse(morph__alloc *a, const char *text);

#endif
