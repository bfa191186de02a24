/*
 * morph: the one command line of the project. Like git, it dispatches
 * `morph <command> ...` to the program `morph-<command>` installed next to
 * it, so that each part ships its commands on its own.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char *const commands[][2] = {
  {"run", "start an MPI application and carry out its reconfigurations"},
  {"submit", "submit a job to morphd"},
  {"status", "show morphd's jobs and slots (alias: queue)"},
  {"cancel", "cancel a job"},
  {"workload", "run a JSON workload on morphd"},
  {"report", "per-job and total metrics, with plots"},
  {"daemon", "start morphd"},
  {"sim", "simulate a workload with the policy engine"},
  {"prof", "run an MPI program and write its communication matrix"},
};

static void usage(FILE *out)
{
  fprintf(out, "usage: morph <command> [options]\n"
               "       morph --version\n\ncommands:\n");
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    fprintf(out, "  %-9s %s\n", commands[i][0], commands[i][1]);
  fprintf(out, "\n`morph <command> --help` describes each command.\n"
               "\nExit status: 0 on success; 2 for a usage error (an unknown command or\n"
               "option, a missing or malformed value, options that contradict each\n"
               "other), found before anything is started or created; 1 when the command\n"
               "itself fails. morph run also returns the job's own status.\n");
}

/* The folder this program lives in, where its sub-programs are too. */
static int self_dir(char *dir, size_t size)
{
  ssize_t n = readlink("/proc/self/exe", dir, size - 1);
  if (n < 0)
    return -1;
  dir[n] = '\0';
  char *slash = strrchr(dir, '/');
  if (slash)
    *slash = '\0';
  return 0;
}

int main(int argc, char **argv)
{
  if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
    usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  if (!strcmp(argv[1], "--version")) {
    printf("morph %s\n", MORPH_VERSION_STRING);
    return 0;
  }
  if (argv[1][0] == '-') {
    fprintf(stderr, "morph: unknown option '%s' (see morph --help)\n", argv[1]);
    return 2;
  }
  const char *cmd = strcmp(argv[1], "queue") ? argv[1] : "status";
  char dir[PATH_MAX], prog[PATH_MAX + 64];
  if (self_dir(dir, sizeof dir) != 0) {
    fprintf(stderr, "morph: cannot find my own folder: %s\n", strerror(errno));
    return 1;
  }
  snprintf(prog, sizeof prog, "%s/morph-%s", dir, cmd);
  argv[1] = prog;
  execv(prog, argv + 1);
  if (errno == ENOENT)
    fprintf(stderr, "morph: '%s' is not a morph command (see morph --help)\n", argv[1] + strlen(dir) + 7);
  else
    fprintf(stderr, "morph: cannot run %s: %s\n", prog, strerror(errno));
  return 2;
}
