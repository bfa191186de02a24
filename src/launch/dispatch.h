/*
 * Decisions to the job: morphd's RESIZEs first (they reflect the cluster),
 * then the schedule, in the order given. At most one decision is
 * outstanding; the next goes out only once the previous is complete
 * (acknowledged and, for a shrink, its leavers gone).
 */
#ifndef MORPH_LAUNCH_DISPATCH_H
#define MORPH_LAUNCH_DISPATCH_H

#include "launch.h"

/* Sends the next decision if there is one and the job can take it. */
void morph__launch_dispatch_tick(struct morph__launch *r);

#endif
