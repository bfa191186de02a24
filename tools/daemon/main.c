/*
 * morph daemon: runs morphd in the foreground (log on stderr), or with
 * --stop asks the running one to stop.
 */
#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "morph/error.h"
#include "rms/backend.h"
#include "rms/client.h"
#include "common/signals.h"
#include "rms/morphd.h"

static const char usage_text[] =
  "usage: morph daemon [options]\n"
  "\n"
  "Runs morphd, the resource manager, in the foreground: it keeps the queue,\n"
  "asks the policy engine what to do and has its backend do it. The embedded\n"
  "backend owns the slots of this machine (or of a hostfile), starts jobs\n"
  "with `morph run` and grows and shrinks malleable ones as the policy says.\n"
  "State (socket, journal, job outputs) lives in one folder.\n"
  "\n"
  "  -d, --dir DIR         state folder ($MORPH_DIR; default /var/lib/morph for root,\n"
  "                        else $XDG_RUNTIME_DIR/morph); it must be morphd's\n"
  "                        user's and writable by nobody else\n"
  "      --socket ADDR     socket path (default DIR/morphd.sock; every local user\n"
  "                        may connect, each acts on his own jobs) or host:port\n"
  "                        (TCP with MUNGE, for relays on other hosts)\n"
  "      --journal FILE    SQLite journal (default DIR/journal.db)\n"
  "  -b, --backend NAME    who owns the resources: embedded (default) or slurm\n"
  "      --admin-group G   members of group G act on every job, as root does\n"
  "  -n, --slots N         embedded: slots on this machine (default: CPUs)\n"
  "      --hostfile FILE   embedded: pool from a hostfile (\"host slots=N\" lines)\n"
  "  -p, --policy NAME     policy engine (default mdmr+easy, rdmr+easy with --backend\n"
  "                        slurm; --list-policies)\n"
  "      --param KEY=VAL   policy parameter, repeatable (sched_period=10, ...)\n"
  "      --placement NAME  placement strategy: which slots (default firstfit; below)\n"
  "      --topology FILE   placement: the machine (docs/topology.md; tofa, greedy, random)\n"
  "      --faults FILE     placement: outage probabilities, \"NODE P\" lines\n"
  "      --place-param KEY=VAL  placement parameter, repeatable (seed=1, migration=10)\n"
  "      --heartbeat S     watch the nodes: a heartbeat (TCP connect) to each every S\n"
  "                        seconds; missed ones give its outage probability\n"
  "                        (journaled; tofa/greedy/random use it, --faults wins)\n"
  "      --heartbeat-port P  the port a node answers on (default 22, sshd)\n"
  "      --heartbeat-window N  heartbeats the estimate counts (default 20, max 64)\n"
  "  -i, --interval S      seconds between periodic decisions (default 5)\n"
  "      --resize-timeout S  seconds a job has to answer a resize (default 300);\n"
  "                        then the resize fails, the job keeps its size\n"
  "      --launcher PATH   morph-run to start jobs with (default: next to me)\n"
  "      --checkpoint-dir DIR  embedded: a folder every node sees; a job moved\n"
  "                        off a failing node is relaunched from a checkpoint\n"
  "                        there, leaving no Open MPI daemon on the node\n"
  "                        (default: a live shrink)\n"
  "  -v, --verbose         more messages\n"
  "      --stop            ask the running morphd to stop (jobs keep running)\n"
  "      --kill-jobs       with --stop: stop every running job first\n"
  "      --list-policies   print the policy names\n"
  "  -h, --help            this text\n"
  "\n"
  "Killing morphd (even with SIGKILL) loses no job: running jobs keep their\n"
  "size and reattach when it starts again on the same folder.\n";

enum { OPT_SOCKET = 256, OPT_JOURNAL, OPT_HOSTFILE, OPT_PARAM, OPT_LAUNCHER, OPT_STOP, OPT_KILL,
       OPT_LIST, OPT_PLACEMENT, OPT_TOPOLOGY, OPT_FAULTS, OPT_PLACE_PARAM, OPT_RESIZE_TIMEOUT,
       OPT_HEARTBEAT, OPT_HEARTBEAT_PORT, OPT_HEARTBEAT_WINDOW, OPT_CHECKPOINT_DIR,
       OPT_ADMIN_GROUP };

