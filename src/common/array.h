/* Growing arrays kept from one call to the next (scratch space of the
 * policy engine and the placement stage). Header only. */
#ifndef MORPH_COMMON_ARRAY_H
#define MORPH_COMMON_ARRAY_H

#include <stdlib.h>

#include "morph/error.h"

/* Makes *p hold at least `want` elements of `elem` bytes (64 at least),
 * keeping its contents; *cap is the number it holds. *p is never NULL
 * afterwards, even for want 0, so callers may memset or qsort it whatever
 * the count (a NULL pointer there is undefined even with 0 bytes). Returns
 * MORPH_OK, or MORPH_ENOMEM with *p and *cap unchanged. */
static inline int morph__array_grow(void **p, int *cap, int want, size_t elem)
{
  if (*p && want <= *cap)
    return MORPH_OK;
  int n = want < 64 ? 64 : want;
  void *q = realloc(*p, (size_t)n * elem);
  if (!q)
    return MORPH_ENOMEM;
  *p = q;
  *cap = n;
  return MORPH_OK;
}

#endif
