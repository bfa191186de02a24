/* A communication matrix as a heatmap: a gnuplot script with the data
 * inline, kept next to the PNG so that a user can restyle it. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "morph/prof.h"

static int script_path(const char *png, char *gp, size_t size)
{
  size_t len = strlen(png);
  if (len < 5 || strcmp(png + len - 4, ".png") || len + 1 > size)
    return MORPH_EINVAL;
  memcpy(gp, png, len - 4);
  strcpy(gp + len - 4, ".gp");
  return MORPH_OK;
}

/* Empty cells are left white (NaN) so that a sparse pattern stands out,
 * and the darker a cell the more traffic, as in paper 004's figure 1; the
 * colour scale is logarithmic because volumes span decades. */
static void write_script(FILE *f, const morph_comm_matrix *m, const uint64_t *a, const char *png,
                         const char *title, const char *unit)
{
  /* Without any traffic a log scale has nothing to show: plain zeros. */
  int empty = 1, step = m->n > 16 ? (m->n + 15) / 16 : 1; /* at most ~16 labelled ranks */
  for (size_t i = 0; empty && i < (size_t)m->n * (size_t)m->n; i++)
    empty = a[i] == 0;
  fprintf(f, "# Heatmap of a morph-prof communication matrix; run: gnuplot <this file>\n"
             "set terminal pngcairo size 900,800 noenhanced\nset output '%s'\n"
             "set title '%s'\nset xlabel 'receiving rank'\nset ylabel 'sending rank'\n"
             "set cblabel '%s'\n%sset palette defined (0 '#fff7bc', 1 '#fe9929', 2 '#cc4c02', 3 '#662506')\n"
             "set rmargin 12\n"
             "set xrange [-0.5:%d.5]\nset yrange [%d.5:-0.5]\nset size ratio -1\n"
             "set xtics %d out\nset ytics %d out\nset datafile missing 'NaN'\n$m << EOD\n",
          png, title, unit, empty ? "" : "set logscale cb\n", m->n - 1, m->n - 1, step, step);
  for (int i = 0; i < m->n; i++) {
    for (int j = 0; j < m->n; j++) {
      uint64_t v = a[(size_t)i * m->n + j];
      if (v || empty)
        fprintf(f, "%s%" PRIu64, j ? " " : "", v);
      else
        fprintf(f, "%sNaN", j ? " " : "");
    }
    fputc('\n', f);
  }
  fprintf(f, "EOD\nplot $m matrix with image notitle\n");
}

int morph_comm_matrix_plot(morph_comm_matrix *m, const char *png_path, morph_cm_weight w,
                           const char *title)
{
  char gp[4096], cmd[8300];
  if (!m || !png_path || m->n < 1 || strchr(png_path, '\'') ||
      script_path(png_path, gp, sizeof gp) != MORPH_OK) {
    if (m)
      snprintf(m->errmsg, sizeof m->errmsg, "plot: need a non-empty matrix and a .png path");
    return MORPH_EINVAL;
  }
  FILE *f = fopen(gp, "w");
  if (!f) {
    snprintf(m->errmsg, sizeof m->errmsg, "%.400s: cannot write: %s", gp, strerror(errno));
    return MORPH_EIO;
  }
  const char *t = title && !strchr(title, '\'') ? title : "communication matrix";
  write_script(f, m, w == MORPH_CM_MSGS ? m->msgs : m->bytes, png_path, t,
               w == MORPH_CM_MSGS ? "messages" : "bytes");
  if (fclose(f) != 0) {
    snprintf(m->errmsg, sizeof m->errmsg, "%.400s: write failed", gp);
    return MORPH_EIO;
  }
  snprintf(cmd, sizeof cmd, "gnuplot '%s' >/dev/null 2>&1", gp);
  int st = system(cmd);
  if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
    snprintf(m->errmsg, sizeof m->errmsg, "gnuplot failed on %.400s (is gnuplot installed?)", gp);
    return MORPH_ENOSYS;
  }
  m->errmsg[0] = '\0';
  return MORPH_OK;
}
