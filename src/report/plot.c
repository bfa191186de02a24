/* CSV files, a gnuplot script and its PNG and SVG plots. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "internal.h"

typedef int (*writer)(const morph_report *, FILE *);

static int write_file(const char *dir, const char *prefix, const char *what, writer fn,
                      const morph_report *rep)
{
  char path[4096];
  snprintf(path, sizeof path, "%s/%s-%s.csv", dir, prefix, what);
  FILE *f = fopen(path, "w");
  if (!f)
    return MORPH_EIO;
  int rc = fn(rep, f);
  if (fclose(f) != 0 && !rc)
    rc = MORPH_EIO;
  return rc;
}

/* Every plot is drawn once per format inside gnuplot's own loop, which
 * keeps the script short; it is kept next to the plots so that a user can
 * restyle them. */
static void set_terminal(FILE *f, int width, int height)
{
  fprintf(f, "  if (fmt eq \"png\") { set terminal pngcairo size %d,%d noenhanced } "
             "else { set terminal svg size %d,%d noenhanced }\n",
          width, height, width, height);
}

static void plot_timeline(FILE *f, const morph_report *rep, const char *prefix)
{
  const char *u = rep->unit_name;
  set_terminal(f, 1000, 500);
  fprintf(f, "  set output '%s-timeline.'.fmt\n  set title '%s: allocated %s and running jobs'\n"
             "  set xlabel 'time (s)'\n  set ylabel 'allocated %s'\n  set y2label 'running jobs'\n"
             "  set yrange [0:%d]\n  set y2range [0:*]\n  set ytics nomirror\n  set y2tics\n"
             "  plot '%s-timeline.csv' skip 1 using 1:2 with fillsteps fs solid 0.3 title "
             "'allocated %s', '' skip 1 using 1:3 axes x1y2 with steps lw 2 title 'running jobs'\n"
             "  unset y2label\n  unset y2tics\n  set ytics mirror\n",
          prefix, rep->title, u, u, rep->cfg.units, prefix, u);
}

static void plot_completed(FILE *f, const morph_report *rep, const char *prefix)
{
  fprintf(f, "  set yrange [0:*]\n"
             "  set output '%s-completed.'.fmt\n  set title '%s: completed jobs per %.0f s'\n"
             "  set ylabel 'completed jobs'\n  set style fill solid 0.5\n"
             "  plot '%s-completed.csv' skip 1 using 1:2 with boxes title 'completed'\n",
          prefix, rep->title, rep->cfg.interval, prefix);
}

/* Stacked bars: the whole bar is the completion time, its lower part the
 * wait. Labels name the job, or the group of jobs a bar stands for. */
static void plot_jobs(FILE *f, const morph_report *rep, const morph__rows *rows,
                      const char *prefix)
{
  char what[64] = "per job";
  if (rows->per_row > 1)
    snprintf(what, sizeof what, "mean per group of %zu jobs", rows->per_row);
  fprintf(f, "  set output '%s-jobs.'.fmt\n  set title '%s: waiting and execution time, %s'\n"
             "  set xlabel 'job (submission order)'\n  set ylabel 'seconds'\n"
             "  set xtics rotate by -60 font ',8'\n  set boxwidth 0.8 relative\n"
             "  set style fill solid 0.8 border -1\n  set xrange [-0.6:%zu-0.4]\n"
             "  plot '%s-jobbars.csv' skip 1 using 0:($4+$5):xtic(2) with boxes "
             "lc rgb '#4c72b0' title 'execution', '' skip 1 using 0:4 with boxes "
             "lc rgb '#dd8452' title 'waiting'\n"
             "  set xtics norotate font ''\n  set xrange [*:*]\n",
          prefix, rep->title, what, rows->nrows, prefix);
}

static void gantt_ytics(FILE *f, const morph__rows *rows)
{
  fprintf(f, "  set ytics (");
  for (size_t r = 0; r < rows->nrows; r++) {
    char label[64];
    morph__report_row_label(rows, r, label, sizeof label);
    fprintf(f, "%s'%s' %.1f", r ? ", " : "", label, (double)r + 0.5);
  }
  fprintf(f, ") font ',8'\n");
}

/* One row per job (or group of jobs), time across: a grey band while
 * waiting, then a band whose height is the size, so every grow and shrink
 * shows as a step. boxxyerror draws the rectangles of the CSV as given;
 * opaque fills with a border of the same colour, so that neighbouring
 * rectangles of one band leave no hairline gaps. */
