/*
 * morphd's own cost, as an administrator reads it: how long a turn of the
 * loop and a decision take (the poll() wait left out), and the process's
 * resident memory. Samples are kept for a window of LOOPSTAT_WINDOW_S and
 * summed up in one line of the log at -v ("loop: 60 s: ..."), then the
 * window starts again. No I/O but that line and /proc/self/statm.
 */
#ifndef MORPH_RMS_LOOPSTAT_H
#define MORPH_RMS_LOOPSTAT_H

#include "common/log.h"

#define MORPH__LOOPSTAT_WINDOW_S 60.0
#define MORPH__LOOPSTAT_MAX 8192 /* samples of a kind per window; more are counted only */

typedef struct morph__loopstat_kind {
  float ms[MORPH__LOOPSTAT_MAX];
  long n;      /* samples in the window (may exceed MORPH__LOOPSTAT_MAX) */
  double max;  /* over all n */
} morph__loopstat_kind;

typedef struct morph__loopstat {
  double since; /* morph__now() when the window began; 0: not yet */
  morph__loopstat_kind turn, decide;
} morph__loopstat;

/* Counts one loop turn (decide = 0) or one decision (decide = 1) that took ms. */
void morph__loopstat_add(morph__loopstat *st, int decide, double ms);
/* At the end of a window: one line "loop: 60 s: N turns, p50 .. ms, p99 ..
 * ms, max .. ms; N decisions, p50 .. ms, p99 .. ms, max .. ms; RSS .. MB" at
 * level 1, then a new window. Before: nothing. */
void morph__loopstat_tick(morph__loopstat *st, const morph__sayer *log);

#endif
