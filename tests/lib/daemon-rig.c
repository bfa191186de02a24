/* A morphd context for unit tests (daemon-rig.h). */
#include "daemon-rig.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "morph/error.h"

void daemon_rig_open(daemon_rig *r, morph__daemon *d, morph__backend *be, const char *prog,
                     morph__ctype type)
{
  memset(d, 0, sizeof *d);
  d->log = (morph__sayer){.prog = prog};
  d->be = be;
  d->next_job = d->next_resize = 1;
  d->listener.fd = d->listener.reserve = -1;
  for (int i = 0; i < MORPH__MAX_CLIENTS; i++)
    d->clients[i].fd = -1;
  snprintf(r->dir, sizeof r->dir, "/tmp/%.40s-XXXXXX", prog);
  assert_non_null(mkdtemp(r->dir));
  snprintf(r->path, sizeof r->path, "%s/journal.db", r->dir);
  snprintf(d->jpath, sizeof d->jpath, "%s", r->path);
  char err[256];
  assert_int_equal(morph__journal_open(r->path, 0, &d->journal, err, sizeof err), MORPH_OK);
  assert_int_equal(morph_policy_create("dmr+easy", NULL, &d->policy), MORPH_OK);
  morph_policy_actions_init(&d->acts);
  int sv[2];
  assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
  d->clients[0] = (morph__client){.fd = sv[0], .type = type, .uid = geteuid(), .gid = getegid(),
                                  .buf = malloc(16)};
  r->peer = sv[1];
}

morph__job *daemon_rig_job(morph__daemon *d, morph__jstate state, const char *alloc)
{
  morph__job *j = calloc(1, sizeof *j);
  assert_non_null(j);
  morph__job_init(j);
  const char *argv[] = {"/bin/app"};
  assert_int_equal(morph__job_set_argv(j, 1, argv), MORPH_OK);
  j->id = d->next_job;
  j->kind = MORPH_KIND_MALLEABLE;
  j->min = 1, j->pref = 2, j->max = 4, j->req_min = j->req_max = 2;
  j->state = state;
  assert_int_equal(morph__alloc_parse(&j->alloc, alloc), MORPH_OK);
  j->size = morph__alloc_total(&j->alloc);
  return j;
}

void daemon_rig_close(daemon_rig *r, morph__daemon *d)
{
  morph__daemon_fini(d);
  close(r->peer);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", r->dir);
  assert_int_equal(system(cmd), 0);
}
