/*
 * libmorph-prof, MPI time: the wall time spent in the MPI calls where
 * iterative codes wait (blocking point to point, collectives, completion).
 * libmorph reads the total through morph_prof_mpi_seconds() and reports the
 * MPI time per iteration to the launcher, for the policies that judge
 * scaling from it (Elastic MPI's MPI-to-compute ratio).
 *
 * The accumulator is process-wide by nature: PMPI intercepts calls for the
 * whole process. It is only ever touched through the two functions below.
 */
#include "prof/mpitime.h"

static double mpi_seconds;

double morph_prof_mpi_seconds(void) { return mpi_seconds; }

void morph__prof_time_add(double seconds) { mpi_seconds += seconds; }
