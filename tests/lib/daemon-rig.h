/*
 * A morphd context for unit tests, without its loop or socket: the test's
 * backend, a journal in a fresh folder under /tmp, the dmr+easy policy,
 * and client 0 one end of a socket pair whose other end the test reads
 * (what morphd sent a job, or answered a command). Used by
 * tests/morphd/test-morphd-seam.c and tests/durability/test-durability.c.
 */
#ifndef MORPH_TESTS_DAEMON_RIG_H
#define MORPH_TESTS_DAEMON_RIG_H

#include "rms/morphd.h"

typedef struct daemon_rig {
  int peer;      /* the test's end of client 0 */
  char dir[64];  /* the fresh folder */
  char path[128]; /* its journal.db */
} daemon_rig;

/* Sets d up (zeroed first) on backend `be`; `prog` prefixes its log; client
 * 0 is of `type`. Fails the test on error. */
void daemon_rig_open(daemon_rig *r, morph__daemon *d, morph__backend *be, const char *prog,
                     morph__ctype type);
/* A new job (not in the table yet): malleable 1-2-4 asking for 2, argv
 * "/bin/app", in `state`, holding `alloc` ("" for none), id d->next_job. */
morph__job *daemon_rig_job(morph__daemon *d, morph__jstate state, const char *alloc);
/* Finishes d and removes the folder. */
void daemon_rig_close(daemon_rig *r, morph__daemon *d);

#endif
