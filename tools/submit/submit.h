/*
 * morph submit: its options, shared by the morphd submission (main.c) and
 * the Slurm one (slurm.c).
 */
#ifndef MORPH_TOOLS_SUBMIT_H
#define MORPH_TOOLS_SUBMIT_H

typedef struct sub_opts {
  int req_min, req_max, min, max, pref, quiet;
  const char *name, *out, *err, *dir, *sock;
  int slurm, print, ppn;     /* --slurm, --print, --ppn */
  const char *server;        /* --server: morphd's address for the job's morph run */
  const char *partition;     /* --partition */
  const char *matrix;        /* --matrix FILE: the job's communication matrix */
  double walltime;           /* --time: time limit in seconds (0: none) */
} sub_opts;

/* Writes the sbatch script of the job (prog: n words) and submits it with
 * sbatch, printing Slurm's job id; with o->print only prints the script.
 * Returns the program's exit status (0, 1 sbatch failed, 2 bad options). */
int submit_slurm(const sub_opts *o, char **prog, int n);

#endif
