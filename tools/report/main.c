/*
 * morph report: reads morphd's journal (no daemon needed) and prints per
 * job waiting, execution and completion time and size history, then the
 * totals of morph_report (the simulator's definitions); writes CSV files
 * and gnuplot PNG/SVG plots.
 *
 * Energy is per node (idle 100 W, loaded 340 W by default, paper 000
 * appendix B); a slot counts for 1/slots-per-node of its node, so a node
 * half loaded draws halfway between the two.
 *
 * A Slurm backend's journal is reported in nodes (morphd's pool and the
 * policy count whole nodes there): sizes, timeline and plots say "nodes";
 * the size history (-sizes.csv, "size over time") stays in processes, as
 * the jobs ran.
 */
#include <getopt.h>
#include <limits.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "morph/error.h"
#include "rms/client.h"
#include "rms/history.h"

static const char usage_text[] =
  "usage: morph report [options]\n"
  "\n"
  "  -d, --dir DIR          morphd's folder ($MORPH_DIR; default: your own morphd's\n"
  "                         if it runs, else the shared /var/lib/morph)\n"
  "      --journal FILE     the journal (default DIR/journal.db)\n"
  "  -o, --out DIR          CSV files and plots go here (default DIR/report)\n"
  "      --prefix NAME      file name prefix (default morphd)\n"
  "      --slots N          pool size (default: as morphd recorded it; nodes under\n"
  "                         Slurm, where every size is in nodes)\n"
  "      --slots-per-node N slots of one node, for energy (default: all the pool;\n"
  "                         1 under Slurm)\n"
  "      --idle-w W         watts of an idle node (default 100)\n"
  "      --loaded-w W       watts of a loaded node (default 340)\n"
  "      --interval S       seconds per bar of completed jobs (default 60)\n"
  "      --no-plots         CSV only\n"
  "  -q, --quiet            totals only, no per-job lines\n"
  "  -h, --help             this text\n";

typedef struct rep_opts {
  const char *dir, *journal, *out, *prefix;
  int slots, per_node, plots, quiet;
  double idle_w, loaded_w, interval;
} rep_opts;

enum { OPT_JOURNAL = 256, OPT_PREFIX, OPT_SLOTS, OPT_PERNODE, OPT_IDLE, OPT_LOADED, OPT_INTERVAL,
       OPT_NOPLOTS };

static const struct option long_opts[] = {
  {"dir", required_argument, NULL, 'd'},       {"journal", required_argument, NULL, OPT_JOURNAL},
  {"out", required_argument, NULL, 'o'},       {"prefix", required_argument, NULL, OPT_PREFIX},
  {"slots", required_argument, NULL, OPT_SLOTS}, {"slots-per-node", required_argument, NULL, OPT_PERNODE},
  {"idle-w", required_argument, NULL, OPT_IDLE}, {"loaded-w", required_argument, NULL, OPT_LOADED},
  {"interval", required_argument, NULL, OPT_INTERVAL}, {"no-plots", no_argument, NULL, OPT_NOPLOTS},
  {"quiet", no_argument, NULL, 'q'},           {"help", no_argument, NULL, 'h'},
  {NULL, 0, NULL, 0},
};

static int number(const char *arg, double *out)
{
  char *end;
  double v = strtod(arg, &end);
  if (!*arg || *end || !(v >= 0)) {
    fprintf(stderr, "morph report: '%s' is not a valid number\n", arg);
    return 2;
  }
  *out = v;
  return 0;
}

static int option(rep_opts *o, int c, const char *arg)
{
  double v = 0;
  switch (c) {
  case 'd': o->dir = arg; return 0;
  case OPT_JOURNAL: o->journal = arg; return 0;
  case 'o': o->out = arg; return 0;
  case OPT_PREFIX: o->prefix = arg; return 0;
  case OPT_SLOTS: return number(arg, &v) ? 2 : (o->slots = (int)v, 0);
  case OPT_PERNODE: return number(arg, &v) || v < 1 ? 2 : (o->per_node = (int)v, 0);
  case OPT_IDLE: return number(arg, &o->idle_w);
  case OPT_LOADED: return number(arg, &o->loaded_w);
  case OPT_INTERVAL: return number(arg, &o->interval);
  case OPT_NOPLOTS: o->plots = 0; return 0;
  case 'q': o->quiet = 1; return 0;
  }
  fprintf(stderr, "(see morph report --help)\n");
  return 2;
}

/* Per-job lines from the jobs CSV of the report, as aligned columns. */
static void print_jobs(const morph_report *rep)
{
  char *buf = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&buf, &len);
  if (!m || morph_report_write_jobs_csv(rep, m) != MORPH_OK) {
    if (m)
      fclose(m);
    free(buf);
    return;
  }
  fclose(m);
  for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
    for (char *f = strtok_r(line, ",", &line); f; f = strtok_r(NULL, ",", &line))
      printf("%-10.10s ", f);
    putchar('\n');
  }
  free(buf);
}

