/*
 * The crash monitor: watches the application's processes. A process that
 * disappears while no reconfiguration can explain it means the job is
 * broken (mpirun runs with --enable-recovery and would not stop it): the
 * tick sets mon.crashed, and the loop stops the job. Once the job has
 * ended (BYE, dropped connection, relaunch checkpoint) and none of its
 * processes is left, the tick shortens the phase's time limit to
 * END_GRACE seconds, because mpirun may never end by itself (after a
 * failed spawn).
 */
#ifndef MORPH_LAUNCH_MONITOR_H
#define MORPH_LAUNCH_MONITOR_H

#include "launch.h"

void morph__launch_monitor_tick(struct morph__launch *r);

/* A new mpirun starts: forget what the previous one's processes did. */
void morph__launch_monitor_reset(struct morph__launch *r);

/* The application's processes now: here, or on every host of the job
 * (their last counts, at most a second old). -1: not known (/proc
 * unreadable, or a host has not answered yet). */
int morph__launch_monitor_count(struct morph__launch *r);

/* The hosts of the job lost after it had left them (watch.h), named in
 * `names`; 0 if none, or if the job runs on this host only. */
int morph__launch_monitor_idle_lost(struct morph__launch *r, char *names, size_t size);

/* After mpirun ended by itself with an error: waits (at most
 * MORPH__WATCH_SILENT_S) until every other host of the job answered once
 * more, and writes into buf the ones that did not ("" if none, or if the
 * job ran on this host only): a host that died takes mpirun's daemon with
 * it, and mpirun ends the job before the monitor could name the host.
 * Returns how many did not answer. */
int morph__launch_monitor_lost_hosts(struct morph__launch *r, char *buf, size_t size);

/* The job now also runs on `host` (a relaunch placed it there, hosts.h):
 * from the next look its processes there are counted too. Said once if
 * the host cannot be watched; the count then leaves it out. */
void morph__launch_monitor_watch(struct morph__launch *r, const char *host);

void morph__launch_monitor_free(struct morph__launch *r);

#endif
