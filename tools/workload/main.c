/*
 * morph workload run FILE: submits the jobs of a JSON workload
 * (docs/workload.md) to morphd at their submission times and follows them
 * to their end with a progress line; morph workload check FILE only
 * parses it.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"
#include "morph/error.h"
#include "workload_tool.h"

static const char usage_text[] =
  "usage: morph workload run [options] FILE\n"
  "       morph workload check FILE\n"
  "       morph workload lublin --help   (a Lublin-Feitelson SWF trace)\n"
  "\n"
  "run submits each job of the JSON workload FILE to morphd at its submission\n"
  "time (seconds from now), as <app-dir>/<app><suffix> with the job's args,\n"
  "then follows the jobs until all have ended, printing progress.\n"
  "\n"
  "  -d, --dir DIR         morphd's folder ($MORPH_DIR; default: your own morphd's\n"
  "                        if it runs, else the shared /var/lib/morph)\n"
  "      --socket PATH     morphd's socket\n"
  "      --app-dir DIR     where the applications are (default: next to morph)\n"
  "      --suffix S        appended to application names (default .ompi)\n"
  "      --fixed           submit every job rigid: malleable ones at their\n"
  "                        preferred size, the others at their largest request\n"
  "      --time-scale X    multiply submission times by X (default 1)\n"
  "      --every S         seconds between progress lines (default 5)\n"
  "      --timeout S       give up after S seconds (exit status 3)\n"
  "      --no-wait         return once everything is submitted\n"
  "  -h, --help            this text\n"
  "\n"
  "Exit status: 0 when every job completed, 1 if some failed or were rejected,\n"
  "2 for bad usage or a malformed file, 3 after --timeout.\n";

enum { OPT_SOCKET = 256, OPT_APPDIR, OPT_SUFFIX, OPT_FIXED, OPT_SCALE, OPT_EVERY, OPT_TIMEOUT,
       OPT_NOWAIT };

static const struct option long_opts[] = {
  {"dir", required_argument, NULL, 'd'},        {"socket", required_argument, NULL, OPT_SOCKET},
  {"app-dir", required_argument, NULL, OPT_APPDIR}, {"suffix", required_argument, NULL, OPT_SUFFIX},
  {"fixed", no_argument, NULL, OPT_FIXED},      {"time-scale", required_argument, NULL, OPT_SCALE},
  {"every", required_argument, NULL, OPT_EVERY}, {"timeout", required_argument, NULL, OPT_TIMEOUT},
  {"no-wait", no_argument, NULL, OPT_NOWAIT},   {"help", no_argument, NULL, 'h'},
  {NULL, 0, NULL, 0},
};

static int seconds(const char *arg, double *out)
{
  char *end;
  double v = strtod(arg, &end);
  if (!*arg || *end || !(v >= 0)) {
    fprintf(stderr, "morph workload: '%s' is not a number of seconds\n", arg);
    return 2;
  }
  *out = v;
  return 0;
}

static int option(wl_opts *o, int c, const char *arg)
{
  switch (c) {
  case 'd': o->dir = arg; return 0;
  case OPT_SOCKET: o->sock = arg; return 0;
  case OPT_APPDIR: snprintf(o->app_dir, sizeof o->app_dir, "%s", arg); return 0;
  case OPT_SUFFIX: o->suffix = arg; return 0;
  case OPT_FIXED: o->fixed = 1; return 0;
  case OPT_SCALE: return seconds(arg, &o->time_scale);
  case OPT_EVERY: return seconds(arg, &o->every);
  case OPT_TIMEOUT: return seconds(arg, &o->timeout);
  case OPT_NOWAIT: o->wait = 0; return 0;
  }
  fprintf(stderr, "(see morph workload --help)\n");
  return 2;
}

static void defaults(wl_opts *o)
{
  memset(o, 0, sizeof *o);
  o->suffix = ".ompi";
  o->time_scale = 1;
  o->every = 5;
  o->wait = 1;
  ssize_t n = readlink("/proc/self/exe", o->app_dir, sizeof o->app_dir - 1);
  o->app_dir[n > 0 ? n : 0] = '\0';
  char *slash = strrchr(o->app_dir, '/');
  if (slash)
    *slash = '\0';
}

static int load(const char *file, morph_workload **wl)
{
  if (morph_workload_create(wl) != MORPH_OK)
    return 1;
  if (morph_workload_load_json(*wl, file) != MORPH_OK) {
    fprintf(stderr, "morph workload: %s\n", morph_workload_errmsg(*wl));
    return 2;
  }
  return 0;
}

typedef struct follow {
  long long *ids;
  size_t n;
  int counts[8]; /* pending, running, completed, failed, cancelled, rejected */
} follow;

static const char *const shown[] = {"pending", "running", "completed", "failed", "cancelled",
                                    "rejected"};

