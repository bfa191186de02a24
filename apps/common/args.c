/* Command-line options shared by the examples (see app.h). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app.h"

enum { OPT_CHECK = 256, OPT_NO_CHECK, OPT_DELAY, OPT_WORK, OPT_SERIAL, OPT_HOSTS, OPT_EXTRA = 512 };

static const struct option common_opts[] = {
    {"size", required_argument, NULL, 'n'},
    {"iters", required_argument, NULL, 'i'},
    {"check", no_argument, NULL, OPT_CHECK},
    {"no-check", no_argument, NULL, OPT_NO_CHECK},
    {"delay-ms", required_argument, NULL, OPT_DELAY},
    {"work-ms", required_argument, NULL, OPT_WORK},
    {"serial-ms", required_argument, NULL, OPT_SERIAL},
    {"hosts", no_argument, NULL, OPT_HOSTS},
    {"help", no_argument, NULL, 'h'},
};
#define NCOMMON ((int)(sizeof common_opts / sizeof common_opts[0]))

static int is_root(void) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank == 0;
}

static void usage(const char *prog, const char *about, const app_args *a, const app_option *extra) {
  printf("usage: %s [options]\n%s\n\n", prog, about);
  printf("  -n, --size N       problem size (default %lld)\n", (long long)a->size);
  printf("  -i, --iters N      iterations (default %d)\n", a->iters);
  printf("      --check        compare with a static run at the end (default)\n");
  printf("      --no-check     skip that comparison\n");
  printf("      --hosts        each rank prints its host at start and after each resize\n");
  printf("      --delay-ms X   sleep X ms per iteration (default %g)\n", a->delay_ms);
  printf("      --work-ms X    sleep X / P ms per iteration on P processes (default %g)\n",
         a->work_ms);
  printf("      --serial-ms Y  sleep Y ms per iteration whatever P (default %g)\n", a->serial_ms);
  for (int k = 0; extra && extra[k].name; k++)
    printf("      --%-12s %s\n", extra[k].name, extra[k].help);
}

/* Stores text into *ptr as the given kind; 0 or -1 if it is not a number. */
static int store(char kind, void *ptr, const char *text) {
  char *end;
  errno = 0;
  if (kind == 'd') {
    double v = strtod(text, &end);
    if (*end || errno || end == text)
      return -1;
    *(double *)ptr = v;
    return 0;
  }
  long long v = strtoll(text, &end, 10);
  if (*end || errno || end == text || v < 0)
    return -1;
  if (kind == 'i')
    *(int *)ptr = (int)v;
  else
    *(int64_t *)ptr = v;
  return 0;
}

/* Joins the common options and the application's into one getopt table. */
static struct option *build_table(const app_option *extra) {
  int n = 0;
  while (extra && extra[n].name)
    n++;
  struct option *t = calloc((size_t)(NCOMMON + n + 1), sizeof *t);
  if (!t)
    return NULL;
  memcpy(t, common_opts, sizeof common_opts);
  for (int k = 0; k < n; k++)
    t[NCOMMON + k] = (struct option){extra[k].name, required_argument, NULL, OPT_EXTRA + k};
  return t;
}

static int handle(int c, const app_option *extra, app_args *a) {
  switch (c) {
  case 'n': return store('l', &a->size, optarg);
  case 'i': return store('i', &a->iters, optarg);
  case OPT_CHECK: a->check = 1; return 0;
  case OPT_NO_CHECK: a->check = 0; return 0;
  case OPT_HOSTS: a->hosts = 1; return 0;
  case OPT_DELAY: return store('d', &a->delay_ms, optarg);
  case OPT_WORK: return store('d', &a->work_ms, optarg);
  case OPT_SERIAL: return store('d', &a->serial_ms, optarg);
  default:
    if (c >= OPT_EXTRA)
      return store(extra[c - OPT_EXTRA].kind, extra[c - OPT_EXTRA].ptr, optarg);
    return -1;
  }
}

int app_parse(int argc, char **argv, const char *about, app_args *a, const app_option *extra) {
  struct option *table = build_table(extra);
  if (!table)
    return -1;
  int c, rc = 0;
  optind = 1;
  while (rc == 0 && (c = getopt_long(argc, argv, "n:i:h", table, NULL)) != -1) {
    if (c == 'h') {
      if (is_root())
        usage(argv[0], about, a, extra);
      rc = 1;
    } else if (handle(c, extra, a) != 0) {
      if (is_root())
        fprintf(stderr, "%s: bad option or value (try --help)\n", argv[0]);
      rc = -1;
    }
  }
  free(table);
  if (rc == 0 && optind < argc) {
    if (is_root())
      fprintf(stderr, "%s: unexpected argument '%s'\n", argv[0], argv[optind]);
    rc = -1;
  }
  return rc;
}

static void sleep_ms(double ms) {
  if (ms <= 0)
    return;
  double s = ms / 1e3;
  struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
    ;
}

void app_delay(const app_args *a) { sleep_ms(a->delay_ms); }

void app_work(const app_args *a, MPI_Comm comm) {
  if (a->work_ms <= 0 && a->serial_ms <= 0)
    return;
  int p = 1, r = 0;
  MPI_Comm_size(comm, &p);
  MPI_Comm_rank(comm, &r);
  /* The serial part runs on one process while the others wait for it in
   * MPI, as in a real code, so that the MPI time libmorph measures shows
   * what scaling loses. Rank 0 is the one that reports MPI time: the last
   * rank does the serial work. The iteration lasts Y + X / P either way. */
  sleep_ms(a->work_ms / p + (r == p - 1 ? a->serial_ms : 0));
  if (p > 1 && a->serial_ms > 0)
    MPI_Barrier(comm);
}
