/* libmorph-prof, MPI time: the consumer of the interception layer
 * (intercept.c) that adds up the wall time this process spends in MPI. */
#ifndef MORPH_PROF_MPITIME_H
#define MORPH_PROF_MPITIME_H

/* Seconds this process has spent in the intercepted MPI calls so far; -1
 * when not timing (no launcher to report to). Declared weak where libmorph
 * uses it, so that linking libmorph-prof is a choice: without it, MPI time
 * is reported as unknown (-1). */
double morph_prof_mpi_seconds(void);

/* Called by the MPI_Init wrappers: times the calls from now on if the
 * process has a launcher (MORPH_SOCKET). */
void morph__prof_time_init(void);

/* Non-zero while timing. */
int morph__prof_timing(void);

/* Adds the duration of one intercepted blocking call. */
void morph__prof_time_add(double seconds);

#endif
