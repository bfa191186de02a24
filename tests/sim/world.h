/*
 * The simulator tests' world: a workload, a simulator and its report, and
 * what a test reads back (a job's start, end and resizes), shared by
 * test-sim.c and test-sim-limits.c.
 */
#ifndef MORPH_TEST_SIM_WORLD_H
#define MORPH_TEST_SIM_WORLD_H

#include <stddef.h>

#include "morph/sim.h"

typedef struct world {
  morph_workload *wl;
  morph_report *rep;
  morph_sim *sim;
  morph_sim_config cfg;
  morph_sim_stats st;
} world;

/* Adds a job with an Amdahl model of serial fraction 0 (t(n) = t1 / n). */
void add(world *w, const char *name, morph_job_kind kind, double submit, int rmin, int rmax,
         int min, int pref, int max, double t1);
/* A world of `nodes` nodes under `policy`, free reconfigurations. */
void world_init(world *w, int nodes, const char *policy);
/* Runs the simulation; the run must return `expect`. */
void world_run(world *w, int expect);
void world_free(world *w);
/* Start, end and resizes of job i, from the report's per-job CSV. */
void times(world *w, size_t i, double *start, double *end, int *resizes);
/* Job i must have started and ended at these times after so many resizes. */
void expect_job(world *w, size_t i, double start, double end, int resizes);

#endif
