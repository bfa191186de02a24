/*
 * morph status (alias morph queue): the pool with one mark per slot (the
 * last digit of the job holding it), then the jobs. Meant for
 * `watch morph status`: jobs growing and shrinking show as their marks
 * spreading and receding.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "morph/error.h"
#include "rms/client.h"

static const char usage_text[] =
  "usage: morph status [options]    (also: morph queue)\n"
  "\n"
  "  -a, --all           every job, also all finished ones\n"
  "      --json          morphd's raw reply\n"
  "  -d, --dir DIR       morphd's folder ($MORPH_DIR; default: your own morphd's\n"
  "                      if it runs, else the shared /var/lib/morph)\n"
  "      --socket PATH   morphd's socket\n"
  "  -h, --help          this text\n";

static const struct option long_opts[] = {
  {"all", no_argument, NULL, 'a'},       {"json", no_argument, NULL, 1},
  {"dir", required_argument, NULL, 'd'}, {"socket", required_argument, NULL, 2},
  {"help", no_argument, NULL, 'h'},      {NULL, 0, NULL, 0},
};

static const char *str(json_t *o, const char *k)
{
  const char *s = json_string_value(json_object_get(o, k));
  return s ? s : "";
}

static double num(json_t *o, const char *k)
{
  return json_number_value(json_object_get(o, k));
}

/* Marks the slots job `id` holds on `host` ("localhost:3,h2:1"). */
static void mark(char *map, int cap, int *pos, const char *slots, const char *host, long long id)
{
  const char *p = slots;
  size_t hl = strlen(host);
  while (p && *p) {
    if (!strncmp(p, host, hl) && p[hl] == ':')
      for (int k = atoi(p + hl + 1); k > 0 && *pos < cap; k--)
        map[(*pos)++] = (char)('0' + id % 10);
    p = strchr(p, ',');
    p = p ? p + 1 : NULL;
  }
}

static void print_nodes(json_t *st)
{
  json_t *node, *job;
  size_t i, k;
  json_array_foreach(json_object_get(st, "nodes"), i, node) {
    int slots = (int)json_integer_value(json_object_get(node, "slots")), pos = 0;
    char map[256];
    int cap = slots < (int)sizeof map - 1 ? slots : (int)sizeof map - 1;
    json_array_foreach(json_object_get(st, "jobs"), k, job)
      if (!strcmp(str(job, "state"), "running"))
        mark(map, cap, &pos, str(job, "slots"), str(node, "host"), json_integer_value(json_object_get(job, "id")));
    int used = (int)json_integer_value(json_object_get(node, "used"));
    for (; pos < used && pos < cap; pos++)
      map[pos] = '+'; /* booked ahead: expansion or start in flight */
    for (; pos < cap; pos++)
      map[pos] = '.';
    map[cap] = '\0';
    const char *state = str(node, "state");
    printf("  %-12s [%s] %d/%d used%s%s\n", str(node, "host"), map, used, slots,
           *state && strcmp(state, "up") ? ", " : "", *state && strcmp(state, "up") ? state : "");
  }
}

static void print_header(json_t *st)
{
  json_t *c = json_object_get(st, "counts");
  printf("morphd pid %lld, %s backend, policy %s, %lld %s (%lld free), %lld decisions\n",
         (long long)num(st, "pid"), str(st, "backend"), str(st, "policy"), (long long)num(st, "slots"),
         *str(st, "unit") ? str(st, "unit") : "slots", (long long)num(st, "free"),
         (long long)num(st, "decisions"));
  printf("jobs: %lld running, %lld pending, %lld completed, %lld failed, %lld cancelled, "
         "%lld rejected\n",
         (long long)num(c, "running"), (long long)(num(c, "pending") + num(c, "starting")),
         (long long)num(c, "completed"), (long long)num(c, "failed"),
         (long long)num(c, "cancelled"), (long long)num(c, "rejected"));
}

static void print_job(json_t *j, double now)
{
  char limits[48] = "-", times[48];
  const char *kind = str(j, "kind"), *state = str(j, "state");
  if (!strcmp(kind, "malleable") || !strcmp(kind, "flexible"))
    snprintf(limits, sizeof limits, "%d<%d<%d", (int)num(j, "min"), (int)num(j, "pref"),
             (int)num(j, "max"));
  double submit = num(j, "submit"), start = num(j, "start"), end = num(j, "end");
  double until = end > 0 ? end : now;
  if (start > 0)
    snprintf(times, sizeof times, "%6.1f %7.1f", start - submit, until - start);
  else
    snprintf(times, sizeof times, "%6.1f %7s", until - submit, "-");
  const char *note = *str(j, "activity") ? str(j, "activity") : str(j, "note");
  printf("%4lld %-14.14s %-9s %-9s %4d %-9s %5d-%-3d %s %-14.14s %s\n",
         (long long)num(j, "id"), *str(j, "name") ? str(j, "name") : "-", kind, state,
         (int)num(j, "size"), limits, (int)num(j, "req_min"), (int)num(j, "req_max"), times,
         str(j, "program"), note);
}

static void print_status(json_t *st)
{
  json_t *job;
  size_t i;
  print_header(st);
  print_nodes(st);
  printf("\n%4s %-14s %-9s %-9s %4s %-9s %9s %6s %7s %-14s %s\n", "ID", "NAME", "KIND", "STATE",
         "SIZE", "LIMITS", "REQUEST", "WAIT", "RUN", "PROGRAM", "NOTE");
  json_array_foreach(json_object_get(st, "jobs"), i, job)
    print_job(job, num(st, "now"));
}

int main(int argc, char **argv)
{
  /* getopt's messages begin with argv[0]: the command as typed, not our path. */
  argv[0] = (char *)"morph status";
  const char *dir = NULL, *sock = NULL;
  int all = 0, raw = 0, c;
  while ((c = getopt_long(argc, argv, "ad:h", long_opts, NULL)) != -1) {
    if (c == 'h')
      return fputs(usage_text, stdout), 0;
    if (c == 'a')
      all = 1;
    else if (c == 1)
      raw = 1;
    else if (c == 'd')
      dir = optarg;
    else if (c == 2)
      sock = optarg;
    else
      return fprintf(stderr, "(see morph status --help)\n"), 2;
  }
  morph__cli cli;
  if (morph__cli_paths(&cli, dir, sock) != MORPH_OK || morph__cli_connect(&cli, 1) != MORPH_OK)
    return 1;
  json_t *reply;
  int rc = morph__cli_call(&cli, json_pack("{s:s, s:b}", "cmd", "status", "all", all), &reply, 10);
  morph__cli_close(&cli);
  if (rc != MORPH_OK) {
    fprintf(stderr, "morph status: %s\n", cli.errmsg);
  } else if (raw) {
    char *s = json_dumps(reply, JSON_INDENT(1));
    puts(s ? s : "{}");
    free(s);
  } else {
    print_status(reply);
  }
  json_decref(reply);
  return rc == MORPH_OK ? 0 : 1;
}
