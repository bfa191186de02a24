/* Size rules: which sizes a malleable job may be resized to. DMRlib's
 * default redistribution (paper 000 section 3.4) moves data between sizes
 * that are multiples or divisors of each other; Elastic MPI doubles and
 * halves (paper 002 section 3.3.4). */
#include "internal.h"

int morph__size_down(morph_policy_sizes rule, int cur, int lo, int want)
{
  if (want >= cur)
    want = cur - 1;
  if (lo < 1)
    lo = 1;
  if (want < lo)
    return 0;
  if (rule == MORPH_POLICY_SIZES_ANY)
    return want;
  /* The largest allowed s <= want is cur / d for the smallest allowed
   * divisor d >= cur / want. */
  int d = (cur + want - 1) / want;
  if (rule == MORPH_POLICY_SIZES_POW2) {
    int p = 2;
    while (p < d)
      p *= 2;
    for (; cur / p >= lo; p *= 2)
      if (cur % p == 0)
        return cur / p;
    return 0;
  }
  for (; cur / d >= lo; d++)
    if (cur % d == 0)
      return cur / d;
  return 0;
}

int morph__size_up(morph_policy_sizes rule, int cur, int hi)
{
  if (hi <= cur || cur < 1)
    return 0;
  if (rule == MORPH_POLICY_SIZES_ANY)
    return hi;
  if (rule == MORPH_POLICY_SIZES_FACTOR)
    return hi / cur >= 2 ? hi / cur * cur : 0;
  long s = cur;
  while (s * 2 <= hi)
    s *= 2;
  return s > cur ? (int)s : 0;
}

int morph__size_min(morph_policy_sizes rule, int cur, int lo)
{
  if (lo < 1)
    lo = 1;
  if (lo >= cur)
    return 0;
  if (rule == MORPH_POLICY_SIZES_ANY)
    return lo;
  int best = 0;
  for (int d = 2; cur / d >= lo; d = rule == MORPH_POLICY_SIZES_POW2 ? 2 * d : d + 1)
    if (cur % d == 0)
      best = cur / d;
  return best;
}