static void plot_gantt(FILE *f, const morph_report *rep, const morph__rows *rows,
                       const char *prefix)
{
  const char *who = rows->per_row > 1 ? "groups of jobs (sum)" : "jobs";
  int row_px = rows->nrows ? 600 / (int)rows->nrows : 28;
  row_px = row_px < 12 ? 12 : row_px > 28 ? 28 : row_px;
  set_terminal(f, 1000, 160 + row_px * (int)rows->nrows);
  fprintf(f, "  set output '%s-gantt.'.fmt\n"
             "  set title '%s: %s over time (band height: %s held; grey: waiting)'\n"
             "  set xlabel 'time since the first submission (s)'\n  set ylabel ''\n"
             "  set yrange [%zu:0]\n  set xrange [0:*]\n  set grid noytics\n",
          prefix, rep->title, who, rep->unit_name, rows->nrows);
  gantt_ytics(f, rows);
  fprintf(f, "  plot '%s-gantt.csv' skip 1 using (($3+$4)/2):(strcol(7) eq 'wait' ? ($5+$6)/2 "
             ": NaN):3:4:5:6 with boxxyerror fs solid 1 border lc rgb '#c8c8c8' "
             "lc rgb '#c8c8c8' title 'waiting', '' skip 1 using (($3+$4)/2):(strcol(7) eq 'run' ? "
             "($5+$6)/2 : NaN):3:4:5:6 with boxxyerror fs solid 1 border lc rgb '#4c72b0' "
             "lc rgb '#4c72b0' title 'running'\n",
          prefix);
}

static int write_script(FILE *f, const morph_report *rep, const char *prefix)
{
  morph__rows rows;
  if (morph__report_rows(rep, &rows) != MORPH_OK)
    return MORPH_ENOMEM;
  /* Each format starts from gnuplot's defaults: plots change axes. */
  fprintf(f, "# Plots of a morph report; run: gnuplot %s.gp\n"
             "do for [fmt in \"png svg\"] {\n  reset\n  set datafile separator ','\n"
             "  set key outside top center horizontal\n  set grid\n",
          prefix);
  plot_timeline(f, rep, prefix);
  plot_completed(f, rep, prefix);
  plot_jobs(f, rep, &rows, prefix);
  plot_gantt(f, rep, &rows, prefix);
  fprintf(f, "}\n");
  morph__report_rows_free(&rows);
  return MORPH_OK;
}

static int run_gnuplot(const char *dir, const char *prefix)
{
  char cmd[8192];
  snprintf(cmd, sizeof cmd, "cd '%s' && gnuplot '%s.gp' >/dev/null 2>&1", dir, prefix);
  int st = system(cmd);
  return st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0 ? MORPH_OK : MORPH_ENOSYS;
}

int morph_report_plot(const morph_report *rep, const char *dir, const char *prefix)
{
  if (!rep || !dir || !prefix || strchr(dir, '\'') || strchr(prefix, '\''))
    return MORPH_EINVAL;
  morph_report *w = (morph_report *)rep; /* only errmsg is written */
  int rc = write_file(dir, prefix, "jobs", morph_report_write_jobs_csv, rep);
  if (!rc)
    rc = write_file(dir, prefix, "summary", morph_report_write_summary_csv, rep);
  if (!rc)
    rc = write_file(dir, prefix, "timeline", morph_report_write_timeline_csv, rep);
  if (!rc)
    rc = write_file(dir, prefix, "completed", morph__report_write_completed, rep);
  if (!rc)
    rc = write_file(dir, prefix, "gantt", morph_report_write_gantt_csv, rep);
  if (!rc)
    rc = write_file(dir, prefix, "jobbars", morph_report_write_jobbars_csv, rep);
  char path[4096];
  snprintf(path, sizeof path, "%s/%s.gp", dir, prefix);
  FILE *f = rc ? NULL : fopen(path, "w");
  if (!f) {
    snprintf(w->errmsg, sizeof w->errmsg, "%s: cannot write: %s", dir, strerror(errno));
    return MORPH_EIO;
  }
  rc = write_script(f, rep, prefix);
  if (fclose(f) != 0 || rc != MORPH_OK) {
    snprintf(w->errmsg, sizeof w->errmsg, "%.200s: cannot write the script", path);
    return rc ? rc : MORPH_EIO;
  }
  rc = run_gnuplot(dir, prefix);
  if (rc)
    snprintf(w->errmsg, sizeof w->errmsg, "gnuplot failed or is missing (script: %.200s)", path);
  return rc;
}
