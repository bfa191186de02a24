/* morph-sim's output: the report, the --csv line, the plots, and what it
 * says about estimates. */
#include <stdio.h>
#include <sys/stat.h>

#include "sim_tool.h"

static const char *estimates_name(morph_sim_estimates e)
{
  return e == MORPH_SIM_EST_EXACT ? "exact" : e == MORPH_SIM_EST_FACTOR ? "factor" : "requested";
}

/* Columns 1-17 as they always were; then the 95th percentile of the
 * wait, jobs killed at their limit, the estimates used and, per kind
 * (fixed, moldable, malleable, flexible), jobs, mean wait, p95 wait and
 * mean bounded slowdown. */
static void print_csv(const tool_opts *o, const morph_report *rep, const morph_sim_stats *st,
                      const morph_workload *wl)
{
  morph_report_totals t;
  morph_report_totals_get(rep, &t);
  if (o->csv_header) {
    printf("name,policy,kind,jobs,completed,skipped,makespan_s,avg_wait_s,avg_exec_s,"
           "avg_completion_s,allocation_rate,energy_kwh,throughput,resizes,decisions,wall_s,"
           "avg_bounded_slowdown,p95_wait_s,timeouts,estimates");
    for (int k = 0; k < MORPH_KIND_COUNT; k++)
      printf(",%1$s_jobs,%1$s_avg_wait_s,%1$s_p95_wait_s,%1$s_avg_bounded_slowdown",
             morph_job_kind_name(k));
    printf("\n");
  }
  printf("%s,%s,%s,%zu,%zu,%zu,%.3f,%.3f,%.3f,%.3f,%.5f,%.3f,%.6f,%zu,%zu,%.4f,%.4f", o->name,
         o->sim.policy, o->json ? (wl->njobs ? morph_job_kind_name(wl->jobs[0].kind) : "-")
                                : o->kind,
         t.jobs, t.completed, t.skipped, t.makespan, t.all.wait, t.all.exec, t.all.completion,
         t.allocation_rate, t.energy_kwh, t.throughput, t.resizes, st->decisions, st->wall_s,
         t.all.bsld);
  printf(",%.3f,%zu,%s", t.all.wait_p95, st->timeouts, estimates_name(st->estimates));
  for (int k = 0; k < MORPH_KIND_COUNT; k++)
    printf(",%zu,%.3f,%.3f,%.4f", t.kind[k].jobs, t.kind[k].wait, t.kind[k].wait_p95,
           t.kind[k].bsld);
  printf("\n");
}

void morph__tool_say_estimates(const tool_opts *o, const morph_workload *wl)
{
  double largest;
  size_t given = morph_workload_walltimes(wl, &largest);
  if (o->sim.estimates != MORPH_SIM_EST_REQUESTED || given == wl->njobs)
    return;
  if (given == 0)
    fprintf(stderr, "morph sim: no job of the workload has a requested time (SWF field 9, "
            "JSON \"walltime\"): the scheduler is given exact run times and no job is killed "
            "(as --estimates exact)\n");
  else
    fprintf(stderr, "morph sim: %zu of %zu jobs have no requested time: they get the "
            "workload's largest, %.0f s, as Slurm gives a partition's limit\n",
            wl->njobs - given, wl->njobs, largest);
}

int morph__tool_output(tool_opts *o, morph_report *rep, const morph_sim_stats *st,
                       const morph_workload *wl)
{
  if (o->csv)
    print_csv(o, rep, st, wl);
  else if (!o->quiet) {
    morph_report_print(rep, stdout);
    printf("  simulated %.0f s in %.3f s wall: %zu events, %zu decisions, %zu starts, "
           "%zu expands, %zu shrinks; estimates %s, %zu killed at their time limit\n",
           st->sim_end, st->wall_s, st->events, st->decisions, st->starts, st->expands,
           st->shrinks, estimates_name(st->estimates), st->timeouts);
  }
  if (!o->out)
    return 0;
  mkdir(o->out, 0777);
  int rc = morph_report_plot(rep, o->out, o->name);
  if (rc == MORPH_ENOSYS)
    fprintf(stderr, "morph sim: %s (CSV files written)\n", morph_report_errmsg(rep));
  else if (rc)
    fprintf(stderr, "morph sim: cannot write to %s\n", o->out);
  return rc && rc != MORPH_ENOSYS ? -1 : 0;
}
