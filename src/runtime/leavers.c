/*
 * Choosing the leavers of a shrink (leavers.h). Emptying a host whole is
 * what gives it back to the resource manager, so the names come first;
 * among the processes of one host the highest ranks go, which keeps the
 * stayers' order and moves the least data when hosts hold consecutive
 * ranks.
 */
#include "runtime/leavers.h"

#include <string.h>

#include "morph/error.h"
#include "proto/hosts.h"

/* Marks up to `want` of the highest ranks on `host` (any host if NULL). */
static int take(const char *const *host_of, int n, const char *host, int want,
                unsigned char *leave)
{
  int got = 0;
  for (int r = n - 1; r >= 1 && got < want; r--)
    if (!leave[r] && (!host || morph__host_same(host_of[r], host))) {
      leave[r] = 1;
      got++;
    }
  return got;
}

int morph__leavers_choose(const char *const *host_of, int n, int nleave, const char *hosts,
                          unsigned char *leave)
{
  memset(leave, 0, (size_t)(n > 0 ? n : 0));
  morph__hostlist l;
  morph__hostlist_init(&l);
  if (nleave < 0 || nleave >= n)
    return MORPH_EINVAL;
  int rc = morph__hostlist_parse(&l, hosts);
  if (rc != MORPH_OK) {
    morph__hostlist_free(&l);
    return rc == MORPH_EPARSE ? MORPH_EINVAL : rc;
  }
  int chosen = 0, unmet = 0;
  for (int i = 0; i < l.n; i++) {
    int want = l.v[i].count < nleave - chosen ? l.v[i].count : nleave - chosen;
    int got = take(host_of, n, l.v[i].host, want, leave);
    chosen += got;
    unmet += l.v[i].count - got;
  }
  take(host_of, n, NULL, nleave - chosen, leave);
  morph__hostlist_free(&l);
  return unmet;
}
