/* libmorph-prof: MPI time of this process (see mpitime.c). */
#ifndef MORPH_PROF_MPITIME_H
#define MORPH_PROF_MPITIME_H

/* Seconds this process has spent in the intercepted MPI calls so far.
 * Declared weak where libmorph uses it, so that linking libmorph-prof is a
 * choice: without it, MPI time is reported as unknown (-1). */
double morph_prof_mpi_seconds(void);

#endif
