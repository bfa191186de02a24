/*
 * morph submit: queues one job on morphd. The kind follows from the
 * options (paper 000, Table 3): -n N rigid, -n MIN-MAX moldable, limits
 * (--min/--max/--pref) make either malleable (rigid + limits: malleable,
 * moldable + limits: flexible).
 */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "morph/error.h"
#include "morph/workload.h"
#include "rms/client.h"
#include "submit.h"

static const char usage_text[] =
  "usage: morph submit [options] [--] program [arguments...]\n"
  "\n"
  "  -n, --np N|MIN-MAX    rigid request of N slots, or moldable MIN-MAX\n"
  "      --min N --max N --pref N\n"
  "                        malleability limits: the job may be grown and shrunk\n"
  "                        within [min, max]; pref is its preferred size\n"
  "  -t, --time SECONDS    time limit, for the job at its largest request: morphd\n"
  "                        stops the job there (recorded failed, TIMEOUT) and plans\n"
  "                        backfilling with it (default: none; plans with 3600 s)\n"
  "  -J, --name NAME       job name\n"
  "  -o, --output FILE     the job's stdout (default DIR/jobs/ID.out)\n"
  "  -e, --error FILE      the job's stderr (default DIR/jobs/ID.err)\n"
  "  -d, --dir DIR         morphd's folder ($MORPH_DIR; default: your own morphd's\n"
  "                        if it runs, else the shared /var/lib/morph)\n"
  "      --socket PATH     morphd's socket (default DIR/morphd.sock)\n"
  "      --matrix FILE     the job's communication matrix (Matrix Market, as morph\n"
  "                        prof writes it, bytes): placements with a topology\n"
  "                        (tofa, greedy) use it instead of uniform traffic\n"
  "  -q, --quiet           print only the job id\n"
  "      --slurm           submit to Slurm with sbatch instead: a script that runs\n"
  "                        morph run, which registers the job with morphd\n"
  "                        (sizes are processes; Slurm gives whole nodes)\n"
  "      --server ADDR     --slurm: morphd's host:port as the nodes reach it\n"
  "      --ppn N           --slurm: processes per node (default 1)\n"
  "  -p, --partition P     --slurm: Slurm partition\n"
  "      --print           --slurm: print the script, do not submit it\n"
  "  -h, --help            this text\n"
  "\n"
  "Examples:\n"
  "  morph submit -n 2 ./jacobi.ompi --iters 500              rigid, 2 slots\n"
  "  morph submit -n 1-4 ./cg.ompi                            moldable\n"
  "  morph submit --min 1 --max 4 --pref 2 ./jacobi.ompi      malleable\n"
  "  morph submit --slurm --server head:7100 --ppn 2 -n 2 --min 2 --max 8 ./jacobi.ompi\n";

static const struct option long_opts[] = {
  {"np", required_argument, NULL, 'n'},    {"min", required_argument, NULL, 1},
  {"max", required_argument, NULL, 2},     {"pref", required_argument, NULL, 3},
  {"name", required_argument, NULL, 'J'},  {"output", required_argument, NULL, 'o'},
  {"error", required_argument, NULL, 'e'}, {"dir", required_argument, NULL, 'd'},
  {"socket", required_argument, NULL, 4},  {"quiet", no_argument, NULL, 'q'},
  {"help", no_argument, NULL, 'h'},        {"slurm", no_argument, NULL, 5},
  {"server", required_argument, NULL, 6},  {"ppn", required_argument, NULL, 7},
  {"partition", required_argument, NULL, 'p'}, {"print", no_argument, NULL, 8},
  {"matrix", required_argument, NULL, 9}, {"time", required_argument, NULL, 't'},
  {NULL, 0, NULL, 0},
};

static int bad(const char *what, const char *arg)
{
  fprintf(stderr, "morph submit: %s%s%s (see morph submit --help)\n", what, arg ? " " : "",
          arg ? arg : "");
  return 2;
}

static int count(const char *s, int *out)
{
  char *end;
  long v = strtol(s, &end, 10);
  if (!*s || *end || v < 1 || v > 1000000)
    return bad("not a valid number of slots:", s);
  *out = (int)v;
  return 0;
}

