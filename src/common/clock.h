/* Monotonic time in seconds, for phase timings, deadlines and inhibitors. */
#ifndef MORPH_COMMON_CLOCK_H
#define MORPH_COMMON_CLOCK_H

/* Seconds since an arbitrary fixed point (CLOCK_MONOTONIC). */
double morph__now(void);

/* Sleeps for the given number of seconds (restarts after signals). */
void morph__sleep(double seconds);

#endif
