/*
 * morph/report.h - workload metrics, the same definitions for the simulator
 * (`morph sim`) and the daemon (`morph report`), after paper 000 section 5
 * and appendix B.
 *
 * Feed one record per job of the input (also jobs that were skipped or
 * never ran: the report counts every job), then compute totals, write CSV
 * and plots. Definitions (times in seconds):
 *   waiting    = start - submit          (completed jobs)
 *   execution  = end - start
 *   completion = end - submit            (waiting + execution)
 *   bounded slowdown = max(1, completion / max(execution, 10 s))
 *                                        (Feitelson et al. 1997; the bound
 *                                        keeps very short jobs from
 *                                        dominating the mean)
 *   makespan   = last end - first submit (workload completion time)
 *   throughput = completed jobs / makespan (jobs per second)
 *   allocation rate = allocated unit-seconds / (units * makespan)
 *   energy     = sum over units of idle_w * idle seconds + loaded_w * loaded
 *                seconds over the makespan (paper 000: 100 W, 340 W)
 *   speed-up of B over A for a metric m = m(A) / m(B) (A the fixed run).
 *
 * Error contract: int functions return MORPH_OK or a negative morph/error.h
 * code; the report keeps a message of the last failure
 * (morph_report_errmsg). A failed call leaves the report as it was.
 * No global state: reports are independent.
 */
#ifndef MORPH_REPORT_H
#define MORPH_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "morph/error.h"
#include "morph/workload.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A job's size from time t on (until the next segment or its end). */
typedef struct morph_seg {
  double t;
  int size;
} morph_seg;

typedef enum morph_job_state {
  MORPH_JOB_COMPLETED = 0, /* ran to its end */
  MORPH_JOB_SKIPPED,       /* never started: impossible or rejected */
  MORPH_JOB_FAILED,        /* started, did not complete (crash, cancel) */
  MORPH_JOB_UNFINISHED     /* still pending or running when recorded */
} morph_job_state;

/* One job as the report sees it. The report copies what it is given. */
typedef struct morph_job_record {
  const char *name;       /* job name or id */
  const char *app;        /* application, may be NULL */
  morph_job_kind kind;
  morph_job_state state;
  double submit, start, end; /* start, end unused when not started/ended */
  size_t nseg;            /* size over time; seg[0].t == start */
  const morph_seg *seg;
  int resizes;            /* number of expand/shrink actions carried out */
} morph_job_record;

typedef struct morph_report_config {
  int units;              /* cluster size (nodes or slots), > 0 */
  const char *unit_name;  /* "nodes" (default) or "slots", for labels */
  double idle_w;          /* watts of an idle unit (100) */
  double loaded_w;        /* watts of a loaded unit (340) */
  double interval;        /* seconds per bar of completed jobs (60) */
  const char *title;      /* plot titles, may be NULL */
} morph_report_config;

/* Sets the defaults noted in the fields (units 0: caller must set it). */
void morph_report_config_init(morph_report_config *cfg);

/* The execution time under which the bounded slowdown stops growing. */
#define MORPH_REPORT_BSLD_TAU 10.0

/* Averages over completed jobs of one group (all, or one kind). */
typedef struct morph_report_avg {
  size_t jobs;            /* completed jobs in the group */
  double wait, exec, completion; /* averages, seconds (0 if no jobs) */
  double bsld;            /* mean bounded slowdown (0 if no jobs) */
  double wait_p95;        /* 95th percentile of the waiting time (nearest
                             rank; 0 if no jobs) */
} morph_report_avg;

typedef struct morph_report_totals {
  size_t jobs;            /* every job recorded */
  size_t completed, skipped, failed, unfinished;
  morph_report_avg all;
  morph_report_avg kind[MORPH_KIND_COUNT];
  double first_submit, last_end;
  double makespan;        /* seconds; 0 if nothing completed */
  double throughput;      /* completed jobs per second */
  double allocation_rate; /* 0..1 */
  double busy_unit_s;     /* allocated unit-seconds */
  double energy_j;        /* joules over the makespan */
  double energy_kwh;
  size_t resizes;
} morph_report_totals;

