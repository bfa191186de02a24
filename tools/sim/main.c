/*
 * morph-sim: `morph sim [options] [WORKLOAD.json]` simulates a workload on
 * the shared policy engine and reports the metrics of morph/report.h;
 * `morph sim limits` derives malleability limits from measured times.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim_tool.h"




static void usage(FILE *out)
{
  fprintf(out,
          "usage: morph sim [options] [WORKLOAD.json]\n"
          "       morph sim limits --help\n"
          "Input (one of):\n"
          "  WORKLOAD.json           a JSON workload (docs/workload.md)\n"
          "  --swf FILE              a Standard Workload Format v2.2 trace\n"
          "  --generate N            N jobs from the generator (paper 000, section 5.4)\n"
          "Workload options:\n"
          "  --kind K                fixed|moldable|malleable|flexible: submission and\n"
          "                          malleability of generated / SWF jobs (fixed)\n"
          "  --malleable-share F     share of malleable jobs, 0..1 (from --kind)\n"
          "  --malleable-app APP     generator: only APP is malleable (Table 7)\n"
          "  --rest-fixed            SWF, --kind moldable|flexible: only the malleable share is\n"
          "                          submitted min-max, the other jobs stay rigid as traced\n"
          "  --seed S (1)  --interarrival SECONDS (10)\n"
          "  --max-size N            no job asks for or grows beyond N units, whatever the\n"
          "                          input: larger requests and limits are cut to N (none;\n"
          "                          paper 000 caps requests at 32 of 128 nodes)\n"
          "  --swf-units-per-node K (1)  --swf-limit N (all)\n"
          "  --inhibit S             every job's scheduling inhibitor, s (the model's)\n"
          "  --load L                scale arrival times to offered load L on -n nodes\n"
          "  --estimate-model MAX    requested times from Tsafrir's model of user estimates,\n"
          "                          MAX s the largest (replaces the trace's)\n"
          "  --save-workload FILE    write the workload used as JSON\n"
          "Simulation:\n"
          "  -n, --nodes N (128)     -p, --policy NAME (mdmr+easy)\n"
          "  --placement NAME        placement strategy: which nodes (firstfit; below)\n"
          "  --topology FILE  --faults FILE  --place-param KEY=VALUE: placement\n"
          "                          parameters (tofa, greedy, random; docs/topology.md)\n"
          "  -P, --param KEY=VALUE   policy engine parameter (sizes=factor by default)\n"
          "  -i, --interval S (10)   --expand-cost S (0.8)  --shrink-cost S (0.25)\n"
          "  --bandwidth B/s (1e10)  --reject-impossible (default: report and skip)\n"
          "  --queue-depth N         pending jobs the policy sees (500; 0: all)\n"
          "  --estimates E           requested (each job's requested time: estimate and\n"
          "                          limit; the default), exact (run times known, no limit),\n"
          "                          f=K (limit K x run time); docs/sim.md\n"
          "Output:\n"
          "  -o, --out DIR           CSV files and PNG/SVG plots in DIR\n"
          "  --name NAME             prefix of the files and plot title (sim)\n"
          "  --idle-w W (100)  --loaded-w W (340)  --bin SECONDS (60)\n"
          "  --csv                   one CSV line of totals\n"
          "  --csv-header            the same with its header line\n"
          "  --progress              progress on stderr   -q, --quiet\n"
          "  -h, --help              this text\n"
          "Policies (-p NAME: <start>, <resize> with fcfs starts, or <resize>+<start>):\n");
  for (int i = 0; i < morph_policy_count(); i++)
    fprintf(out, "  %-22s  %s\n", morph_policy_table_name(i), morph_policy_table_description(i));
  fprintf(out, "Placement strategies:\n");
  for (int i = 0; i < morph_place_count(); i++)
    fprintf(out, "  %-22s  %s\n", morph_place_table_name(i), morph_place_table_description(i));
}

enum { O_SWF = 256, O_GEN, O_KIND, O_SHARE, O_MAPP, O_SEED, O_IAT, O_MAXS, O_UPN, O_SLIM,
       O_SAVE, O_ECOST, O_SCOST, O_BW, O_REJ, O_NAME, O_IDLE, O_LOAD, O_BIN, O_CSV, O_CSVH,
       O_PROG, O_QD, O_PLACE, O_TOPO, O_FAULTS, O_PPARAM, O_INHIBIT,
       O_REST, O_LOADL, O_ESTMAX, O_EST };

static const struct option long_opts[] = {
  {"swf", required_argument, NULL, O_SWF}, {"generate", required_argument, NULL, O_GEN},
  {"kind", required_argument, NULL, O_KIND}, {"malleable-share", required_argument, NULL, O_SHARE},
  {"malleable-app", required_argument, NULL, O_MAPP}, {"seed", required_argument, NULL, O_SEED},
  {"interarrival", required_argument, NULL, O_IAT}, {"max-size", required_argument, NULL, O_MAXS},
  {"swf-units-per-node", required_argument, NULL, O_UPN},
  {"swf-limit", required_argument, NULL, O_SLIM}, {"save-workload", required_argument, NULL, O_SAVE},
  {"nodes", required_argument, NULL, 'n'}, {"policy", required_argument, NULL, 'p'},
  {"param", required_argument, NULL, 'P'}, {"interval", required_argument, NULL, 'i'},
  {"expand-cost", required_argument, NULL, O_ECOST}, {"shrink-cost", required_argument, NULL, O_SCOST},
  {"bandwidth", required_argument, NULL, O_BW}, {"reject-impossible", no_argument, NULL, O_REJ},
  {"out", required_argument, NULL, 'o'}, {"name", required_argument, NULL, O_NAME},
  {"idle-w", required_argument, NULL, O_IDLE}, {"loaded-w", required_argument, NULL, O_LOAD},
  {"bin", required_argument, NULL, O_BIN}, {"csv", no_argument, NULL, O_CSV},
  {"csv-header", no_argument, NULL, O_CSVH}, {"progress", no_argument, NULL, O_PROG},
  {"queue-depth", required_argument, NULL, O_QD}, {"placement", required_argument, NULL, O_PLACE},
  {"topology", required_argument, NULL, O_TOPO}, {"faults", required_argument, NULL, O_FAULTS},
  {"place-param", required_argument, NULL, O_PPARAM},
  {"inhibit", required_argument, NULL, O_INHIBIT}, {"rest-fixed", no_argument, NULL, O_REST},
  {"load", required_argument, NULL, O_LOADL}, {"estimate-model", required_argument, NULL, O_ESTMAX},
  {"estimates", required_argument, NULL, O_EST},
  {"quiet", no_argument, NULL, 'q'}, {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};

static void defaults(tool_opts *o)
{
  memset(o, 0, sizeof *o);
  morph_gen_options_init(&o->gen);
  morph_swf_options_init(&o->swfo);
  morph_sim_config_init(&o->sim);
  morph_report_config_init(&o->rep);
  o->share = -1;
  o->inhibit = -1;
  o->gen.max_size = 0; /* the catalog's sizes; --max-size applies to every input alike */
  o->name = "sim";
  o->kind = "fixed";
}

