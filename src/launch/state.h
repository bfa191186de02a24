/*
 * What every part of a launch needs of its state beyond reading the
 * context: the launch's clock and moving to a phase with a time limit.
 */
#ifndef MORPH_LAUNCH_STATE_H
#define MORPH_LAUNCH_STATE_H

#include "launch.h"

/* Seconds since the launch started. */
double morph__launch_clock(const struct morph__launch *r);

/* Moves to phase ph, which must be over within `limit` seconds from now
 * (phase_deadline; the loop and relaunch.c act on it). */
void morph__launch_phase_set(struct morph__launch *r, enum morph__launch_phase ph, double limit);

#endif
