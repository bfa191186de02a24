/*
 * Who may do what (docs/security.md): root, morphd's own user and the
 * members of --admin-group are administrators and act on every job; any
 * other user acts on the jobs that user submitted. Who a client is comes
 * from its connection: the kernel on a Unix socket, MUNGE over TCP.
 */
#include <grp.h>
#include <pwd.h>
#include <unistd.h>

#include "rms/morphd.h"

#define GROUPS_MAX 256

/* True if uid (whose primary group is gid) is a member of group g. */
static int member(uid_t uid, gid_t gid, gid_t g)
{
  if (gid == g)
    return 1;
  struct passwd pw, *res = NULL;
  char buf[4096];
  if (getpwuid_r(uid, &pw, buf, sizeof buf, &res) != 0 || !res)
    return 0;
  gid_t groups[GROUPS_MAX];
  int n = GROUPS_MAX;
  if (getgrouplist(res->pw_name, res->pw_gid, groups, &n) < 0)
    return 0;
  for (int k = 0; k < n; k++)
    if (groups[k] == g)
      return 1;
  return 0;
}

int morph__access_admin(const morph__daemon *d, uid_t uid, gid_t gid)
{
  if (uid == 0 || uid == geteuid())
    return 1;
  return d->admin_gid != (gid_t)-1 && member(uid, gid, d->admin_gid);
}

int morph__access_job(const morph__daemon *d, int i, const morph__job *j)
{
  const morph__client *c = &d->clients[i];
  return j->uid == c->uid || morph__access_admin(d, c->uid, c->gid);
}
