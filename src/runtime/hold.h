/*
 * Placeholders for leavers of a live shrink. Open MPI 4.1's daemon on a
 * host (orted) forgets a job when the job's last process on that host
 * ends (orte/mca/state/orted/state_orted.c: "cleanup the job info"), and
 * a later spawn onto that host whose parents include processes of that
 * job fails (docs/cluster.md). So the last leaver of a job on a host,
 * while the job keeps processes elsewhere, stays: no MPI, no data, a
 * sleeping program in its place. Which leavers hold: leavers.h.
 */
#ifndef MORPH_RUNTIME_HOLD_H
#define MORPH_RUNTIME_HOLD_H

#include <stddef.h>

/* This process's Open MPI job id when an Open MPI daemon (orted) started
 * it, else "" (mpirun's own processes, MPICH, no launcher). */
void morph__hold_job(char *buf, size_t n);

/* Turns this process into a placeholder: flushes stdio, closes every
 * descriptor above stderr and executes `sleep infinity` as "morph-hold"
 * with only MORPH_HOLD_OF=<MORPH_JOB_ID> in its environment (so morph's
 * process counts, which look for MORPH_JOB_ID, no longer see it), set to
 * die with its parent daemon. Does not return; if the program cannot be
 * started, the process ends with status 0 as a leaver does. */
void morph__hold_process(void) __attribute__((noreturn));

#endif /* MORPH_RUNTIME_HOLD_H */
