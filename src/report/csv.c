/* CSV output and the timeline of allocated units and running jobs. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

typedef struct delta {
  double t;
  int units, running;
} delta;

static int delta_cmp(const void *a, const void *b)
{
  const delta *x = a, *y = b;
  return (x->t > y->t) - (x->t < y->t);
}

static size_t job_deltas(const morph__rjob *j, delta *d)
{
  size_t n = 0;
  int prev = 0;
  for (size_t i = 0; i < j->nseg; i++) {
    d[n++] = (delta){j->seg[i].t, j->seg[i].size - prev, i == 0};
    prev = j->seg[i].size;
  }
  d[n++] = (delta){j->end, -prev, j->nseg ? -1 : 0};
  return n;
}

int morph__report_timeline(const morph_report *rep, morph__tpoint **out, size_t *n)
{
  size_t total = 0, k = 0;
  for (size_t i = 0; i < rep->njobs; i++)
    total += morph__rjob_ran(&rep->jobs[i]) ? rep->jobs[i].nseg + 1 : 0;
  delta *d = malloc((total + 1) * sizeof *d);
  morph__tpoint *p = malloc((total + 1) * sizeof *p);
  if (!d || !p)
    return free(d), free(p), MORPH_ENOMEM;
  for (size_t i = 0; i < rep->njobs; i++)
    if (morph__rjob_ran(&rep->jobs[i]))
      k += job_deltas(&rep->jobs[i], d + k);
  qsort(d, k, sizeof *d, delta_cmp);
  size_t m = 0;
  long units = 0, running = 0;
  for (size_t i = 0; i < k; i++) {
    units += d[i].units;
    running += d[i].running;
    /* Changes at the same instant collapse into one point. */
    if (m > 0 && p[m - 1].t == d[i].t)
      m--;
    p[m++] = (morph__tpoint){d[i].t, units, running};
  }
  free(d);
  *out = p;
  *n = m;
  return MORPH_OK;
}

static const char *const state_names[] = {"completed", "skipped", "failed", "unfinished"};

static void job_sizes(const morph__rjob *j, int *first, int *last, int *max)
{
  *first = *last = *max = 0;
  for (size_t i = 0; i < j->nseg; i++) {
    if (i == 0)
      *first = j->seg[i].size;
    *last = j->seg[i].size;
    if (j->seg[i].size > *max)
      *max = j->seg[i].size;
  }
}

int morph_report_write_jobs_csv(const morph_report *rep, FILE *out)
{
  fprintf(out, "name,app,kind,state,submit,start,end,wait,exec,completion,first_size,"
               "last_size,max_size,resizes,unit_seconds\n");
  for (size_t i = 0; i < rep->njobs; i++) {
    const morph__rjob *j = &rep->jobs[i];
    int first, last, max, ran = morph__rjob_ran(j);
    job_sizes(j, &first, &last, &max);
    fprintf(out, "%s,%s,%s,%s,%.3f,", j->name, j->app, morph_job_kind_name(j->kind),
            state_names[j->state], j->submit);
    if (ran)
      fprintf(out, "%.3f,%.3f,%.3f,%.3f,%.3f,", j->start, j->end, j->start - j->submit,
              j->end - j->start, j->end - j->submit);
    else
      fprintf(out, ",,,,,");
    fprintf(out, "%d,%d,%d,%d,%.1f\n", first, last, max, j->resizes,
            morph__rjob_unit_seconds(j));
  }
  return ferror(out) ? MORPH_EIO : MORPH_OK;
}

