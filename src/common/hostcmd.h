/*
 * Commands on another host, reached the way Open MPI reaches it: through
 * $OMPI_MCA_plm_rsh_agent (an ssh, or the emulated cluster's agent), else
 * ssh, as `AGENT HOST CMD`. morphd checks there that a released host is
 * empty (rms/gone.h) and morph run counts a job's processes on each of
 * its hosts (launch/watch.h); both ask the same question, built here.
 *
 * "A process of job ID on this host" is one whose environment holds
 * MORPH_JOB_ID=ID (morph run exports it to every process) in the host's
 * network namespace: the host itself on a real cluster, and what tells
 * the emulated hosts of scripts/cluster.sh apart, which share one process
 * table.
 */
#ifndef MORPH_COMMON_HOSTCMD_H
#define MORPH_COMMON_HOSTCMD_H

#include <stddef.h>
#include <sys/types.h>

/* True if the `len` first bytes of h are a host name we pass to a shell:
 * 1..63 characters of [A-Za-z0-9.-]. */
int morph__host_name_ok(const char *h, size_t len);

/* True if s is a non-empty word of [A-Za-z0-9._/+-] only: a path or an id
 * a shell takes as it is, inside double quotes or not. */
int morph__host_word_ok(const char *s);

/* Writes into buf a bash test, true for /proc entry "$d" when it is a
 * process of job `job` on this host and, when exe is not NULL, runs the
 * program `exe` (a path). Errors: MORPH_EINVAL (job or exe with other
 * characters than [A-Za-z0-9._/+-], which could not be quoted safely, or
 * buf too small); buf is then "false". */
int morph__host_job_test(char *buf, size_t size, const char *job, const char *exe);

/* Starts `AGENT host bash -c '<script>'` in a child, its stdin from
 * /dev/null and, if out is not NULL, its stdout on a pipe whose read end
 * (non-blocking, close-on-exec) is stored in *out and its stderr on
 * /dev/null. The script must not
 * contain a single quote. Returns the child's pid, or -1 (errno set). */
pid_t morph__host_run(const char *host, const char *script, int *out);

#endif /* MORPH_COMMON_HOSTCMD_H */