static int seconds(const char *s, double *out)
{
  char *end;
  double v = strtod(s, &end);
  if (!*s || *end || !(v > 0) || v > MORPH_WORKLOAD_TIME_MAX)
    return bad("not a time limit in seconds (0 < S <= 1e9):", s);
  *out = v;
  return 0;
}

static int request(sub_opts *o, const char *s)
{
  const char *dash = strchr(s, '-');
  if (!dash)
    return count(s, &o->req_min) ? 2 : (o->req_max = o->req_min, 0);
  char lo[32];
  snprintf(lo, sizeof lo, "%.*s", (int)(dash - s), s);
  if (count(lo, &o->req_min) || count(dash + 1, &o->req_max))
    return 2;
  return o->req_min > o->req_max ? bad("-n MIN-MAX needs MIN <= MAX, got", s) : 0;
}

static int option(sub_opts *o, int c, const char *arg)
{
  switch (c) {
  case 'n': return request(o, arg);
  case 1: return count(arg, &o->min);
  case 2: return count(arg, &o->max);
  case 3: return count(arg, &o->pref);
  case 'J': o->name = arg; return 0;
  case 'o': o->out = arg; return 0;
  case 'e': o->err = arg; return 0;
  case 'd': o->dir = arg; return 0;
  case 4: o->sock = arg; return 0;
  case 'q': o->quiet = 1; return 0;
  case 5: o->slurm = 1; return 0;
  case 6: o->server = arg; return 0;
  case 7: return count(arg, &o->ppn);
  case 'p': o->partition = arg; return 0;
  case 8: o->print = 1; return 0;
  case 9: o->matrix = arg; return 0;
  case 't': return seconds(arg, &o->walltime);
  }
  return 2;
}

/* The limits and the request as the user gave them, against each other;
 * what is left out is derived from them (settle) and cannot conflict. */
static int check_limits(const sub_opts *o)
{
  char msg[160] = "";
  if (o->min && o->max && o->min > o->max)
    snprintf(msg, sizeof msg, "--min %d is larger than --max %d", o->min, o->max);
  else if (o->pref && o->min && o->pref < o->min)
    snprintf(msg, sizeof msg, "--pref %d is below --min %d", o->pref, o->min);
  else if (o->pref && o->max && o->pref > o->max)
    snprintf(msg, sizeof msg, "--pref %d is above --max %d", o->pref, o->max);
  else if (o->req_min && o->min && o->req_min < o->min)
    snprintf(msg, sizeof msg, "-n %d is below --min %d", o->req_min, o->min);
  else if (o->req_max && o->max && o->req_max > o->max)
    snprintf(msg, sizeof msg, "-n %d is above --max %d", o->req_max, o->max);
  return msg[0] ? bad(msg, NULL) : 0;
}

/* Kind and defaults: limits default around the request and vice versa. */
static morph_job_kind settle(sub_opts *o)
{
  int malleable = o->min || o->max || o->pref;
  int moldable = o->req_min != o->req_max;
  if (malleable && !o->req_min)
    o->req_min = o->req_max = o->pref ? o->pref : o->min ? o->min : 1;
  if (malleable) {
    o->min = o->min ? o->min : 1;
    o->pref = o->pref ? o->pref : o->req_max;
    o->max = o->max ? o->max : (o->pref > o->req_max ? o->pref : o->req_max);
  }
  if (malleable)
    return moldable ? MORPH_KIND_FLEXIBLE : MORPH_KIND_MALLEABLE;
  return moldable ? MORPH_KIND_MOLDABLE : MORPH_KIND_FIXED;
}

/* "submitted job 3 (malleable: starts on 2 slots, resized within 1-4,
 * preferring 2)": what the job asked for, in the words of the options. */
