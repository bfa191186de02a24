/*
 * Open MPI's session folders of one morph run. Open MPI 4.1 keeps them
 * under <tmpdir base>/ompi.<host>.<uid> on every host of a job: one folder
 * per host and user, shared by every job there. Each orted creates it at
 * start and removes it at its end when it is empty, so an orted that
 * starts while another job's orted ends can see its mkdir fail with
 * EEXIST and the folder gone the moment after: "mkdir ... /tmp/ompi.node3.0
 * File exists" (orte/util/session_dir.c), and its job ends (docs/slurm.md:
 * two Slurm jobs started in the same second). morph run gives its
 * launches a base of their own, the same path on every host (Open MPI
 * passes orte_tmpdir_base on to the remote orteds, which create it), and
 * removes it at the end on this host and on every host of its hostfile.
 */
#ifndef MORPH_LAUNCH_SESSION_H
#define MORPH_LAUNCH_SESSION_H

#include <stddef.h>

/* Writes "<TMPDIR>/morph-<host>-<pid>-<random>" into out (TMPDIR when it
 * is an absolute path of [A-Za-z0-9._/+-] only, else /tmp; the host name
 * without its domain; 8 random hex digits, so that another user cannot
 * make the folder first): unique while this process runs, on any host,
 * and safe to pass to a shell. Errors: MORPH_EINVAL (does not fit). */
int morph__launch_session_name(char *out, size_t size);

/* Removes the folder `base` and all it holds, on this host. */
void morph__launch_session_remove_here(const char *base);

/* Removes `base` on this host and, through the agent Open MPI uses
 * (common/hostcmd.h), on every host of `hostfile` (NULL: none), all at
 * once, waiting at most limit_s seconds; sessions still running then are
 * killed. Returns how many hosts did not confirm the removal. */
int morph__launch_session_remove(const char *base, const char *hostfile, double limit_s);

#endif /* MORPH_LAUNCH_SESSION_H */
