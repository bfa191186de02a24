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

/* One plot per file format; gnuplot's own loop keeps the script short. The
 * script is kept next to the plots so that a user can restyle them. */
static void write_script(FILE *f, const morph_report *rep, const char *prefix)
{
  const char *u = rep->unit_name;
  fprintf(f, "# Plots of a morph report; run: gnuplot %s.gp\n"
             "set datafile separator ','\nset key outside top center horizontal\n"
             "set grid\n",
          prefix);
  fprintf(f, "do for [fmt in \"png svg\"] {\n"
             "  if (fmt eq \"png\") { set terminal pngcairo size 1000,500 noenhanced } "
             "else { set terminal svg size 1000,500 noenhanced }\n");
  fprintf(f, "  set output '%s-timeline.'.fmt\n  set title '%s: allocated %s and running jobs'\n"
             "  set xlabel 'time (s)'\n  set ylabel 'allocated %s'\n  set y2label 'running jobs'\n"
             "  set yrange [0:%d]\n  set y2range [0:*]\n  set ytics nomirror\n  set y2tics\n"
             "  plot '%s-timeline.csv' skip 1 using 1:2 with fillsteps fs solid 0.3 title "
             "'allocated %s', '' skip 1 using 1:3 axes x1y2 with steps lw 2 title 'running jobs'\n",
          prefix, rep->title, u, u, rep->cfg.units, prefix, u);
  fprintf(f, "  unset y2label\n  unset y2tics\n  set ytics mirror\n  set yrange [0:*]\n"
             "  set output '%s-completed.'.fmt\n  set title '%s: completed jobs per %.0f s'\n"
             "  set ylabel 'completed jobs'\n  set style fill solid 0.5\n"
             "  plot '%s-completed.csv' skip 1 using 1:2 with boxes title 'completed'\n",
          prefix, rep->title, rep->cfg.interval, prefix);
  fprintf(f, "  set output '%s-jobs.'.fmt\n  set title '%s: waiting and execution time per job'\n"
             "  set xlabel 'job (submission order)'\n  set ylabel 'seconds'\n"
             "  plot '%s-jobs.csv' skip 1 using 0:8 with points pt 7 ps 0.4 title 'waiting', "
             "'' skip 1 using 0:9 with points pt 5 ps 0.4 title 'execution'\n}\n",
          prefix, rep->title, prefix);
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
  char path[4096];
  snprintf(path, sizeof path, "%s/%s.gp", dir, prefix);
  FILE *f = rc ? NULL : fopen(path, "w");
  if (!f) {
    snprintf(w->errmsg, sizeof w->errmsg, "%s: cannot write: %s", dir, strerror(errno));
    return MORPH_EIO;
  }
  write_script(f, rep, prefix);
  fclose(f);
  rc = run_gnuplot(dir, prefix);
  if (rc)
    snprintf(w->errmsg, sizeof w->errmsg, "gnuplot failed or is missing (script: %.200s)", path);
  return rc;
}
