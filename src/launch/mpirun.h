/*
 * mpirun for the job: started with the command of mpicmd.c at a size,
 * optionally restarting from a checkpoint, and stopped.
 */
#ifndef MORPH_LAUNCH_MPIRUN_H
#define MORPH_LAUNCH_MPIRUN_H

#include "launch.h"

/* Starts mpirun with np processes (MORPH_RESTART=checkpoint when not
 * NULL); the job's size is then np and it has not connected yet.
 * Errors: MORPH_ENOMEM, MORPH_ESPAWN (said on stderr); r->mpirun is 0. */
int morph__launch_mpirun_start(struct morph__launch *r, int np, const char *checkpoint);

/* Stops mpirun and every process of the job (child.c), removes what a
 * killed Open MPI leaves, and returns mpirun's exit code. */
int morph__launch_mpirun_stop(struct morph__launch *r);

#endif