static const struct option long_opts[] = {
  {"dir", required_argument, NULL, 'd'},         {"socket", required_argument, NULL, OPT_SOCKET},
  {"journal", required_argument, NULL, OPT_JOURNAL}, {"slots", required_argument, NULL, 'n'},
  {"backend", required_argument, NULL, 'b'},
  {"hostfile", required_argument, NULL, OPT_HOSTFILE}, {"policy", required_argument, NULL, 'p'},
  {"param", required_argument, NULL, OPT_PARAM}, {"interval", required_argument, NULL, 'i'},
  {"launcher", required_argument, NULL, OPT_LAUNCHER}, {"verbose", no_argument, NULL, 'v'},
  {"stop", no_argument, NULL, OPT_STOP},         {"kill-jobs", no_argument, NULL, OPT_KILL},
  {"list-policies", no_argument, NULL, OPT_LIST}, {"help", no_argument, NULL, 'h'},
  {"placement", required_argument, NULL, OPT_PLACEMENT},
  {"topology", required_argument, NULL, OPT_TOPOLOGY}, {"faults", required_argument, NULL, OPT_FAULTS},
  {"place-param", required_argument, NULL, OPT_PLACE_PARAM},
  {"resize-timeout", required_argument, NULL, OPT_RESIZE_TIMEOUT},
  {"heartbeat", required_argument, NULL, OPT_HEARTBEAT},
  {"heartbeat-port", required_argument, NULL, OPT_HEARTBEAT_PORT},
  {"heartbeat-window", required_argument, NULL, OPT_HEARTBEAT_WINDOW},
  {"checkpoint-dir", required_argument, NULL, OPT_CHECKPOINT_DIR},
  {"admin-group", required_argument, NULL, OPT_ADMIN_GROUP},
  {NULL, 0, NULL, 0},
};

typedef struct cli_opts {
  morph__daemon_opts d;
  int stop, kill_jobs;
} cli_opts;

static int bad(const char *what, const char *arg)
{
  fprintf(stderr, "morph daemon: %s '%s' (see morph daemon --help)\n", what, arg);
  return 2;
}

static int set_param(cli_opts *o, char *arg)
{
  char *eq = strchr(arg, '=');
  if (!eq)
    return bad("--param wants KEY=VALUE, got", arg);
  *eq = '\0';
  if (morph_policy_params_set(&o->d.params, arg, eq + 1) != MORPH_OK)
    return *eq = '=', bad("bad policy parameter", arg);
  return 0;
}

/* A placement parameter KEY=VALUE (key given for --topology, --faults). */
static int add_place_param(cli_opts *o, const char *key, char *arg)
{
  if (!key) {
    char *eq = strchr(arg, '=');
    if (!eq)
      return bad("--place-param wants KEY=VALUE, got", arg);
    *eq = '\0', key = arg, arg = eq + 1;
  }
  if (o->d.nplace_params == MORPH__PLACE_PARAMS_MAX)
    return bad("too many placement parameters at", key);
  o->d.place_params[o->d.nplace_params++] = (morph_place_param){key, arg};
  return 0;
}

/* 1 if name is one of the ", "-separated names in list. */
static int listed(const char *list, const char *name)
{
  size_t n = strlen(name);
  for (const char *p = list; p && *p; p = strstr(p, ", ") ? strstr(p, ", ") + 2 : NULL)
    if (!strncmp(p, name, n) && (p[n] == ',' || p[n] == '\0'))
      return 1;
  return 0;
}

/* Unknown names (backend, policy, placement), bad parameters and an
 * unknown admin group are refused here, with the known names, before
 * anything is created or started. */
static int check_names(cli_opts *o)
{
  char msg[512];
  /* The parameters are checked alike for every policy: without -p, any
   * valid name checks them (morphd picks the backend's default). */
  const char *policy = o->d.policy ? o->d.policy : "fcfs";
  morph__backend_names(msg, sizeof msg);
  if (!listed(msg, o->d.backend)) {
    fprintf(stderr, "morph daemon: unknown backend '%s' (%s)\n", o->d.backend, msg);
    return 2;
  }
  if (morph_policy_create_error(policy, &o->d.params, msg, sizeof msg) != MORPH_OK ||
      morph_place_create_error(o->d.placement, o->d.place_params, o->d.nplace_params, msg,
                               sizeof msg) != MORPH_OK) {
    fprintf(stderr, "morph daemon: %s\n", msg);
    return 2;
  }
  if (o->d.admin_group && !getgrnam(o->d.admin_group)) {
    fprintf(stderr, "morph daemon: --admin-group %s: no such group\n", o->d.admin_group);
    return 2;
  }
  return 0;
}