static int open_journal(const rep_opts *o, morph__cli *paths, morph__journal **j)
{
  char path[PATH_MAX + 32], err[512];
  if (o->journal)
    snprintf(path, sizeof path, "%s", o->journal);
  else
    snprintf(path, sizeof path, "%s/journal.db", paths->dir);
  if (morph__journal_open(path, 1, j, err, sizeof err) != MORPH_OK) {
    fprintf(stderr, "morph report: cannot read the journal %s: %s\n", path, err);
    return 1;
  }
  return 0;
}

static int build(const rep_opts *o, morph__journal *j, morph_report **rep, double *t0)
{
  morph_report_config cfg;
  morph_report_config_init(&cfg);
  cfg.units = o->slots ? o->slots : morph__history_units(j);
  int slurm = morph__history_is_slurm(j);
  cfg.unit_name = morph__history_unit_name(j); /* nodes under Slurm */
  int per_node = o->per_node ? o->per_node : slurm ? 1 : cfg.units;
  cfg.idle_w = o->idle_w / (per_node > 0 ? per_node : 1);
  cfg.loaded_w = o->loaded_w / (per_node > 0 ? per_node : 1);
  cfg.interval = o->interval;
  cfg.title = slurm ? "morphd on Slurm" : "morphd";
  if (cfg.units <= 0)
    return fprintf(stderr, "morph report: the journal does not say the pool size (--slots)\n"), 1;
  if (morph_report_create(&cfg, rep) != MORPH_OK)
    return fprintf(stderr, "morph report: bad configuration\n"), 1;
  char err[512];
  if (morph__history_report(j, *rep, t0, err, sizeof err) != MORPH_OK)
    return fprintf(stderr, "morph report: %s\n", err), 1;
  return 0;
}

/* <out>/<prefix>-sizes.csv: every job's size over time. */
static int write_sizes(const rep_opts *o, morph__journal *j, double t0, const char *out)
{
  char path[PATH_MAX + 64];
  snprintf(path, sizeof path, "%s/%s-sizes.csv", out, o->prefix);
  FILE *f = fopen(path, "w");
  int rc = f ? morph__history_sizes(j, t0, NULL, f) : MORPH_EIO;
  if (f && fclose(f) != 0)
    rc = MORPH_EIO;
  if (rc != MORPH_OK)
    fprintf(stderr, "morph report: cannot write %s\n", path);
  return rc == MORPH_OK ? 0 : 1;
}

static int write_files(const rep_opts *o, const morph_report *rep, morph__journal *j, double t0,
                       const char *dir)
{
  char out[PATH_MAX + 16];
  snprintf(out, sizeof out, "%s", o->out ? o->out : dir);
  if (!o->out)
    strncat(out, "/report", sizeof out - strlen(out) - 1);
  mkdir(out, 0755);
  if (write_sizes(o, j, t0, out))
    return 1;
  int rc = o->plots ? morph_report_plot(rep, out, o->prefix) : MORPH_OK;
  if (rc == MORPH_ENOSYS)
    fprintf(stderr, "morph report: gnuplot is missing or failed; CSV files only\n");
  else if (rc != MORPH_OK)
    return fprintf(stderr, "morph report: %s\n", morph_report_errmsg(rep)), 1;
  if (!o->plots) {
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s-jobs.csv", out, o->prefix);
    FILE *f = fopen(path, "w");
    if (!f || morph_report_write_jobs_csv(rep, f) != MORPH_OK)
      return fprintf(stderr, "morph report: cannot write %s\n", path), f && fclose(f), 1;
    fclose(f);
  }
  printf("files: %s/%s-*.csv (jobs, sizes, summary, timeline, completed)%s\n", out, o->prefix,
         o->plots ? " and plots (.png, .svg)" : "");
  return 0;
}

int main(int argc, char **argv)
{
  /* getopt's messages begin with argv[0]: the command as typed, not our path. */
  argv[0] = (char *)"morph report";
  rep_opts o = {.prefix = "morphd", .plots = 1, .idle_w = 100, .loaded_w = 340, .interval = 60};
  int c;
  while ((c = getopt_long(argc, argv, "d:o:qh", long_opts, NULL)) != -1) {
    if (c == 'h')
      return fputs(usage_text, stdout), 0;
    if (c == '?' || option(&o, c, optarg))
      return 2;
  }
  morph__cli paths;
  morph__journal *j = NULL;
  morph_report *rep = NULL;
  if (morph__cli_paths(&paths, o.dir, NULL) != MORPH_OK || open_journal(&o, &paths, &j))
    return 1;
  double t0 = 0;
  int rc = build(&o, j, &rep, &t0);
  if (rc == 0 && !o.quiet) {
    print_jobs(rep);
    printf("\nsize over time (processes@seconds from the first submission; 0: ended)\n");
    morph__history_sizes(j, t0, stdout, NULL);
    printf("\nfailed resizes (the job kept its size)\n");
    morph__history_failures(j, t0, stdout);
    putchar('\n');
  }
  if (rc == 0) {
    morph_report_print(rep, stdout);
    rc = write_files(&o, rep, j, t0, paths.dir);
  }
  morph_report_destroy(rep);
  morph__journal_close(j);
  return rc;
}
