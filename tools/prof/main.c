/*
 * morph prof: runs an MPI program with libmorph-prof loaded (LD_PRELOAD)
 * and MORPH_PROF_DIR set, then gathers the per-process traffic files into
 * the communication matrix (Matrix Market, bytes and messages) and a
 * heatmap. `--collect DIR` does the second half alone, e.g. for the files
 * a crashed run left behind. docs/prof.md describes the output.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "morph/prof.h"
#include "prof_tool.h"

static const char usage_text[] =
  "usage: morph prof [options] -- COMMAND [ARGS...]\n"
  "       morph prof [options] --collect DIR\n"
  "\n"
  "Runs COMMAND (an MPI program, or its launcher line) with the traffic\n"
  "profiler loaded and writes the communication matrix of its MPI_COMM_WORLD:\n"
  "PREFIX.bytes.mtx and PREFIX.msgs.mtx (Matrix Market) and PREFIX.png.\n"
  "\n"
  "  -o, --output PREFIX   output file prefix (default: prof)\n"
  "  -n, --np N            launch COMMAND with mpirun/mpiexec on N processes\n"
  "      --mpi ompi|mpich  the program's MPI (default: read from the program)\n"
  "      --dir DIR         per-process traffic files (default: PREFIX.ranks)\n"
  "      --collect DIR     do not run anything: gather the files of DIR\n"
  "      --no-plot         no heatmap\n"
  "  -q, --quiet           no summary\n"
  "  -h, --help            this text\n";

enum { OPT_MPI = 256, OPT_DIR, OPT_COLLECT, OPT_NOPLOT };

static const struct option long_opts[] = {
  {"output", required_argument, NULL, 'o'}, {"np", required_argument, NULL, 'n'},
  {"mpi", required_argument, NULL, OPT_MPI}, {"dir", required_argument, NULL, OPT_DIR},
  {"collect", required_argument, NULL, OPT_COLLECT}, {"no-plot", no_argument, NULL, OPT_NOPLOT},
  {"quiet", no_argument, NULL, 'q'}, {"help", no_argument, NULL, 'h'},
  {NULL, 0, NULL, 0},
};

static int option(prof_opts *o, int c, const char *arg)
{
  char *end;
  switch (c) {
  case 'o': o->prefix = arg; return 0;
  case 'n':
    o->np = (int)strtol(arg, &end, 10);
    if (*end || o->np < 1) {
      fprintf(stderr, "morph prof: --np: '%s' is not a positive number\n", arg);
      return 2;
    }
    return 0;
  case OPT_MPI:
    if (strcmp(arg, "ompi") && strcmp(arg, "mpich")) {
      fprintf(stderr, "morph prof: --mpi: '%s' is not ompi or mpich\n", arg);
      return 2;
    }
    o->mpi = arg;
    return 0;
  case OPT_DIR: o->dir = arg; return 0;
  case OPT_COLLECT: o->collect = arg; return 0;
  case OPT_NOPLOT: o->plot = 0; return 0;
  case 'q': o->quiet = 1; return 0;
  case 'h': fputs(usage_text, stdout); return 1;
  default: fputs(usage_text, stderr); return 2;
  }
}

static int parse(prof_opts *o, int argc, char **argv)
{
  int c, rc;
  while ((c = getopt_long(argc, argv, "+o:n:qh", long_opts, NULL)) != -1)
    if ((rc = option(o, c, optarg)) != 0)
      return rc;
  o->cmd = argv + optind;
  o->ncmd = argc - optind;
  if (!o->collect == !o->ncmd) {
    fprintf(stderr, "morph prof: give either a COMMAND after -- or --collect DIR\n%s",
            usage_text);
    return 2;
  }
  return 0;
}

/* "PREFIX.bytes.mtx" for the first world, "PREFIX.world<k>.bytes.mtx"
 * for the others (spawned groups, relaunches). */
static void out_name(char *buf, size_t size, const prof_opts *o, int world, const char *what)
{
  if (world == 0)
    snprintf(buf, size, "%s.%s", o->prefix, what);
  else
    snprintf(buf, size, "%s.world%d.%s", o->prefix, world + 1, what);
}

static void summary(const prof_opts *o, const morph_comm_matrix *m, int world)
{
  const morph_cm_origin *g = &m->origin;
  if (!o->quiet)
    printf("morph prof: world %d%s: %d processes, %" PRIu64 " bytes in %" PRIu64
           " messages (%d finished, %d exited, %d crashed, %d missing); outside the matrix: %"
           PRIu64 " bytes to other worlds, %" PRIu64 " calls not attributed\n",
           world + 1, g->spawned ? " (spawned)" : "", m->n, morph_comm_matrix_total(m, MORPH_CM_BYTES),
           morph_comm_matrix_total(m, MORPH_CM_MSGS), g->finished, g->exited, g->crashed,
           g->missing, g->external_bytes, g->uncounted);
  if (g->crashed || g->missing)
    fprintf(stderr, "morph prof: warning: world %d: %d process(es) reached neither MPI_Finalize "
                    "nor exit() (crashed, killed, or ended with _exit as libmorph's leavers do) "
                    "and %d left no file: their counts stop at their last MPI call\n",
            world + 1, g->crashed, g->missing);
}

static int write_world(const prof_opts *o, morph_comm_matrix *m, int world)
{
  char path[PATH_MAX], title[256];
  out_name(path, sizeof path, o, world, "bytes.mtx");
  int rc = morph_comm_matrix_save(m, path, MORPH_CM_BYTES);
  if (!rc) {
    out_name(path, sizeof path, o, world, "msgs.mtx");
    rc = morph_comm_matrix_save(m, path, MORPH_CM_MSGS);
  }
  if (!rc && o->plot) {
    out_name(path, sizeof path, o, world, "png");
    snprintf(title, sizeof title, "bytes sent, world %d (%d processes)", world + 1, m->n);
    if (morph_comm_matrix_plot(m, path, MORPH_CM_BYTES, title) != MORPH_OK)
      fprintf(stderr, "morph prof: warning: no heatmap: %s\n", morph_comm_matrix_errmsg(m));
  }
  if (rc)
    fprintf(stderr, "morph prof: %s\n", morph_comm_matrix_errmsg(m));
  summary(o, m, world);
  return rc;
}

static int collect(const prof_opts *o, const char *dir)
{
  morph_comm_matrix **w;
  int n, rc;
  char err[600];
  if ((rc = morph_prof_collect(dir, &w, &n, err, sizeof err)) != MORPH_OK) {
    fprintf(stderr, "morph prof: %s\n", err);
    return 1;
  }
  for (int i = 0; i < n && !rc; i++)
    rc = write_world(o, w[i], i);
  morph_prof_collect_free(w, n);
  return rc ? 1 : 0;
}

int main(int argc, char **argv)
{
  /* getopt's messages begin with argv[0]: the command as typed, not our path. */
  argv[0] = (char *)"morph prof";
  prof_opts o = {.prefix = "prof", .plot = 1};
  int rc = parse(&o, argc, argv);
  if (rc)
    return rc == 1 ? 0 : 2;
  if (o.collect)
    return collect(&o, o.collect);
  char dir[PATH_MAX];
  if (o.dir)
    snprintf(dir, sizeof dir, "%s", o.dir);
  else
    snprintf(dir, sizeof dir, "%s.ranks", o.prefix);
  int status;
  if (prof_run(&o, dir, &status) != 0)
    return 2;
  rc = collect(&o, dir);
  if (status != 0)
    fprintf(stderr, "morph prof: the program exited with status %d; the matrix holds what it "
                    "sent until then\n", status);
  return status ? status : rc;
}
