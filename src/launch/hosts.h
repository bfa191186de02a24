/*
 * Where the job's processes run, as morph run knows it, and the hostfile
 * of a relaunch. Open MPI and MPICH map a job's processes onto the lines
 * of its hostfile in order, each host taking its slots; a job started on
 * the first lines and grown onto other hosts (a Slurm node merged into
 * the job, a host morphd chose) would be relaunched onto the first lines
 * again, outside its allocation. So morph run keeps the job's placement
 * (proto/hosts.h form, process order): the first slots of the hostfile at
 * start, then what each live resize's ACK says joined or left; a relaunch
 * adds the hosts its RESIZE names (grow) or takes them away (shrink), and
 * mpirun gets a hostfile of the placement first, then the other hosts of
 * the user's hostfile (still reachable by a later live grow). The crash
 * monitor's host watcher is told of every host the job reaches.
 */
#ifndef MORPH_LAUNCH_HOSTS_H
#define MORPH_LAUNCH_HOSTS_H

#include "launch.h"

/* Reads --hostfile (none: nothing to do) and sets the placement to its
 * first np slots (a line without slots= counts one). Errors: MORPH_EIO,
 * MORPH_EINVAL (said), MORPH_ENOMEM. */
int morph__launch_hosts_init(struct morph__launch *r, int np);

/* A live resize is done: its ACK's hosts joined (grow) or left (shrink). */
void morph__launch_hosts_resized(struct morph__launch *r, const morph__msg *ack);

/* Before mpirun starts np processes of a relaunch: the placement becomes
 * the current one with the hosts `named` added (np larger) or taken away
 * (np smaller), or, when they do not say it all, with the first free
 * slots of the hostfile added or the last processes dropped; mpirun's
 * hostfile is written for it (in r->dir) and the watcher told. Nothing
 * without --hostfile. Errors: MORPH_EIO (said), MORPH_ENOMEM. */
int morph__launch_hosts_relaunch(struct morph__launch *r, int np, const char *named);

void morph__launch_hosts_free(struct morph__launch *r);

#endif
