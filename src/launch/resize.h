/*
 * From the job's ACK to a complete reconfiguration. A resize is complete
 * when its slots are really free or really used: after a live shrink, once
 * the leavers' processes have gone; after a relaunch, once the restarted
 * job has connected (relaunch.c). Only then is it logged, written to the
 * report and forwarded to morphd (decision.c), so the daemon never hands
 * out a slot a leaver still holds.
 */
#ifndef MORPH_LAUNCH_RESIZE_H
#define MORPH_LAUNCH_RESIZE_H

#include "launch.h"

/* The job acknowledged the outstanding decision with *ack. */
void morph__launch_resize_ack(struct morph__launch *r, const morph__msg *ack);

/* While the leavers of a live shrink are leaving: are they gone, or late? */
void morph__launch_resize_settle_tick(struct morph__launch *r);

#endif
