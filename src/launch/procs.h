/*
 * The processes of a job, read from /proc. morph run is a child subreaper
 * (prctl PR_SET_CHILD_SUBREAPER), so every process the launcher starts
 * stays its descendant even when an intermediate parent (orted, hydra
 * proxy, mpirun itself) has gone; "the job's processes" are therefore the
 * descendants of morph run.
 */
#ifndef MORPH_LAUNCH_PROCS_H
#define MORPH_LAUNCH_PROCS_H

#include <sys/types.h>

/* Number of running (not zombie) descendants of `root` whose executable is
 * `exe` (a resolved path). Returns -1 if /proc cannot be read. */
int morph__launch_procs_count(pid_t root, const char *exe);

/* Like morph__launch_procs_count, and also stores their pids in *pids (grown with
 * realloc, *cap elements; the caller frees it). Returns -1 if /proc cannot
 * be read or memory runs out (*pids stays valid). */
int morph__launch_procs_list(pid_t root, const char *exe, pid_t **pids, int *cap);

/* Sends `sig` to every running descendant of `root` (not to root itself).
 * Returns the number of processes signalled. */
int morph__launch_procs_signal(pid_t root, int sig);

#endif