static int number(const char *arg, double lo, double *out)
{
  char *end;
  double v = strtod(arg, &end);
  if (!*arg || *end || !(v >= lo) || v > 1e9)
    return bad("not a valid number:", arg);
  *out = v;
  return 0;
}

/* A whole number in 1..max. */
static int integer(const char *arg, int max, int *out)
{
  char *end;
  long v = strtol(arg, &end, 10);
  if (!*arg || *end || v < 1 || v > max) {
    fprintf(stderr, "morph daemon: '%s' is not a whole number in 1..%d\n", arg, max);
    return 2;
  }
  *out = (int)v;
  return 0;
}

static int option(cli_opts *o, int c, char *arg)
{
  double v;
  switch (c) {
  case 'd': o->d.dir = arg; return 0;
  case OPT_SOCKET: o->d.socket = arg; return 0;
  case OPT_JOURNAL: o->d.journal = arg; return 0;
  case 'b': o->d.backend = arg; return 0;
  case 'n': return number(arg, 1, &v) ? 2 : (o->d.slots = (int)v, 0);
  case OPT_HOSTFILE: o->d.hostfile = arg; return 0;
  case 'p': o->d.policy = arg; return 0;
  case OPT_PARAM: return set_param(o, arg);
  case OPT_PLACEMENT: o->d.placement = arg; return 0;
  case OPT_TOPOLOGY: return add_place_param(o, "topology", arg);
  case OPT_FAULTS: return add_place_param(o, "faults", arg);
  case OPT_PLACE_PARAM: return add_place_param(o, NULL, arg);
  case 'i': return number(arg, 0.05, &o->d.interval);
  case OPT_RESIZE_TIMEOUT: return number(arg, 0.1, &o->d.resize_timeout);
  case OPT_HEARTBEAT: return number(arg, 0.05, &o->d.heartbeat);
  case OPT_HEARTBEAT_PORT: return integer(arg, 65535, &o->d.heartbeat_port);
  case OPT_HEARTBEAT_WINDOW: return integer(arg, MORPH__BEAT_WINDOW_MAX, &o->d.heartbeat_window);
  case OPT_LAUNCHER: o->d.launcher = arg; return 0;
  case OPT_CHECKPOINT_DIR: o->d.checkpoint_dir = arg; return 0;
  case OPT_ADMIN_GROUP: o->d.admin_group = arg; return 0;
  case 'v': o->d.verbose++; return 0;
  case OPT_STOP: o->stop = 1; return 0;
  case OPT_KILL: o->kill_jobs = 1; return 0;
  }
  return 2;
}

static int list_policies(void)
{
  char names[1024];
  morph_policy_names(names, sizeof names);
  printf("%s\n", names);
  for (int i = 0; i < morph_policy_count(); i++)
    printf("  %-12s %s\n", morph_policy_table_name(i), morph_policy_table_description(i));
  return 0;
}

static int help(void)
{
  fputs(usage_text, stdout);
  printf("\nPlacement strategies (--placement):\n");
  for (int i = 0; i < morph_place_count(); i++)
    printf("  %-12s %s\n", morph_place_table_name(i), morph_place_table_description(i));
  return 0;
}

static int parse(cli_opts *o, int argc, char **argv)
{
  memset(o, 0, sizeof *o);
  morph_policy_params_default(&o->d.params);
  o->d.policy = NULL; /* the backend's default (morph__daemon_init) */
  o->d.backend = "embedded";
  o->d.placement = "firstfit";
  o->d.interval = 5;
  o->d.resize_timeout = MORPH__RESIZE_TIMEOUT;
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  o->d.slots = cpus > 0 ? (int)cpus : 1;
  int c;
  while ((c = getopt_long(argc, argv, "d:b:n:p:i:vh", long_opts, NULL)) != -1) {
    if (c == 'h')
      return help();
    if (c == OPT_LIST)
      return list_policies();
    if (c == '?' || option(o, c, optarg) != 0)
      return 2;
  }
  if (optind < argc)
    return bad("unexpected argument", argv[optind]);
  return check_names(o) ? 2 : -1;
}

/* The state folder: --dir, $MORPH_DIR, else this user's own (root's
 * /var/lib/morph, another user's $XDG_RUNTIME_DIR/morph). Never a name in a
 * world-writable place: another user could have made it first. */
