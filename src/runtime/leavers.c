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

/* Whether a stayer of `job` is on `host` (any host if NULL). */
static int stayer_of(const char *const *host_of, const char *const *job_of, int n,
                     const unsigned char *leave, const char *job, const char *host)
{
  for (int q = 0; q < n; q++)
    if (!leave[q] && !strcmp(job_of[q], job) && (!host || morph__host_same(host_of[q], host)))
      return 1;
  return 0;
}

/* Whether an earlier leaver already holds rank r's pair. */
static int pair_held(const char *const *host_of, const char *const *job_of, int r,
                     const unsigned char *hold)
{
  for (int q = 0; q < r; q++)
    if (hold[q] && !strcmp(job_of[q], job_of[r]) && morph__host_same(host_of[q], host_of[r]))
      return 1;
  return 0;
}

int morph__leavers_hold(const char *const *host_of, const char *const *job_of, int n,
                        const unsigned char *leave, unsigned char *hold)
{
  int held = 0;
  memset(hold, 0, (size_t)(n > 0 ? n : 0));
  for (int r = 0; r < n; r++) {
    if (!leave[r] || !job_of[r][0] || pair_held(host_of, job_of, r, hold))
      continue;
    if (stayer_of(host_of, job_of, n, leave, job_of[r], host_of[r]) ||
        !stayer_of(host_of, job_of, n, leave, job_of[r], NULL))
      continue;
    hold[r] = 1;
    held++;
  }
  return held;
}
