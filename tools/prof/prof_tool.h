/* morph prof: options and the run half (run.c). */
#ifndef MORPH_TOOLS_PROF_H
#define MORPH_TOOLS_PROF_H

typedef struct prof_opts {
  const char *prefix;  /* output file prefix */
  const char *dir;     /* per-process files; NULL: PREFIX.ranks */
  const char *mpi;     /* "ompi", "mpich" or NULL: detect */
  const char *collect; /* --collect DIR */
  int np;              /* > 0: launch with mpirun/mpiexec -n np */
  int plot, quiet;
  char **cmd;          /* the command line to run */
  int ncmd;
} prof_opts;

/* Prepares dir (created; stale *.prof files removed), runs the command
 * with the profiler preloaded and waits for it. *status is its exit status
 * (128 + signal when killed). Returns 0, or 1 after printing why the
 * command could not be run. */
int prof_run(const prof_opts *o, const char *dir, int *status);

#endif