/* Asks morphd how the submitted jobs are doing; returns the number ended. */
static int poll_jobs(morph__cli *cli, follow *f)
{
  json_t *ids = json_array(), *reply, *job;
  for (size_t i = 0; i < f->n; i++)
    if (f->ids[i] > 0)
      json_array_append_new(ids, json_integer(f->ids[i]));
  memset(f->counts, 0, sizeof f->counts);
  if (!json_array_size(ids))
    return json_decref(ids), 0;
  int rc = morph__cli_call(cli, json_pack("{s:s, s:o}", "cmd", "status", "ids", ids), &reply, 10);
  size_t k;
  if (rc == MORPH_OK)
    json_array_foreach(json_object_get(reply, "jobs"), k, job) {
      const char *st = json_string_value(json_object_get(job, "state"));
      for (int s = 0; st && s < 6; s++)
        f->counts[s] += !strcmp(st, shown[s]) || (s == 0 && !strcmp(st, "starting"));
    }
  json_decref(reply);
  return rc == MORPH_OK ? f->counts[2] + f->counts[3] + f->counts[4] : -1;
}

static void progress(const follow *f, double t, size_t submitted, size_t total, int rejected)
{
  printf("[%7.1f s] submitted %zu/%zu, pending %d, running %d, completed %d, failed %d,"
         " cancelled %d, rejected %d\n",
         t, submitted, total, f->counts[0], f->counts[1], f->counts[2], f->counts[3],
         f->counts[4], rejected);
  fflush(stdout);
}

/* Submits due jobs; returns MORPH_OK or the connection error. */
static int submit_due(const wl_opts *o, morph__cli *cli, const morph_workload *wl, follow *f,
                      size_t *next, int *rejected, double t)
{
  for (; *next < wl->njobs && wl->jobs[*next].submit * o->time_scale <= t; (*next)++) {
    int rc = wl_submit(o, cli, wl, *next, &f->ids[*next]);
    if (rc != MORPH_OK)
      return fprintf(stderr, "morph workload: %s\n", cli->errmsg), rc;
    *rejected += f->ids[*next] == 0;
  }
  return MORPH_OK;
}

static int run(const wl_opts *o, morph__cli *cli, const morph_workload *wl)
{
  follow f = {calloc(wl->njobs + 1, sizeof(long long)), wl->njobs, {0}};
  double t0 = morph__now(), next_line = 0, next_poll = 0;
  size_t next = 0;
  int rejected = 0, rc = f.ids ? 0 : 1;
  while (rc == 0) {
    double t = morph__now() - t0;
    if (submit_due(o, cli, wl, &f, &next, &rejected, t) != MORPH_OK) {
      rc = 1;
      break;
    }
    int ended = -1;
    if (t >= next_poll) { /* once a second: has everything ended? */
      ended = poll_jobs(cli, &f);
      next_poll = t + 1;
      if (ended < 0) {
        fprintf(stderr, "morph workload: lost morphd: %s\n", cli->errmsg);
        rc = 1;
        break;
      }
    }
    int done = next == wl->njobs && (!o->wait || ended + rejected == (int)wl->njobs);
    if (t >= next_line || done) {
      progress(&f, t, next, wl->njobs, rejected);
      next_line = t + o->every;
    }
    if (done)
      break;
    if (o->timeout > 0 && t > o->timeout) {
      fprintf(stderr, "morph workload: gave up after %g s\n", o->timeout);
      rc = 3;
      break;
    }
    morph__sleep(0.2);
  }
  if (rc == 0)
    printf("workload done in %.1f s: %d completed, %d failed, %d cancelled, %d rejected\n",
           morph__now() - t0, f.counts[2], f.counts[3], f.counts[4], rejected);
  if (rc == 0 && o->wait && f.counts[3] + f.counts[4] + rejected)
    rc = 1;
  free(f.ids);
  return rc;
}

int main(int argc, char **argv)
{
  /* getopt's messages begin with argv[0]: the command as typed, not our path. */
  argv[0] = (char *)"morph workload";
  if (argc > 1 && !strcmp(argv[1], "lublin"))
    return wl_lublin(argc - 1, argv + 1);
  wl_opts o;
  defaults(&o);
  int c;
  while ((c = getopt_long(argc, argv, "d:h", long_opts, NULL)) != -1) {
    if (c == 'h')
      return fputs(usage_text, stdout), 0;
    if (c == '?' || option(&o, c, optarg))
      return 2;
  }
  if (argc - optind != 2 || (strcmp(argv[optind], "run") && strcmp(argv[optind], "check")))
    return fputs(usage_text, stderr), 2;
  const char *file = argv[optind + 1];
  morph_workload *wl = NULL;
  int rc = load(file, &wl);
  if (rc == 0 && !strcmp(argv[optind], "check"))
    printf("%s: %zu jobs\n", file, wl->njobs);
  else if (rc == 0 && (rc = wl_check_programs(&o, wl, file) ? 2 : 0) == 0) {
    morph__cli cli;
    rc = morph__cli_paths(&cli, o.dir, o.sock) != MORPH_OK || morph__cli_connect(&cli, 1) ? 1
                                                                                        : run(&o, &cli, wl);
    morph__cli_close(&cli);
  }
  morph_workload_destroy(wl);
  return rc;
}
