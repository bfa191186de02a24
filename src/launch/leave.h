/*
 * The hostfile of a relaunch that leaves hosts, and of one that comes
 * back to them. A shrink carried out by
 * relaunch whose RESIZE names the hosts whose processes leave (morphd's
 * move off a failing node) restarts on a hostfile without those slots:
 * Open MPI 4.1's mpirun starts a daemon on every host of its hostfile and
 * aborts every job when one of its daemons dies, even an idle one
 * (docs/cluster.md), so the new mpirun must not know the host the job left.
 *
 * No launch context: used by relaunch.c and its unit test.
 */
#ifndef MORPH_LAUNCH_LEAVE_H
#define MORPH_LAUNCH_LEAVE_H

#include <stddef.h>

/* Writes to `out` the hostfile `in` with the slots of the processes that
 * leave (`leave`, a host list: "node3:2", proto/hosts.h) taken away: a
 * host whose slots all leave, or that gives no slot count, is left out
 * (its name goes to `gone`, "node3, node4"); one that keeps some gets
 * "host slots=N"; other lines are copied as they are. Errors, with err
 * naming the file and line or the host: MORPH_EIO (in cannot be read or
 * out written), MORPH_EPARSE (a bad line, or a bad list), MORPH_ENOENT (a
 * leaving host is not in the hostfile), MORPH_EINVAL (no host would be
 * left); out is then not written. */
int morph__launch_hostfile_leave(const char *in, const char *leave, const char *out, char *gone,
                                 size_t gonesize, char *err, size_t errsize);

/* The way back, for a relaunch that grows onto hosts the job left: writes
 * to `out` the hostfile `in` followed by "host slots=N" for each host of
 * `join` (the joiners' host list) that it does not name (their names go
 * to `added`; "" and out not written when there is none). Errors as
 * morph__launch_hostfile_leave, but for MORPH_ENOENT and MORPH_EINVAL. */
int morph__launch_hostfile_join(const char *in, const char *join, const char *out, char *added,
                                size_t addedsize, char *err, size_t errsize);

#endif
