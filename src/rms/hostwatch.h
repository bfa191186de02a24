/*
 * rms/hostwatch: which hosts of the embedded backend's pool are down.
 *
 * A host is marked down when it does not answer: a check on it (rms/gone:
 * are a job's processes gone from it?) could not ask it, and a probe
 * right after (the same agent, nothing to find) could not either. A down
 * host is probed again every MORPH__HOSTWATCH_DOWN_S and is up again at
 * its first answer. A host that never answered (an agent that cannot
 * reach it at all, e.g. a hostfile naming this machine without an sshd)
 * is never marked down: nothing tells a dead host from one we cannot
 * reach, and the jobs on it run anyway.
 *
 * Probes are children of the caller, which reaps every child with
 * waitpid(-1) and hands their pids to morph__hostwatch_reaped.
 */
#ifndef MORPH_RMS_HOSTWATCH_H
#define MORPH_RMS_HOSTWATCH_H

#include <sys/types.h>

#include "rms/backend.h"
#include "rms/gone.h"

#define MORPH__HOSTWATCH_DOWN_S 2.0   /* between probes of a down host */
#define MORPH__HOSTWATCH_UNSEEN_S 10.0 /* between probes of a host never reached */

typedef struct morph__hostwatch_host {
  morph__gone probe; /* answer 1 while one is due or running */
  double next_at;    /* of the next probe; 0: none planned */
  int seen;          /* answered once */
  int suspect;       /* a check could not ask it: the probe decides */
  char why[224];     /* what made it suspect */
} morph__hostwatch_host;

typedef struct morph__hostwatch {
  morph__hostwatch_host *h;
  int n;
} morph__hostwatch;

/* Watches the n hosts of nodes (their names are read at each call), the
 * first probes due now. Errors: MORPH_ENOMEM (w is empty then). */
int morph__hostwatch_init(morph__hostwatch *w, int n, double now);

void morph__hostwatch_free(morph__hostwatch *w);

/* Host i could not be asked (why: the check's words): probed at once. */
void morph__hostwatch_suspect(morph__hostwatch *w, int i, const char *why, double now);

/* Starts the probes that are due. */
void morph__hostwatch_tick(morph__hostwatch *w, const morph__node *nodes, double now);

/* The caller reaped `pid` (status ws). Returns 1 if it was a probe; if
 * that probe changes the state of its host, *node is its index and *ev
 * the NODE event to report (state and text filled), else *node is -1. */
int morph__hostwatch_reaped(morph__hostwatch *w, const morph__node *nodes, pid_t pid, int ws,
                            double now, int *node, morph__backend_event *ev);

#endif /* MORPH_RMS_HOSTWATCH_H */
