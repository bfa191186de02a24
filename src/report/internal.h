/* Internal layout of a report, shared by its files. */
#ifndef MORPH_REPORT_INTERNAL_H
#define MORPH_REPORT_INTERNAL_H

#include "morph/report.h"

typedef struct morph__rjob {
  char *name, *app;
  morph_job_kind kind;
  morph_job_state state;
  double submit, start, end;
  size_t nseg;
  morph_seg *seg;
  int resizes;
} morph__rjob;

struct morph_report {
  morph_report_config cfg;
  char unit_name[16];
  char title[128];
  morph__rjob *jobs;
  size_t njobs, cap;
  char errmsg[256];
};

/* A point of the timeline: allocated units and running jobs from t on. */
typedef struct morph__tpoint {
  double t;
  long units, running;
} morph__tpoint;

/* Unit-seconds a job held (0 if it never started). */
double morph__rjob_unit_seconds(const morph__rjob *j);

/* True if the job held resources (started and has an end). */
int morph__rjob_ran(const morph__rjob *j);

/* Builds the timeline (malloc'ed, *n points, time order). Errors:
 * MORPH_ENOMEM. */
int morph__report_timeline(const morph_report *rep, morph__tpoint **out, size_t *n);

/* Rows of the per-job charts: jobs in submission order, per_row of them to
 * a row so that there are at most MORPH__REPORT_ROWS rows (one job per row
 * when they fit). */
#define MORPH__REPORT_ROWS 60
typedef struct morph__rows {
  const morph__rjob **jobs; /* every job, in submission order */
  size_t njobs, per_row, nrows;
} morph__rows;

/* Errors: MORPH_ENOMEM (nothing to free). */
int morph__report_rows(const morph_report *rep, morph__rows *out);
void morph__report_rows_free(morph__rows *rows);

/* The row's label: the job's name, or "first-last" submission ranks. */
void morph__report_row_label(const morph__rows *rows, size_t row, char *buf, size_t n);

/* interval_start,completed lines (morph_report_config.interval). */
int morph__report_write_completed(const morph_report *rep, FILE *out);

#endif
