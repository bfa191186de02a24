/*
 * The relaunch mechanism: the job checkpoints and ends (RELAUNCH_EXIT),
 * morph run starts it again at the new size with MORPH_RESTART (RESTART)
 * and waits for its HELLO. If that start fails or stays silent, the job is
 * started again at the old size from the same checkpoint (ROLLBACK), so a
 * failed resize never loses the job.
 */
#ifndef MORPH_LAUNCH_RELAUNCH_H
#define MORPH_LAUNCH_RELAUNCH_H

#include "launch.h"

/* The job acknowledged a relaunch (r->dec.ack): wait for mpirun to end. */
void morph__launch_relaunch_begin(struct morph__launch *r);

/* mpirun ended during a relaunch phase: start the next one. */
void morph__launch_relaunch_exited(struct morph__launch *r);

/* The restarted job said HELLO (r->hello): the relaunch is complete. */
void morph__launch_relaunch_hello(struct morph__launch *r);

/* Acts on an expired phase time limit: stops mpirun and moves on. */
void morph__launch_relaunch_tick(struct morph__launch *r);

/* Removes the checkpoints that failed or interrupted relaunches left, and
 * the hostfiles of relaunches that left or rejoined hosts. */
void morph__launch_checkpoints_remove(struct morph__launch *r);

#endif
