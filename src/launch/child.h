/*
 * Starting and stopping the launcher process (mpirun / mpiexec). It runs in
 * a process group of its own so that a terminal's Ctrl-C reaches morph run
 * only, which then decides how to stop the job.
 */
#ifndef MORPH_LAUNCH_CHILD_H
#define MORPH_LAUNCH_CHILD_H

#include <sys/types.h>

/* Starts argv[0] (searched in PATH) in a new process group, its standard
 * error on err_to (-1: ours). On success *pid is set. Errors: MORPH_ESPAWN
 * (fork failed or the program cannot be executed; err says why, and no
 * child is left). */
int morph__launch_child_start(char *const argv[], int err_to, pid_t *pid, char *err,
                              size_t errsize);

/* Reaps every ended child without waiting (orphans of the job come to us as
 * the subreaper). Returns 1 and the exit code (see morph__launch_child_exit_code) in
 * *code if `pid` is among them, else 0. */
int morph__launch_child_reap(pid_t pid, int *code);

/* Stops `pid` and every other descendant: SIGTERM to pid, up to `grace`
 * seconds for it to end, then SIGKILL to its group and to every remaining
 * descendant, which are then reaped (bounded). Returns pid's exit code. */
int morph__launch_child_terminate(pid_t pid, double grace);

/* Kills and reaps whatever descendants are left (after the launcher ended,
 * some of its processes may linger). Returns how many were killed. */
int morph__launch_child_kill_leftovers(double grace);

/* Exit code of a wait status, the shell's way: the status, or 128+signal. */
int morph__launch_child_exit_code(int wstatus);

#endif