static void confirm(const sub_opts *o, morph_job_kind kind, long long id)
{
  char start[64];
  if (o->req_min == o->req_max)
    snprintf(start, sizeof start, "%d slot%s", o->req_min, o->req_min == 1 ? "" : "s");
  else
    snprintf(start, sizeof start, "%d-%d slots", o->req_min, o->req_max);
  if (!morph_job_kind_malleable(kind))
    printf("submitted job %lld (%s, %s)\n", id, kind == MORPH_KIND_FIXED ? "rigid" : "moldable",
           start);
  else
    printf("submitted job %lld (%s: starts on %s, resized within %d-%d, preferring %d)\n", id,
           morph_job_kind_name(kind), start, o->min, o->max, o->pref);
}

static json_t *abs_path(const char *p, const char *cwd)
{
  if (!p)
    return json_null();
  if (p[0] == '/')
    return json_string(p);
  char buf[PATH_MAX * 2];
  snprintf(buf, sizeof buf, "%s/%s", cwd, p);
  return json_string(buf);
}

static json_t *build(sub_opts *o, morph_job_kind kind, char **prog, int n, const char *cwd)
{
  json_t *argv = json_array();
  for (int i = 0; i < n; i++)
    json_array_append_new(argv, json_string(prog[i]));
  json_t *r = json_pack("{s:s, s:s, s:i, s:i, s:i, s:i, s:i, s:o, s:s}", "cmd", "submit", "kind",
                        morph_job_kind_name(kind), "req_min", o->req_min, "req_max", o->req_max,
                        "min", o->min, "max", o->max, "pref", o->pref, "argv", argv, "cwd", cwd);
  if (o->name)
    json_object_set_new(r, "name", json_string(o->name));
  if (o->walltime > 0)
    json_object_set_new(r, "walltime", json_real(o->walltime));
  if (o->out)
    json_object_set_new(r, "out", abs_path(o->out, cwd));
  if (o->err)
    json_object_set_new(r, "err", abs_path(o->err, cwd));
  return r;
}

/* --matrix: the file's byte counts as "traffic" (n * n, row-major) and
 * "traffic_n" in the request. Returns 0, or 2 with the parser's message
 * (file, line, field). */
static int add_matrix(const sub_opts *o, json_t *r)
{
  char err[600];
  if (!o->matrix || morph__cli_add_matrix(r, o->matrix, err, sizeof err) == MORPH_OK)
    return 0;
  fprintf(stderr, "morph submit: %s\n", err);
  return 2;
}

int main(int argc, char **argv)
{
  /* getopt's messages begin with argv[0]: the command as typed, not our path. */
  argv[0] = (char *)"morph submit";
  sub_opts o;
  memset(&o, 0, sizeof o);
  o.ppn = 1;
  int c;
  while ((c = getopt_long(argc, argv, "+n:J:o:e:d:p:t:qh", long_opts, NULL)) != -1) {
    if (c == 'h')
      return fputs(usage_text, stdout), 0;
    if (c == '?' || option(&o, c, optarg))
      return 2;
  }
  if (optind >= argc)
    return bad("no program to run", NULL);
  if (check_limits(&o))
    return 2;
  morph_job_kind kind = settle(&o);
  if (!o.req_min)
    return bad("say how many slots: -n N, -n MIN-MAX or --min/--max/--pref", NULL);
  if (o.slurm)
    return submit_slurm(&o, argv + optind, argc - optind);
  char cwd[PATH_MAX];
  if (!getcwd(cwd, sizeof cwd))
    return bad("cannot read the current folder", NULL);
  json_t *req = build(&o, kind, argv + optind, argc - optind, cwd), *reply;
  if (add_matrix(&o, req)) {
    json_decref(req);
    return 2;
  }
  morph__cli cli;
  if (morph__cli_paths(&cli, o.dir, o.sock) != MORPH_OK || morph__cli_connect(&cli, 1) != MORPH_OK) {
    json_decref(req);
    return 1;
  }
  int rc = morph__cli_call(&cli, req, &reply, 10);
  morph__cli_close(&cli);
  if (rc != MORPH_OK) {
    fprintf(stderr, "morph submit: %s\n", cli.errmsg);
    json_decref(reply);
    return 1;
  }
  long long id = (long long)json_integer_value(json_object_get(reply, "id"));
  if (o.quiet)
    printf("%lld\n", id);
  else
    confirm(&o, kind, id);
  json_decref(reply);
  return 0;
}
