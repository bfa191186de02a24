/* `morph sim limits`: min / max / preferred sizes from measured times with
 * the gain-difference heuristic of paper 000 section 5.3. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_tool.h"

static void limits_usage(FILE *out)
{
  fprintf(out, "usage: morph sim limits [--threshold PCT] SIZE:SECONDS ...\n"
               "       morph sim limits [--threshold PCT] --app NAME\n"
               "Prints the gain difference s(n) = (t(prev) - t(n)) / t(first) * 100 of each\n"
               "size and the lower limit, preferred size and upper limit it gives (paper 000,\n"
               "section 5.3). Sizes must increase (doubling in the paper).\n"
               "\n"
               "  -t, --threshold PCT   the gain below which a size is not worth it (10)\n"
               "  -a, --app NAME        the sizes and times of a model application\n"
               "  -h, --help            this text\n");
}

static int parse_points(int argc, char **argv, int *size, double *t)
{
  int n = 0;
  for (int i = 0; i < argc; i++, n++) {
    char end;
    if (n >= MORPH_MODEL_TABLE_MAX || sscanf(argv[i], "%d:%lf%c", &size[n], &t[n], &end) != 2) {
      fprintf(stderr, "morph sim limits: '%s' is not SIZE:SECONDS (at most 16)\n", argv[i]);
      return -1;
    }
  }
  return n;
}

static int app_points(const char *name, int *size, double *t)
{
  morph_app_info info;
  if (morph_app_lookup(name, &info) != MORPH_OK || info.model.type != MORPH_MODEL_TABLE) {
    fprintf(stderr, "morph sim limits: no measured table for application '%s'\n", name);
    return -1;
  }
  for (int i = 0; i < info.model.table_len; i++) {
    size[i] = info.model.table_size[i];
    t[i] = info.model.table_time[i];
  }
  return info.model.table_len;
}

int morph__tool_limits(int argc, char **argv)
{
  /* getopt's messages begin with argv[0]: the command as typed. */
  argv[0] = (char *)"morph sim limits";
  static const struct option opts[] = {{"threshold", required_argument, NULL, 't'},
                                       {"app", required_argument, NULL, 'a'},
                                       {"help", no_argument, NULL, 'h'},
                                       {NULL, 0, NULL, 0}};
  double threshold = 10.0, t[MORPH_MODEL_TABLE_MAX], gain[MORPH_MODEL_TABLE_MAX];
  int size[MORPH_MODEL_TABLE_MAX], c, n = -1;
  const char *app = NULL;
  while ((c = getopt_long(argc, argv, "t:a:h", opts, NULL)) != -1) {
    if (c == 't')
      threshold = atof(optarg);
    else if (c == 'a')
      app = optarg;
    else
      return limits_usage(c == 'h' ? stdout : stderr), c == 'h' ? 0 : 2;
  }
  n = app ? app_points(app, size, t) : parse_points(argc - optind, argv + optind, size, t);
  int min, max, pref;
  if (n < 1 || morph_gain_limits(size, t, n, threshold, &min, &max, &pref, gain) != MORPH_OK) {
    if (n >= 0)
      fprintf(stderr, "morph sim limits: need increasing sizes and positive times\n");
    return 2;
  }
  printf("size,seconds,gain_pct\n");
  for (int i = 0; i < n; i++)
    printf("%d,%.3f,%.2f\n", size[i], t[i], gain[i]);
  printf("lower=%d preferred=%d upper=%d threshold=%.1f\n", min, pref, max, threshold);
  return 0;
}