int morph_report_write_summary_csv(const morph_report *rep, FILE *out)
{
  morph_report_totals t;
  morph_report_totals_get(rep, &t);
  fprintf(out, "key,value\njobs,%zu\ncompleted,%zu\nskipped,%zu\nfailed,%zu\nunfinished,%zu\n"
               "avg_wait_s,%.3f\navg_exec_s,%.3f\navg_completion_s,%.3f\nmakespan_s,%.3f\n"
               "throughput_jobs_per_s,%.6f\nallocation_rate,%.6f\nbusy_%s_s,%.1f\n"
               "energy_kwh,%.3f\nresizes,%zu\nunits,%d\navg_bounded_slowdown,%.3f\n",
          t.jobs, t.completed, t.skipped, t.failed, t.unfinished, t.all.wait, t.all.exec,
          t.all.completion, t.makespan, t.throughput, t.allocation_rate, rep->unit_name,
          t.busy_unit_s, t.energy_kwh, t.resizes, rep->cfg.units, t.all.bsld);
  for (int k = 0; k < MORPH_KIND_COUNT; k++)
    if (t.kind[k].jobs)
      fprintf(out, "%s_jobs,%zu\n%s_avg_wait_s,%.3f\n%s_avg_exec_s,%.3f\n"
                   "%s_avg_completion_s,%.3f\n",
              morph_job_kind_name(k), t.kind[k].jobs, morph_job_kind_name(k), t.kind[k].wait,
              morph_job_kind_name(k), t.kind[k].exec, morph_job_kind_name(k),
              t.kind[k].completion);
  return ferror(out) ? MORPH_EIO : MORPH_OK;
}

/* Completed jobs per interval, counted from the first submission. */
static int write_completed(const morph_report *rep, FILE *out)
{
  morph_report_totals t;
  morph_report_totals_get(rep, &t);
  double w = rep->cfg.interval;
  size_t nb = (size_t)(t.makespan / w) + 1;
  size_t *bins = calloc(nb, sizeof *bins);
  if (!bins)
    return MORPH_ENOMEM;
  for (size_t i = 0; i < rep->njobs; i++) {
    const morph__rjob *j = &rep->jobs[i];
    size_t b = (size_t)((j->end - t.first_submit) / w);
    if (j->state == MORPH_JOB_COMPLETED && b < nb)
      bins[b]++;
  }
  fprintf(out, "interval_start,completed\n");
  for (size_t b = 0; b < nb; b++)
    fprintf(out, "%.1f,%zu\n", t.first_submit + (double)b * w, bins[b]);
  free(bins);
  return ferror(out) ? MORPH_EIO : MORPH_OK;
}

int morph_report_write_timeline_csv(const morph_report *rep, FILE *out)
{
  morph__tpoint *p;
  size_t n;
  if (morph__report_timeline(rep, &p, &n) != MORPH_OK)
    return MORPH_ENOMEM;
  fprintf(out, "time,allocated,running\n");
  for (size_t i = 0; i < n; i++)
    fprintf(out, "%.3f,%ld,%ld\n", p[i].t, p[i].units, p[i].running);
  free(p);
  return ferror(out) ? MORPH_EIO : MORPH_OK;
}

int morph__report_write_completed(const morph_report *rep, FILE *out)
{
  return write_completed(rep, out);
}

void morph_report_print(const morph_report *rep, FILE *out)
{
  morph_report_totals t;
  morph_report_totals_get(rep, &t);
  fprintf(out, "%s: %zu jobs (%zu completed, %zu skipped, %zu failed, %zu unfinished)\n",
          rep->title, t.jobs, t.completed, t.skipped, t.failed, t.unfinished);
  fprintf(out, "  average wait %.1f s, execution %.1f s, completion %.1f s, bounded slowdown "
          "%.2f\n", t.all.wait, t.all.exec, t.all.completion, t.all.bsld);
  fprintf(out, "  makespan %.1f s, throughput %.5f jobs/s, allocation %.2f %% of %d %s\n",
          t.makespan, t.throughput, 100.0 * t.allocation_rate, rep->cfg.units, rep->unit_name);
  /* Watts are per unit: "per slot" where a node's power is shared by its
   * slots, so that a reader does not take them for a node's. */
  int n = (int)strlen(rep->unit_name);
  fprintf(out, "  energy %.2f kWh (idle %.1f W, loaded %.1f W per %.*s), %zu resizes\n",
          t.energy_kwh, rep->cfg.idle_w, rep->cfg.loaded_w,
          n > 1 && rep->unit_name[n - 1] == 's' ? n - 1 : n, rep->unit_name, t.resizes);
  for (int k = 0; k < MORPH_KIND_COUNT; k++)
    if (t.kind[k].jobs && t.kind[k].jobs != t.completed)
      fprintf(out, "  %-9s %zu jobs: wait %.1f s, execution %.1f s, completion %.1f s\n",
              morph_job_kind_name(k), t.kind[k].jobs, t.kind[k].wait, t.kind[k].exec,
              t.kind[k].completion);
}
