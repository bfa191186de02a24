/*
 * The per-job chart (Gantt-like) and the per-job bars of waiting and
 * execution time. Both have one row per job, in submission order, while
 * rows can be told apart (MORPH__REPORT_ROWS); beyond that, consecutive
 * jobs share a row and the row shows their sum: units held and jobs
 * waiting over time, or their mean waiting and execution times. The same
 * sweep draws both cases, a single job being a group of one.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* A change at time t of a row's held units and waiting jobs. */
typedef struct step {
  double t;
  int units, waiting;
} step;

/* One rectangle of the chart before scaling: a row, a time span, what it
 * shows (waiting jobs or held units) and how many. */
typedef struct rect {
  size_t row;
  double t0, t1;
  int run, amount;
} rect;

typedef struct rects {
  rect *v;
  size_t n, cap;
} rects;

static int step_cmp(const void *a, const void *b)
{
  const step *x = a, *y = b;
  return (x->t > y->t) - (x->t < y->t);
}

static int job_cmp(const void *a, const void *b)
{
  const morph__rjob *x = *(const morph__rjob *const *)a, *y = *(const morph__rjob *const *)b;
  if (x->submit != y->submit)
    return (x->submit > y->submit) - (x->submit < y->submit);
  return (x > y) - (x < y); /* stable: the order the jobs were added */
}

int morph__report_rows(const morph_report *rep, morph__rows *out)
{
  memset(out, 0, sizeof *out);
  out->per_row = rep->njobs > MORPH__REPORT_ROWS
                     ? (rep->njobs + MORPH__REPORT_ROWS - 1) / MORPH__REPORT_ROWS
                     : 1;
  out->nrows = (rep->njobs + out->per_row - 1) / out->per_row;
  out->jobs = malloc((rep->njobs ? rep->njobs : 1) * sizeof *out->jobs);
  if (!out->jobs)
    return MORPH_ENOMEM;
  for (size_t i = 0; i < rep->njobs; i++)
    out->jobs[i] = &rep->jobs[i];
  qsort(out->jobs, rep->njobs, sizeof *out->jobs, job_cmp);
  out->njobs = rep->njobs;
  return MORPH_OK;
}

void morph__report_rows_free(morph__rows *rows)
{
  free(rows->jobs);
  rows->jobs = NULL;
}

/* "A" for a row of one job, "12-28" (submission ranks) for a group. */
void morph__report_row_label(const morph__rows *rows, size_t row, char *buf, size_t n)
{
  size_t first = row * rows->per_row, last = first + rows->per_row;
  if (last > rows->njobs)
    last = rows->njobs;
  if (rows->per_row == 1)
    snprintf(buf, n, "%s", rows->jobs[first]->name);
  else
    snprintf(buf, n, "%zu-%zu", first + 1, last);
  /* The label is a CSV field and a gnuplot string. */
  for (char *c = buf; *c; c++)
    if (*c == ',' || *c == '\'' || *c == '"')
      *c = '_';
}

/* The steps of one job: waiting from submit to start, then its segments. */
static size_t job_steps(const morph__rjob *j, double t0, step *s)
{
  size_t n = 0;
  int prev = 0;
  if (!morph__rjob_ran(j))
    return 0;
  s[n++] = (step){j->submit - t0, 0, 1};
  s[n++] = (step){j->start - t0, 0, -1};
  for (size_t i = 0; i < j->nseg; i++) {
    s[n++] = (step){j->seg[i].t - t0, j->seg[i].size - prev, 0};
    prev = j->seg[i].size;
  }
  s[n++] = (step){j->end - t0, -prev, 0};
  return n;
}

static int rect_push(rects *r, rect x)
{
  if (r->n == r->cap) {
    size_t cap = r->cap ? 2 * r->cap : 256;
    rect *v = realloc(r->v, cap * sizeof *v);
    if (!v)
      return MORPH_ENOMEM;
    r->v = v, r->cap = cap;
  }
  r->v[r->n++] = x;
  return MORPH_OK;
}

/* Sweeps a row's steps in time order into rectangles of constant units
 * and constant waiting jobs. */