/* Numbers must be whole numbers: a typo must not become 0. Every option
 * is a count, a time or a rate, so negative values are refused, and the
 * ones stored in an int must fit one (a conversion out of range is
 * undefined behaviour). */
static int num(const char *s, double *v, int is_int)
{
  char *end;
  *v = strtod(s, &end);
  if (end == s || *end || !(*v >= 0) || *v > (is_int ? 2147483647.0 : 1e18)) {
    fprintf(stderr, "morph sim: '%s' is not a number in 0..%s\n", s, is_int ? "2^31-1" : "1e18");
    return -1;
  }
  return 0;
}

static int numeric(int c)
{
  return c == 'n' || c == 'i' || c == O_QD || c == O_INHIBIT || c == O_LOADL || c == O_ESTMAX ||
         (c >= O_GEN && c <= O_BIN && c != O_KIND && c != O_MAPP &&
                             c != O_SAVE && c != O_REJ && c != O_NAME);
}

static int opt_num(int c, const char *arg, tool_opts *o)
{
  double v;
  if (!numeric(c))
    return 1;
  if (num(arg, &v, c == O_MAXS || c == O_UPN || c == 'n' || c == O_QD))
    return -1;
  switch (c) {
  case O_GEN: o->generate = (size_t)v; break;
  case O_SHARE: o->share = v; break;
  case O_SEED: o->gen.seed = o->swfo.seed = (uint64_t)v; break;
  case O_IAT: o->gen.mean_interarrival = v; break;
  case O_MAXS: o->max_size = (int)v; break;
  case O_UPN: o->swfo.units_per_node = (int)v; break;
  case O_SLIM: o->swfo.limit = (long)v; break;
  case 'n': o->sim.nodes = (int)v; break;
  case 'i': o->sim.interval = v; break;
  case O_ECOST: o->sim.expand_cost = v; break;
  case O_SCOST: o->sim.shrink_cost = v; break;
  case O_BW: o->sim.bandwidth = v; break;
  case O_IDLE: o->rep.idle_w = v; break;
  case O_LOAD: o->rep.loaded_w = v; break;
  case O_BIN: o->rep.interval = v; break;
  case O_QD: o->sim.queue_depth = (int)v; break;
  case O_INHIBIT: o->inhibit = v; break;
  case O_LOADL: o->load = v; break;
  case O_ESTMAX: o->estimate_max = v; break;
  default: return 1;
  }
  return 0;
}

