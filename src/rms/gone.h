/*
 * rms/gone: are a job's processes really gone from a host? Asked on the
 * host itself (common/hostcmd.h: over the agent Open MPI uses to reach
 * it), before the embedded backend gives a released host back to the
 * pool: a host is free when nothing of the job runs there, not when the
 * job says its leavers have left.
 */
#ifndef MORPH_RMS_GONE_H
#define MORPH_RMS_GONE_H

#include <stdint.h>
#include <sys/types.h>

#define MORPH__GONE_RETRY_S 0.5  /* between checks of a host still in use */
#define MORPH__GONE_LIMIT_S 30.0 /* then the host is reported busy */
#define MORPH__GONE_ASK_S 15.0   /* one check that takes longer: a host could not be asked */

/* The check of the hosts a release empties. */
typedef struct morph__gone {
  char hosts[512];  /* comma-separated; "": nothing to check */
  pid_t pid;        /* the check running (its own process group); 0: none */
  double retry_at, give_up_at, ask_until;
  int answer;       /* 1: not known yet; MORPH_OK: gone from every host;
                       MORPH_EBUSY: still there after MORPH__GONE_LIMIT_S;
                       MORPH_EIO: a host could not be asked */
  char why[224];    /* with EBUSY or EIO: which host */
  char bad[64];     /* with EIO: the first host that could not be asked;
                       "" if it is not known (the check did not start) */
} morph__gone;

/* Sets g to check `hosts` ("" or NULL: nothing; g->answer is MORPH_OK)
 * from `now` on. Errors: MORPH_EINVAL (a host name with other characters
 * than [A-Za-z0-9.-], or too many hosts); g->answer is MORPH_OK then,
 * with nothing checked. */
int morph__gone_begin(morph__gone *g, const char *hosts, double now);

/* Starts a check of job `job` in a child process when one is due (no
 * check running, the answer unknown, the retry time passed). A check
 * that cannot be started answers MORPH_EIO. A check still running after
 * MORPH__GONE_ASK_S (an agent that hangs on a host that does not answer)
 * is killed with its process group: its host could not be asked. */
void morph__gone_tick(morph__gone *g, int64_t job, double now);

/* The owner reaped child `pid` with wait status ws (the owner reaps
 * every child with waitpid(-1)): returns 1 if it was g's check, which
 * then has answered or is due again. */
int morph__gone_reaped(morph__gone *g, pid_t pid, int ws, double now);

#endif /* MORPH_RMS_GONE_H */
