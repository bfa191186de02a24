/*
 * libmorph-prof, MPI time: the wall time spent in the MPI calls where
 * iterative codes wait (blocking point to point, collectives, completion).
 * libmorph reads the total through morph_prof_mpi_seconds() and reports the
 * MPI time per iteration to the launcher, for the policies that judge
 * scaling from it (Elastic MPI's MPI-to-compute ratio).
 *
 * Only a process started by a launcher (MORPH_SOCKET set by morph run) has
 * a reader for it; elsewhere the two clock reads per call (80 ns of the 85
 * ns an intercepted call cost, bench/tofa/prof-calls.c) are skipped.
 *
 * The state is process-wide by nature: PMPI intercepts calls for the whole
 * process. It is only ever touched through the functions below.
 */
#include "prof/mpitime.h"

#include <stdlib.h>

static int timing;
static double mpi_seconds;

void morph__prof_time_init(void)
{
  const char *s = getenv("MORPH_SOCKET");
  timing = s && *s;
}

int morph__prof_timing(void) { return timing; }

double morph_prof_mpi_seconds(void) { return timing ? mpi_seconds : -1; }

void morph__prof_time_add(double seconds) { mpi_seconds += seconds; }