static int state_dir(cli_opts *o, char *buf, size_t size)
{
  const char *env = getenv("MORPH_DIR");
  if (!o->d.dir && env && *env)
    o->d.dir = env;
  if (o->d.dir)
    return 0;
  if (morph__own_dir(buf, size) != MORPH_OK) {
    fprintf(stderr, "morph daemon: no state folder: give --dir DIR (or MORPH_DIR), or run with"
            " XDG_RUNTIME_DIR set\n");
    return 2;
  }
  o->d.dir = buf;
  return 0;
}

/* A connection is a file descriptor: take every one the system allows. */
static void more_files(void)
{
  struct rlimit rl;
  if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
    rl.rlim_cur = rl.rlim_max;
    setrlimit(RLIMIT_NOFILE, &rl);
  }
}

/* The pid of the morphd at the other end of a local connection; 0 over
 * TCP (another host's) or if unknown. */
static pid_t peer_pid(int fd)
{
  struct ucred cred;
  socklen_t len = sizeof cred;
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 || len != sizeof cred)
    return 0;
  return cred.pid;
}

/* 1 once pid has ended: no such process, or a zombie its parent has not
 * reaped yet (it holds nothing any more). */
static int ended(pid_t pid)
{
  char path[64], buf[512];
  if (kill(pid, 0) != 0 && errno == ESRCH)
    return 1;
  snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
  FILE *f = fopen(path, "r");
  size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
  if (f)
    fclose(f);
  buf[n] = '\0';
  const char *paren = strrchr(buf, ')');
  return !f || (paren && paren[1] == ' ' && paren[2] == 'Z');
}

/* Asks morphd to stop and returns once it has really left: its socket is
 * gone and, on this host, its process too. The socket goes first and the
 * journal is closed after it, so a caller that opens the journal (a
 * script's sqlite3) must wait for the process. */
static int stop(const cli_opts *o, morph__cli *cli)
{
  json_t *reply;
  if (morph__cli_connect(cli, 1) != MORPH_OK)
    return 1;
  pid_t pid = peer_pid(cli->fd);
  int rc = morph__cli_call(cli, json_pack("{s:s, s:b}", "cmd", "shutdown", "kill_jobs",
                                          o->kill_jobs), &reply, 10);
  json_decref(reply);
  morph__cli_close(cli);
  if (rc != MORPH_OK)
    return fprintf(stderr, "morph daemon: %s\n", cli->errmsg), 1;
  int i = 0;
  for (; i < 300 && access(cli->sock, F_OK) == 0; i++)
    usleep(100000);
  for (; pid > 0 && i < 300 && !ended(pid); i++)
    usleep(20000);
  return 0;
}

int main(int argc, char **argv)
{
  /* getopt's messages begin with argv[0]: the command as typed, not our path. */
  argv[0] = (char *)"morph daemon";
  cli_opts o;
  int rc = parse(&o, argc, argv);
  if (rc >= 0)
    return rc;
  morph__cli cli;
  if (morph__cli_paths(&cli, o.d.dir, o.d.socket) != MORPH_OK)
    return bad("path too long:", o.d.dir ? o.d.dir : "");
  if (o.stop)
    return stop(&o, &cli);
  char own[PATH_MAX];
  if (state_dir(&o, own, sizeof own) != 0)
    return 2;
  /* The test hook (docs/testing.md), read once; a typo must not pass. */
  o.d.crash_at = getenv("MORPH_TEST_CRASH_AT");
  if (o.d.crash_at && !morph__crash_known(o.d.crash_at)) {
    char names[1024];
    morph__crash_names(names, sizeof names);
    fprintf(stderr, "morph daemon: MORPH_TEST_CRASH_AT=%s is not a crash point (%s)\n",
            o.d.crash_at, names);
    return 2;
  }
  morph__daemon *d = calloc(1, sizeof *d);
  if (!d)
    return 1;
  /* What morphd creates is its own alone unless it opens it up itself. */
  umask(077);
  more_files();
  morph__signals_install();
  rc = morph__daemon_init(d, &o.d);
  if (rc != MORPH_OK) {
    fprintf(stderr, "morph daemon: %s\n", d->errmsg);
    morph__daemon_fini(d);
    free(d);
    return 1;
  }
  morph__daemon_run(d);
  morph__daemon_fini(d);
  free(d);
  return 0;
}
