/* Time in seconds: monotonic for phase timings, deadlines and inhibitors;
 * wall clock for what must survive a restart (journal times). */
#ifndef MORPH_COMMON_CLOCK_H
#define MORPH_COMMON_CLOCK_H

/* Seconds since an arbitrary fixed point (CLOCK_MONOTONIC). */
double morph__now(void);

/* Seconds since the epoch (CLOCK_REALTIME). */
double morph__wall(void);

/* Sleeps for the given number of seconds (restarts after signals). */
void morph__sleep(double seconds);

#endif
