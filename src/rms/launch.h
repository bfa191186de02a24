/*
 * Starting a job's `morph run` (the embedded backend's launcher): in a
 * session of its own (a Ctrl-C meant for morphd's terminal does not reach
 * it and it survives morphd), stdout and stderr in the job's files,
 * relaying to morphd's socket under the job's id.
 */
#ifndef MORPH_RMS_LAUNCH_H
#define MORPH_RMS_LAUNCH_H

#include <limits.h>
#include <sys/types.h>

#include "rms/backend.h"

typedef struct morph__launcher {
  char path[PATH_MAX]; /* morph-run */
  char socket[108];    /* morphd's socket */
  char outdir[PATH_MAX]; /* where job hostfiles go */
  char checkpoint_dir[PATH_MAX]; /* morph run's --checkpoint-dir; "": none */
} morph__launcher;

/* Fills l: `path` NULL means morph-run next to the running program.
 * `checkpoint_dir` (NULL: none) is passed to every malleable job's morph
 * run. Errors: MORPH_EIO (cannot find my own folder), MORPH_EINVAL (a path
 * too long); message in err. */
int morph__launcher_init(morph__launcher *l, const char *path, const char *socket,
                         const char *outdir, const char *checkpoint_dir, char *err,
                         size_t errsize);

/* Forks `morph-run --server SOCK --job-id ID -n SIZE [--min --max --pref
 * --checkpoint-dir DIR] [--hostfile F --mpi-arg --oversubscribe] -- argv` for a job on
 * job->alloc; with `nodes` (nnodes of them; NULL: this machine, no
 * hostfile) it first writes <outdir>/<id>.hosts with one "host slots=N"
 * line per piece, then one per other node (Open MPI's hostfile: across
 * hosts the embedded backend runs Open MPI jobs).
 *
 * Each start of a job (job->start names it) runs once: the child first
 * claims it by creating the marker <outdir>/<id>.started (its pid and the
 * start time, mode 0600, never through a symlink). If a child forked for
 * the same start before morphd restarted holds the marker, nothing new
 * runs: *pid is that process and *taken 1. Errors: MORPH_EINVAL (too
 * many arguments), MORPH_EIO (hostfile, or the marker cannot be
 * written: said on stderr), MORPH_ESPAWN (fork failed, or the child did
 * not claim its start within 5 s); nothing runs then. */
int morph__launcher_run(const morph__launcher *l, const morph__job *job, const morph__node *nodes,
                        int nnodes, pid_t *pid, int *taken);

#endif
