/*
 * morph workload lublin: writes an SWF trace drawn from the
 * Lublin-Feitelson model (docs/workload.md), for held-out evaluations
 * (bench/policies.sh): `morph sim --swf` reads it back.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workload_tool.h"

static const char lublin_usage[] =
  "usage: morph workload lublin [options]\n"
  "Writes an SWF v2.2 trace drawn from the Lublin-Feitelson model (JPDC 2003):\n"
  "job sizes, run times correlated with size, a daily cycle of arrivals.\n"
  "  --shape S        ctc (430 nodes, 18 h), kth (100 nodes, 60 h), lublin (128) (lublin)\n"
  "  --nodes N        machine size, overrides the shape's\n"
  "  --jobs N         number of jobs (1000)\n"
  "  --load L         offered load to reach by scaling arrival gaps (model's own rate)\n"
  "  --seed S         same seed, same trace (1)\n"
  "  --batch-only     leave out the model's interactive jobs\n"
  "  -o, --out FILE   the trace (default: standard output)\n"
  "  -h, --help\n";

static int number(const char *arg, double *v)
{
  char *end;
  *v = strtod(arg, &end);
  if (end == arg || *end || !(*v >= 0)) {
    fprintf(stderr, "morph workload lublin: '%s' is not a number >= 0\n", arg);
    return -1;
  }
  return 0;
}

static int lublin_option(int c, const char *arg, morph_lublin_options *o, const char **out)
{
  double v = 0;
  if (c == 'S')
    return morph_lublin_options_shape(o, arg) == MORPH_OK
               ? 0
               : (fprintf(stderr, "morph workload lublin: unknown shape '%s' (ctc, kth, "
                                  "lublin)\n", arg), -1);
  if (c == 'o')
    return *out = arg, 0;
  if (c == 'b')
    return o->interactive = 0, 0;
  if (number(arg, &v))
    return -1;
  if (c == 'n')
    o->nodes = (int)v;
  else if (c == 'j')
    o->njobs = (size_t)v;
  else if (c == 'l')
    o->load = v;
  else
    o->seed = (uint64_t)v;
  return 0;
}

int wl_lublin(int argc, char **argv)
{
  /* getopt's messages begin with argv[0]: the command as typed. */
  argv[0] = (char *)"morph workload lublin";
  static const struct option opts[] = {
    {"shape", required_argument, NULL, 'S'}, {"nodes", required_argument, NULL, 'n'},
    {"jobs", required_argument, NULL, 'j'},  {"load", required_argument, NULL, 'l'},
    {"seed", required_argument, NULL, 's'},  {"batch-only", no_argument, NULL, 'b'},
    {"out", required_argument, NULL, 'o'},   {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0}};
  morph_lublin_options o;
  morph_lublin_options_init(&o);
  const char *out = NULL;
  int c;
  optind = 1;
  while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
    if (c == 'h')
      return fputs(lublin_usage, stdout), 0;
    if (c == '?' || lublin_option(c, optarg, &o, &out))
      return fputs("(see morph workload lublin --help)\n", stderr), 2;
  }
  morph_workload *wl;
  if (morph_workload_create(&wl) != MORPH_OK)
    return 1;
  int rc = morph_workload_generate_lublin(wl, &o);
  FILE *f = rc || !out ? stdout : fopen(out, "w");
  if (rc)
    fprintf(stderr, "morph workload lublin: %s\n", morph_workload_errmsg(wl));
  else if (!f)
    rc = 1, perror(out);
  else {
    char note[160];
    double load = morph_workload_offered_load(wl, o.nodes);
    snprintf(note, sizeof note, "Lublin-Feitelson model, %d nodes, seed %llu, offered load %.3f",
             o.nodes, (unsigned long long)o.seed, load);
    rc = morph_workload_write_swf(wl, f, note);
    fprintf(stderr, "lublin: %zu jobs on %d nodes, offered load %.3f, submits over %.0f s\n",
            wl->njobs, o.nodes, load, wl->njobs ? wl->jobs[wl->njobs - 1].submit : 0.0);
  }
  if (f && f != stdout && fclose(f))
    rc = 1;
  morph_workload_destroy(wl);
  return rc ? 1 : 0;
}
