/* morph workload: the parts of the command. */
#ifndef MORPH_TOOLS_WORKLOAD_H
#define MORPH_TOOLS_WORKLOAD_H

#include <limits.h>

#include "morph/workload.h"
#include "rms/client.h"

typedef struct wl_opts {
  const char *dir, *sock;
  char app_dir[PATH_MAX];
  const char *suffix;  /* appended to the application name (".ompi") */
  int fixed;           /* submit every job rigid (the fixed baseline) */
  double time_scale;   /* multiplies submission times */
  double timeout;      /* give up waiting after this many seconds (0: never) */
  double every;        /* seconds between progress lines */
  int wait;            /* wait until every job has ended */
} wl_opts;

/* Checks every job's program exists; the message names the job and field.
 * Returns 0 or prints the problem and returns 1. */
int wl_check_programs(const wl_opts *o, const morph_workload *wl, const char *file);

/* Submits job i; *id gets its morphd id (0 if refused, e.g. impossible;
 * the reason is printed). Returns MORPH_OK or the connection error. */
int wl_submit(const wl_opts *o, morph__cli *cli, const morph_workload *wl, size_t i,
              long long *id);

/* morph workload lublin: writes a Lublin-Feitelson SWF trace; returns the
 * exit status. */
int wl_lublin(int argc, char **argv);

#endif