static int opt_param(const char *kv, tool_opts *o)
{
  char key[64];
  const char *eq = strchr(kv, '=');
  if (!eq || eq - kv >= (long)sizeof key) {
    fprintf(stderr, "morph sim: --param wants KEY=VALUE, got '%s'\n", kv);
    return -1;
  }
  snprintf(key, sizeof key, "%.*s", (int)(eq - kv), kv);
  if (morph_policy_params_set(&o->sim.params, key, eq + 1) != MORPH_OK) {
    fprintf(stderr, "morph sim: bad policy parameter '%s'\n", kv);
    return -1;
  }
  return 0;
}

/* A placement parameter KEY=VALUE (key given for --topology, --faults). */
static int opt_place_param(const char *key, const char *arg, tool_opts *o)
{
  const char *value = arg;
  if (o->nplace == PLACE_PARAMS_MAX) {
    fprintf(stderr, "morph sim: more than %d placement parameters\n", PLACE_PARAMS_MAX);
    return -1;
  }
  if (!key) {
    const char *eq = strchr(arg, '=');
    if (!eq || eq - arg >= (long)sizeof o->place_keys[0]) {
      fprintf(stderr, "morph sim: --place-param wants KEY=VALUE, got '%s'\n", arg);
      return -1;
    }
    snprintf(o->place_keys[o->nplace], sizeof o->place_keys[0], "%.*s", (int)(eq - arg), arg);
    key = o->place_keys[o->nplace], value = eq + 1;
  }
  o->place[o->nplace++] = (morph_place_param){key, value};
  o->sim.place_params = o->place, o->sim.nplace_params = o->nplace;
  return 0;
}

static int opt_other(int c, const char *arg, tool_opts *o)
{
  switch (c) {
  case O_SWF: o->swf = arg; return 0;
  case O_KIND: o->kind = arg; return 0;
  case O_MAPP: o->gen.malleable_app = arg; return 0;
  case O_SAVE: o->save = arg; return 0;
  case 'p': o->sim.policy = arg; return 0;
  case O_PLACE: o->sim.placement = arg; return 0;
  case O_TOPO: return opt_place_param("topology", arg, o);
  case O_FAULTS: return opt_place_param("faults", arg, o);
  case O_PPARAM: return opt_place_param(NULL, arg, o);
  case 'P': return opt_param(arg, o);
  case O_REJ: o->sim.impossible = MORPH_IMPOSSIBLE_REJECT; return 0;
  case 'o': o->out = arg; return 0;
  case O_NAME: o->name = arg; return 0;
  case O_CSVH: o->csv_header = 1; /* fall through */
  case O_CSV: o->csv = 1; return 0;
  case O_PROG: o->sim.progress = 1; return 0;
  case O_REST: o->swfo.rest_fixed = 1; return 0;
  case O_EST:
    if (morph_sim_estimates_parse(arg, &o->sim.estimates, &o->sim.estimate_factor) == MORPH_OK)
      return 0;
    fprintf(stderr, "morph sim: --estimates wants requested, exact or f=K (K >= 1), got '%s'\n",
            arg);
    return -1;
  case 'q': o->quiet = 1; return 0;
  }
  return -1;
}

static int parse(int argc, char **argv, tool_opts *o)
{
  int c;
  defaults(o);
  while ((c = getopt_long(argc, argv, "n:p:P:i:o:qh", long_opts, NULL)) != -1) {
    if (c == 'h')
      return usage(stdout), 1;
    int rc = opt_num(c, optarg, o);
    if (rc > 0)
      rc = opt_other(c, optarg, o);
    if (rc < 0) {
      fprintf(stderr, "see morph sim --help\n");
      return -1;
    }
  }
  if (optind < argc)
    o->json = argv[optind++];
  /* Long runs show where they are when someone watches. */
  if (!o->quiet && !o->csv && isatty(STDERR_FILENO))
    o->sim.progress = 1;
  if (optind < argc || !!o->json + !!o->swf + !!o->generate != 1) {
    fprintf(stderr, "morph sim: give exactly one of WORKLOAD.json, --swf or --generate\n");
    return -1;
  }
  return 0;
}

static int apply_kind(tool_opts *o)
{
  morph_job_kind k;
  if (morph_job_kind_parse(o->kind, &k) != MORPH_OK) {
    fprintf(stderr, "morph sim: unknown kind '%s'\n", o->kind);
    return -1;
  }
  double share = o->share >= 0 ? o->share : morph_job_kind_malleable(k) ? 1.0 : 0.0;
  o->gen.moldable = o->swfo.moldable = morph_job_kind_moldable(k);
  o->gen.malleable_share = o->swfo.malleable_share = share;
  o->gen.njobs = o->generate;
  return 0;
}

