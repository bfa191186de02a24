/* Shared declarations of the morph-sim program's files. */
#ifndef MORPH_TOOLS_SIM_H
#define MORPH_TOOLS_SIM_H

#include "morph/sim.h"

#define PLACE_PARAMS_MAX 8

typedef struct tool_opts {
  const char *json, *swf, *out, *name, *save, *kind;
  size_t generate;
  morph_gen_options gen;
  morph_swf_options swfo;
  double share;          /* < 0: from the kind */
  morph_sim_config sim;
  morph_report_config rep;
  int quiet, csv, csv_header;
  morph_place_param place[PLACE_PARAMS_MAX]; /* --topology, --faults, --place-param */
  char place_keys[PLACE_PARAMS_MAX][32];
  int nplace;
  int max_size;          /* > 0: cap on requests and limits (--max-size) */
  double inhibit;        /* >= 0: every job's inhibitor (--inhibit); < 0: the model's */
  double load;           /* > 0: compress or stretch arrivals to this offered load */
  double estimate_max;   /* > 0: requested times from Tsafrir's model, this the largest */
} tool_opts;

/* output.c: the report, the --csv line and the plots; -1 on failure. */
int morph__tool_output(tool_opts *o, morph_report *rep, const morph_sim_stats *st,
                       const morph_workload *wl);
/* Says once how the run's estimates were chosen when the workload has no
 * requested time for some or all of its jobs (--estimates requested). */
void morph__tool_say_estimates(const tool_opts *o, const morph_workload *wl);

/* `morph sim limits ...`; returns the exit status. */
int morph__tool_limits(int argc, char **argv);

#endif