/* Speed-ups of run b over run a (a / b for times, b / a for throughput;
 * energy_ratio = b / a, e.g. 0.3 for 30 %). 0 where a metric is 0. */
typedef struct morph_report_speedup {
  double wait, exec, completion, makespan, throughput, energy_ratio;
} morph_report_speedup;

typedef struct morph_report morph_report;

/* Creates an empty report. Errors: MORPH_EINVAL (cfg NULL, units <= 0,
 * negative powers, interval <= 0), MORPH_ENOMEM. *out is NULL on error. */
int morph_report_create(const morph_report_config *cfg, morph_report **out);

/* Frees a report; NULL is fine. */
void morph_report_destroy(morph_report *rep);

/* Message of the last failure ("" if none). Never NULL. */
const char *morph_report_errmsg(const morph_report *rep);

/* Adds a copy of a job record. Errors: MORPH_EINVAL (end < start or start
 * < submit for a completed job, segments not in time order, a size < 0 or
 * > units), MORPH_ENOMEM. */
int morph_report_add(morph_report *rep, const morph_job_record *job);

/* Number of records added (0 for NULL). Never fails. */
size_t morph_report_count(const morph_report *rep);

/* Computes the totals (cheap enough to call after every add). */
void morph_report_totals_get(const morph_report *rep, morph_report_totals *out);

/* Speed-ups of b over a, see morph_report_speedup. */
void morph_report_speedup_get(const morph_report_totals *a, const morph_report_totals *b,
                              morph_report_speedup *out);

/* One line per job: name,app,kind,state,submit,start,end,wait,exec,
 * completion,first_size,last_size,max_size,resizes,unit_seconds.
 * Errors: MORPH_EIO. */
int morph_report_write_jobs_csv(const morph_report *rep, FILE *out);

/* key,value lines of the totals (and per-kind averages). Errors: MORPH_EIO. */
int morph_report_write_summary_csv(const morph_report *rep, FILE *out);

/* time,allocated,running,completed_in_interval every time something
 * changes (allocated units and running jobs) plus the interval histogram.
 * Errors: MORPH_EIO. */
int morph_report_write_timeline_csv(const morph_report *rep, FILE *out);

/* The per-job chart as rectangles, one row per job in submission order
 * (at most 60 rows: beyond 60 jobs, consecutive jobs share a row and it
 * shows their sum): row,label,t0,t1,y0,y1,phase,amount. Times are seconds
 * since the first submission; phase "wait" spans the time jobs of the row
 * wait (amount: how many), "run" the units they hold (amount), one
 * rectangle per constant value, so every grow and shrink starts a new one.
 * y0,y1 place the band in [row, row + 1), its height scaled by the largest
 * amount of its phase in the chart. Errors: MORPH_EIO, MORPH_ENOMEM. */
int morph_report_write_gantt_csv(const morph_report *rep, FILE *out);

/* Mean waiting and execution time of the completed jobs of each row of the
 * per-job chart (same rows): row,label,completed,wait,exec.
 * Errors: MORPH_EIO, MORPH_ENOMEM. */
int morph_report_write_jobbars_csv(const morph_report *rep, FILE *out);

/* Writes <dir>/<prefix>-{jobs,summary,timeline,completed,gantt,jobbars}.csv, a gnuplot
 * script <dir>/<prefix>.gp and, if gnuplot runs, PNG and SVG plots:
 * <prefix>-timeline (allocated units and running jobs over time),
 * <prefix>-completed (completed jobs per interval, paper 000 Fig. 5),
 * <prefix>-jobs (waiting and execution time per job as stacked bars, Fig. 6;
 * means per row beyond 60 jobs) and <prefix>-gantt (the per-job chart).
 * Errors: MORPH_EIO (files); MORPH_ENOSYS when gnuplot is missing or fails
 * (the CSV files and the script are written anyway). */
int morph_report_plot(const morph_report *rep, const char *dir, const char *prefix);

/* Prints a human-readable summary (the totals and per-kind averages). */
void morph_report_print(const morph_report *rep, FILE *out);

#ifdef __cplusplus
}
#endif
#endif /* MORPH_REPORT_H */