/* The policy, placement and costs, checked before the workload is read. */
static int check_config(const tool_opts *o)
{
  char why[512];
  if (morph_sim_config_check(&o->sim, why, sizeof why) == MORPH_OK)
    return 0;
  fprintf(stderr, "morph sim: %s\n", why);
  return -1;
}

static int load(tool_opts *o, morph_workload *wl)
{
  int rc;
  if (o->json)
    rc = morph_workload_load_json(wl, o->json);
  else if (o->swf)
    rc = morph_workload_load_swf(wl, o->swf, &o->swfo);
  else
    rc = morph_workload_generate(wl, &o->gen);
  if (rc) {
    fprintf(stderr, "morph sim: %s\n", morph_workload_errmsg(wl));
    return -1;
  }
  if (o->inhibit >= 0 && morph_workload_set_inhibit(wl, o->inhibit) != MORPH_OK) {
    fprintf(stderr, "morph sim: --inhibit wants 0..%g s\n", MORPH_WORKLOAD_TIME_MAX);
    return -1;
  }
  size_t cut = morph_workload_cap_sizes(wl, o->max_size);
  if (cut)
    fprintf(stderr, "morph sim: --max-size %d cut the request of %zu job(s); first: %s\n",
            o->max_size, cut, morph_workload_errmsg(wl));
  if (o->estimate_max > 0 && morph_workload_estimates_tsafrir(wl, o->estimate_max, o->gen.seed)) {
    fprintf(stderr, "morph sim: %s\n", morph_workload_errmsg(wl));
    return -1;
  }
  if (o->load > 0 && morph_workload_set_load(wl, o->sim.nodes, o->load, NULL) != MORPH_OK) {
    fprintf(stderr, "morph sim: --load: %s\n", morph_workload_errmsg(wl));
    return -1;
  }
  morph__tool_say_estimates(o, wl);
  if (wl->skipped)
    fprintf(stderr, "morph sim: %zu record(s) skipped (run time or size <= 0; first: %s at line "
            "%d), counted as skipped in the report\n", wl->skipped, wl->skips[0].name,
            wl->skips[0].line);
  if (o->save && morph_workload_save_json(wl, o->save) != MORPH_OK) {
    fprintf(stderr, "morph sim: cannot write %s\n", o->save);
    return -1;
  }
  return 0;
}

/* Impossible jobs are always reported; whether they stop the run is the
 * user's choice (--reject-impossible). */
static void warn_impossible(tool_opts *o, morph_workload *wl)
{
  size_t bad = 0;
  morph_workload_check(wl, o->sim.nodes, MORPH_IMPOSSIBLE_SKIP, &bad);
  if (bad)
    fprintf(stderr, "morph sim: %s%s\n", morph_workload_errmsg(wl),
            o->sim.impossible == MORPH_IMPOSSIBLE_REJECT ? "" : " (skipped, counted in the report)");
}

static int simulate(tool_opts *o, morph_workload *wl)
{
  morph_sim *sim = NULL;
  morph_report *rep = NULL;
  o->rep.units = o->sim.nodes;
  o->rep.title = o->name;
  int rc = morph_sim_create(&o->sim, &sim);
  if (!rc)
    rc = morph_report_create(&o->rep, &rep);
  morph_sim_stats st;
  if (!rc && (rc = morph_sim_run(sim, wl, rep, &st)) != MORPH_OK)
    fprintf(stderr, "morph sim: %s\n", morph_sim_errmsg(sim));
  if (!rc)
    rc = morph__tool_output(o, rep, &st, wl);
  morph_report_destroy(rep);
  morph_sim_destroy(sim);
  return rc ? 1 : 0;
}

int main(int argc, char **argv)
{
  /* getopt's messages begin with argv[0]: the command as typed, not our path. */
  argv[0] = (char *)"morph sim";
  if (argc > 1 && !strcmp(argv[1], "limits"))
    return morph__tool_limits(argc - 1, argv + 1);
  tool_opts o;
  int rc = parse(argc, argv, &o);
  if (rc)
    return rc > 0 ? 0 : 2;
  if (apply_kind(&o) || check_config(&o))
    return 2; /* a usage error, found before any file is read */
  morph_workload *wl;
  if (morph_workload_create(&wl) != MORPH_OK)
    return 1;
  rc = load(&o, wl) ? 1 : 0;
  if (!rc) {
    warn_impossible(&o, wl);
    rc = simulate(&o, wl);
  }
  morph_workload_destroy(wl);
  return rc;
}
