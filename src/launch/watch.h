/*
 * The job's processes on the other hosts of its hostfile, for the crash
 * monitor (monitor.c), which sees only this host's /proc. One agent
 * session per host (common/hostcmd.h: ssh, or the agent Open MPI uses)
 * runs a bounded bash loop there that prints, once a second, how many
 * processes of the job's program with the job's MORPH_JOB_ID run on that
 * host. A host that stops answering (killed, cable pulled) counts as
 * having none after MORPH__WATCH_SILENT_S: its processes are lost to the
 * job either way. A session that ends (the host refused it, or morph run
 * stopped its descendants between two mpiruns) is started again.
 *
 * No launch context: the caller passes its clock (seconds).
 */
#ifndef MORPH_LAUNCH_WATCH_H
#define MORPH_LAUNCH_WATCH_H

#include <stddef.h>
#include <sys/types.h>

#define MORPH__WATCH_SILENT_S 6.0 /* no count for this long: the host is lost */
#define MORPH__WATCH_RETRY_S 1.0  /* between two starts of a host's session */

struct morph__launch_host {
  char name[64];
  pid_t pid;          /* its session; 0: none */
  int fd;             /* the session's output; -1: none */
  char buf[32];       /* a line being read */
  int len;
  int count;          /* the last count; -1: none yet */
  double seen;        /* clock of the last count, else of the first start */
  double start_at;    /* clock of the next start when there is no session */
  double ended;       /* clock when a session last ended by itself; -1: never */
};

struct morph__launch_watch {
  struct morph__launch_host *h; /* NULL, n 0: the job runs on this host only */
  int n;
  char script[2048];
};

/* Reads the hosts of `hostfile` (Open MPI's "host slots=N" or MPICH's
 * "host:N" lines, # comments) and, if one of them is not this host, sets
 * w up to watch them all for the processes of program `exe` (a path)
 * in job `job`, for at most `limit_s` seconds (0: a week). Nothing starts
 * before the first morph__launch_watch_poll. Errors: MORPH_EIO (the
 * hostfile cannot be read), MORPH_ENOENT (a host has no address: err
 * names the file, line and host), MORPH_EINVAL (a host, job or path that could
 * not be passed to a shell; err names it), MORPH_ENOMEM; w is then empty. */
int morph__launch_watch_open(struct morph__launch_watch *w, const char *hostfile, const char *job,
                             const char *exe, double limit_s, char *err, size_t errsize);

/* Adds `host` to the hosts watched (nothing if it is one already). When
 * w watched none (the job ran on this host only) and `host` is another
 * one, w starts watching this host and `host`, for job, exe and limit_s
 * as morph__launch_watch_open. Errors: MORPH_ENOENT (no address),
 * MORPH_EINVAL (a name, job or path that cannot be passed to a shell),
 * MORPH_ENOMEM; err says which; w is unchanged. */
int morph__launch_watch_add(struct morph__launch_watch *w, const char *host, const char *job,
                            const char *exe, double limit_s, char *err, size_t errsize);

/* Reads what the sessions printed and starts the missing ones. */
void morph__launch_watch_poll(struct morph__launch_watch *w, double now);

/* The job's processes on all the hosts, or -1 while a host that has not
 * yet been silent for MORPH__WATCH_SILENT_S has not answered once. `why`
 * gets the count per host and names the silent ones. */
int morph__launch_watch_count(const struct morph__launch_watch *w, double now, char *why,
                              size_t whysize);

/* The hosts that are lost (silent for MORPH__WATCH_SILENT_S, or whose
 * session ended by itself after their last count and has not counted
 * since: sshd went with the host) after their last count said the job had
 * no process left there, listed in `names`
 * ("node3, node4"); 0 when there is none, or when a lost host still had
 * processes of the job at its last count (that is a loss of the job's
 * own). Open MPI's mpirun keeps a daemon on every host its job ever used,
 * and ends with an error when one of them dies, even an idle one: this
 * tells that apart from a job that failed. */
int morph__launch_watch_idle_lost(const struct morph__launch_watch *w, double now, char *names,
                                  size_t size);

/* Writes into buf the hosts that have not answered since clock `since`
 * ("node3, node4"; "" if none) and returns how many. */
int morph__launch_watch_silent(const struct morph__launch_watch *w, double since, char *buf,
                               size_t size);

/* Stops watching the hosts named in `names` ("node3, node4"): the job no longer runs there,
 * so their loss is none of its business. Returns how many were dropped. */
int morph__launch_watch_drop(struct morph__launch_watch *w, const char *names);

/* Ends the sessions (SIGTERM, reaped within 1 s) and frees w; idempotent. */
void morph__launch_watch_close(struct morph__launch_watch *w);

#endif
