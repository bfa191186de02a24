/* morph cancel ID...: cancels jobs; running ones are stopped by their morph run. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "morph/error.h"
#include "rms/client.h"

static const char usage_text[] =
  "usage: morph cancel [options] ID...\n"
  "\n"
  "Cancels jobs: pending ones leave the queue, running ones are stopped\n"
  "(their slots are freed once their processes are gone).\n"
  "\n"
  "  -d, --dir DIR       morphd's folder ($MORPH_DIR; default: your own morphd's\n"
  "                      if it runs, else the shared /var/lib/morph)\n"
  "      --socket PATH   morphd's socket\n"
  "  -h, --help          this text\n"
  "\n"
  "Exit status: 0 if every job was cancelled, 1 otherwise, 2 for a usage error.\n";

static const struct option long_opts[] = {
  {"dir", required_argument, NULL, 'd'}, {"socket", required_argument, NULL, 1},
  {"help", no_argument, NULL, 'h'},      {NULL, 0, NULL, 0},
};

/* The job id arg, or 0 if it is not one. */
static long long job_id(const char *arg)
{
  char *end;
  long long id = strtoll(arg, &end, 10);
  return *arg && !*end && id >= 1 ? id : 0;
}

static int cancel_one(morph__cli *cli, const char *arg)
{
  long long id = job_id(arg);
  json_t *reply;
  int rc = morph__cli_call(cli, json_pack("{s:s, s:I}", "cmd", "cancel", "id", (json_int_t)id),
                           &reply, 10);
  if (rc != MORPH_OK)
    fprintf(stderr, "morph cancel: %s\n", cli->errmsg);
  else
    printf("job %lld: cancel requested (%s)\n", id,
           json_string_value(json_object_get(reply, "state")));
  json_decref(reply);
  return rc == MORPH_OK ? 0 : 1;
}

int main(int argc, char **argv)
{
  /* getopt's messages begin with argv[0]: the command as typed, not our path. */
  argv[0] = (char *)"morph cancel";
  const char *dir = NULL, *sock = NULL;
  int c;
  while ((c = getopt_long(argc, argv, "d:h", long_opts, NULL)) != -1) {
    if (c == 'h')
      return fputs(usage_text, stdout), 0;
    if (c == 'd')
      dir = optarg;
    else if (c == 1)
      sock = optarg;
    else
      return fprintf(stderr, "(see morph cancel --help)\n"), 2;
  }
  if (optind >= argc)
    return fprintf(stderr, "morph cancel: which job? (morph cancel ID...)\n"), 2;
  for (int i = optind; i < argc; i++)
    if (!job_id(argv[i]))
      return fprintf(stderr, "morph cancel: '%s' is not a job id\n", argv[i]), 2;
  morph__cli cli;
  if (morph__cli_paths(&cli, dir, sock) != MORPH_OK || morph__cli_connect(&cli, 1) != MORPH_OK)
    return 1;
  int failed = 0;
  for (int i = optind; i < argc; i++)
    failed |= cancel_one(&cli, argv[i]);
  morph__cli_close(&cli);
  return failed;
}