static int sweep(rects *out, size_t row, step *s, size_t n)
{
  int units = 0, waiting = 0, rc = MORPH_OK;
  qsort(s, n, sizeof *s, step_cmp);
  for (size_t i = 0; i < n && rc == MORPH_OK; i++) {
    if (i > 0 && s[i].t > s[i - 1].t) {
      if (units > 0)
        rc = rect_push(out, (rect){row, s[i - 1].t, s[i].t, 1, units});
      if (waiting > 0 && rc == MORPH_OK)
        rc = rect_push(out, (rect){row, s[i - 1].t, s[i].t, 0, waiting});
    }
    units += s[i].units;
    waiting += s[i].waiting;
  }
  return rc;
}

static int row_rects(const morph__rows *rows, size_t row, double t0, rects *out)
{
  size_t first = row * rows->per_row, last = first + rows->per_row, n = 0, cap = 0;
  if (last > rows->njobs)
    last = rows->njobs;
  for (size_t i = first; i < last; i++)
    cap += rows->jobs[i]->nseg + 3;
  step *s = malloc((cap ? cap : 1) * sizeof *s);
  if (!s)
    return MORPH_ENOMEM;
  for (size_t i = first; i < last; i++)
    n += job_steps(rows->jobs[i], t0, s + n);
  int rc = sweep(out, row, s, n);
  free(s);
  return rc;
}

/* Largest amount over the rectangles of one kind, for the scale. */
static int largest(const rects *r, int run)
{
  int max = 1;
  for (size_t i = 0; i < r->n; i++)
    if (r->v[i].run == run && r->v[i].amount > max)
      max = r->v[i].amount;
  return max;
}

/* A row spans [row, row + 1) on a reversed y axis; bands stand on the
 * row's base line at row + 0.9. Held units take up to 0.8 of the row,
 * waiting jobs up to 0.25, each scaled by its largest value in the chart. */
static void write_rect(FILE *out, const morph__rows *rows, const rect *x, int max_run,
                       int max_wait)
{
  char label[64];
  double h = x->run ? 0.8 * x->amount / max_run : 0.25 * x->amount / max_wait;
  double base = (double)x->row + 0.9;
  morph__report_row_label(rows, x->row, label, sizeof label);
  fprintf(out, "%zu,%s,%.3f,%.3f,%.4f,%.4f,%s,%d\n", x->row, label, x->t0, x->t1, base - h, base,
          x->run ? "run" : "wait", x->amount);
}

int morph_report_write_gantt_csv(const morph_report *rep, FILE *out)
{
  morph__rows rows;
  rects r = {0};
  morph_report_totals t;
  morph_report_totals_get(rep, &t);
  int rc = morph__report_rows(rep, &rows);
  for (size_t row = 0; rc == MORPH_OK && row < rows.nrows; row++)
    rc = row_rects(&rows, row, t.first_submit, &r);
  if (rc == MORPH_OK) {
    int max_run = largest(&r, 1), max_wait = largest(&r, 0);
    fprintf(out, "row,label,t0,t1,y0,y1,phase,amount\n");
    for (size_t i = 0; i < r.n; i++)
      write_rect(out, &rows, &r.v[i], max_run, max_wait);
    rc = ferror(out) ? MORPH_EIO : MORPH_OK;
  }
  free(r.v);
  morph__report_rows_free(&rows);
  return rc;
}

/* Mean waiting and execution time of a row's completed jobs. */
static void row_means(const morph__rows *rows, size_t row, size_t *done, double *wait,
                      double *exec)
{
  size_t first = row * rows->per_row, last = first + rows->per_row;
  *done = 0, *wait = *exec = 0;
  for (size_t i = first; i < last && i < rows->njobs; i++) {
    const morph__rjob *j = rows->jobs[i];
    if (j->state != MORPH_JOB_COMPLETED)
      continue;
    (*done)++;
    *wait += j->start - j->submit;
    *exec += j->end - j->start;
  }
  if (*done)
    *wait /= (double)*done, *exec /= (double)*done;
}

int morph_report_write_jobbars_csv(const morph_report *rep, FILE *out)
{
  morph__rows rows;
  int rc = morph__report_rows(rep, &rows);
  if (rc != MORPH_OK)
    return rc;
  fprintf(out, "row,label,completed,wait,exec\n");
  for (size_t row = 0; row < rows.nrows; row++) {
    char label[64];
    size_t done;
    double wait, exec;
    row_means(&rows, row, &done, &wait, &exec);
    morph__report_row_label(&rows, row, label, sizeof label);
    fprintf(out, "%zu,%s,%zu,%.3f,%.3f\n", row, label, done, wait, exec);
  }
  morph__report_rows_free(&rows);
  return ferror(out) ? MORPH_EIO : MORPH_OK;
}
