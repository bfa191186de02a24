/*
 * tofa-bench: the pieces of paper 004's SimGrid study that bench/
 * reproduce-tofa.sh strings together around smpirun.
 *
 *   tofa-bench place    --torus XxYxZ --matrix M.mtx --strategy S [--faults F]
 *                       [--seed N] [--old HOSTFILE --migration C] -o HOSTFILE
 *       a placement (rank r on line r of HOSTFILE); prints its report;
 *   tofa-bench platform --torus XxYxZ --hostfile H [--failed F] -o PLATFORM.xml
 *       a SimGrid platform: the job's hosts, the torus links its routes use
 *       (10 Gbps, 1 us, full duplex, 6 Gflops hosts: section 5), and one
 *       dimension-order route per ordered pair of hosts, exactly the routes
 *       the mapping assumed; the links of failed nodes get zero bandwidth;
 *   tofa-bench faults   --torus XxYxZ --count K --pf P --seed N -o F
 *       K distinct random nodes with outage probability P (a batch's Nf);
 *   tofa-bench batch    --torus XxYxZ --matrix M.mtx --hostfile H --faults F
 *                       --time T [--instances N] [--seed N] [--draws-out FILE]
 *       N instances run one after another; each run, every node of F fails
 *       with its probability (independently, a new draw per run); a run
 *       whose job touches a failed node (a rank on it, or a route through
 *       it) aborts and is restarted, costing a whole run time T (section
 *       5.2). Prints runs, aborts and the batch completion time;
 *       --draws-out writes the first draws and their verdicts, so that the
 *       script can check them with real SMPI runs.
 *
 * Node names are node0..node<n-1>, x fastest, as morph_topo_torus makes
 * them.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "morph/map.h"
#include "morph/prof.h"

typedef struct args {
  int dims[3];
  const char *matrix, *strategy, *faults, *out, *hostfile, *failed, *old, *draws_out;
  double migration, pf, time;
  int count, instances;
  unsigned seed;
} args;

static void die(const char *fmt, const char *arg)
{
  fprintf(stderr, "tofa-bench: ");
  fprintf(stderr, fmt, arg);
  fputc('\n', stderr);
  exit(2);
}

static void parse(int argc, char **argv, args *a)
{
  for (int i = 2; i < argc; i += 2) {
    const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!v)
      die("%s needs a value", k);
    if (!strcmp(k, "--torus") && sscanf(v, "%dx%dx%d", &a->dims[0], &a->dims[1], &a->dims[2]) == 3)
      continue;
    if (!strcmp(k, "--matrix")) a->matrix = v;
    else if (!strcmp(k, "--strategy")) a->strategy = v;
    else if (!strcmp(k, "--faults")) a->faults = v;
    else if (!strcmp(k, "-o")) a->out = v;
    else if (!strcmp(k, "--hostfile")) a->hostfile = v;
    else if (!strcmp(k, "--failed")) a->failed = v;
    else if (!strcmp(k, "--old")) a->old = v;
    else if (!strcmp(k, "--draws-out")) a->draws_out = v;
    else if (!strcmp(k, "--migration")) a->migration = atof(v);
    else if (!strcmp(k, "--pf")) a->pf = atof(v);
    else if (!strcmp(k, "--time")) a->time = atof(v);
    else if (!strcmp(k, "--count")) a->count = atoi(v);
    else if (!strcmp(k, "--instances")) a->instances = atoi(v);
    else if (!strcmp(k, "--seed")) a->seed = (unsigned)strtoul(v, NULL, 10);
    else die("unknown option or bad value: %s", k);
  }
}

static morph_topo *torus(const args *a)
{
  morph_topo *t;
  if (morph_topo_create(&t) || morph_topo_torus(t, a->dims[0], a->dims[1], a->dims[2]))
    die("bad --torus (XxYxZ)%s", "");
  return t;
}

static morph_faults *faults(const morph_topo *t, const char *path)
{
  morph_faults *f;
  if (morph_faults_create(t, &f))
    die("out of memory%s", "");
  if (path && morph_faults_load(f, t, path))
    die("%s", morph_faults_errmsg(f));
  return f;
}

static morph_comm_matrix *matrix(const char *path)
{
  morph_comm_matrix *m;
  if (!path || morph_comm_matrix_create(0, &m) || morph_comm_matrix_load(m, path, MORPH_CM_BYTES))
    die("cannot read the matrix: %s", path ? morph_comm_matrix_errmsg(m) : "--matrix missing");
  return m;
}

/* A hostfile of node names, one rank per line. */
static int *read_hosts(const morph_topo *t, const char *path, int *n)
{
  FILE *f = fopen(path ? path : "", "r");
  char name[256];
  int cap = 64, *node = malloc(sizeof(int) * (size_t)cap);
  if (!f || !node)
    die("cannot read the hostfile %s", path ? path : "(none)");
  for (*n = 0; fscanf(f, "%255s", name) == 1; (*n)++) {
    if (*n == cap && !(node = realloc(node, sizeof(int) * (size_t)(cap *= 2))))
      die("out of memory%s", "");
    if ((node[*n] = morph_topo_find(t, name)) < 0)
      die("no node named %s in the torus", name);
  }
  fclose(f);
  return node;
}

static uint64_t next(uint64_t *s)
{
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static double uniform01(uint64_t *s) { return (double)(next(s) >> 11) / 9007199254740992.0; }

static int cmd_place(const args *a)
{
  morph_topo *t = torus(a);
  morph_faults *f = faults(t, a->faults);
  morph_comm_matrix *m = matrix(a->matrix);
  morph_map_input in = {.topo = t, .faults = f, .nprocs = m->n, .traffic = m->bytes,
                        .traffic_n = m->n, .seed = a->seed};
  morph_map_strategy s = MORPH_MAP_TOFA;
  morph_map_report rep;
  int *node = malloc(sizeof(int) * (size_t)m->n), rc, n_old = 0;
  if (a->strategy && morph_map_strategy_parse(a->strategy, &s) && strcmp(a->strategy, "remap"))
    die("unknown strategy %s", a->strategy);
  if (a->strategy && !strcmp(a->strategy, "remap")) {
    int *old = read_hosts(t, a->old, &n_old);
    if (n_old != m->n)
      die("--old must place every rank%s", "");
    rc = morph_map_remap(&in, old, a->migration, node, &rep);
    free(old);
  } else {
    rc = morph_map_compute(s, &in, node, &rep);
  }
  if (rc)
    die("%s", rep.msg);
  FILE *o = a->out ? fopen(a->out, "w") : stdout;
  for (int r = 0; o && r < m->n; r++)
    fprintf(o, "%s\n", morph_topo_node_name(t, node[r]));
  if (o && o != stdout)
    fclose(o);
  printf("strategy=%s used=%s cost=%.0f on_faulty=%d window=%d box=%dx%dx%d moved=%d fallback=%d%s%s\n",
         a->strategy ? a->strategy : "tofa", morph_map_strategy_name(rep.used), rep.cost, rep.on_faulty,
         rep.tofa_window, rep.box[0], rep.box[1], rep.box[2], rep.moved, rep.fallback,
         rep.msg[0] ? " msg=" : "", rep.msg);
  return 0;
}

/* A torus link and its direction: link L<u>_<k> joins u and its +1
 * neighbour along dimension k (in a dimension of size 2 only coordinate 0
 * owns one, so the pair has a single link). */
static void link_of(const morph_topo *t, morph_link l, int *owner, int *dim, int *up)
{
  int d[3], a[3], b[3];
  *owner = l.from, *dim = 0, *up = 1; /* routes only join neighbours: overwritten below */
  morph_topo_dims(t, d);
  morph_topo_coords(t, l.from, a);
  morph_topo_coords(t, l.to, b);
  for (int k = 0; k < 3; k++) {
    if (a[k] == b[k])
      continue;
    *dim = k;
    int plus = (a[k] + 1) % d[k] == b[k];
    *up = plus && (d[k] > 2 || a[k] == 0);
    *owner = *up ? l.from : l.to;
    return;
  }
}

static int cmd_platform(const args *a)
{
  morph_topo *t = torus(a);
  int n, nn = morph_topo_nodes(t), max = morph_topo_max_hops(t), nf = 0;
  int *host = read_hosts(t, a->hostfile, &n), *failed_list = a->failed ? read_hosts(t, a->failed, &nf) : NULL;
  unsigned char *used = calloc((size_t)nn * 3, 1), *failed = calloc((size_t)nn, 1);
  morph_link *l = malloc(sizeof *l * (size_t)(max > 0 ? max : 1));
  FILE *o = fopen(a->out ? a->out : "", "w");
  if (!used || !failed || !l || !o)
    die("cannot write the platform %s", a->out ? a->out : "(no -o)");
  for (int i = 0; i < nf; i++)
    failed[failed_list[i]] = 1;
  fprintf(o, "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
             "<platform version=\"4.1\">\n<!-- %dx%dx%d torus, dimension-order routes: tofa-bench -->\n"
             "<zone id=\"torus\" routing=\"Full\">\n", a->dims[0], a->dims[1], a->dims[2]);
  for (int i = 0; i < n; i++)
    fprintf(o, "  <host id=\"%s\" speed=\"6Gf\"/>\n", morph_topo_node_name(t, host[i]));
  for (int i = 0; i < n; i++) /* which links the routes use */
    for (int j = 0; j < n; j++) {
      int hops = i == j ? 0 : morph_topo_route(t, host[i], host[j], l, max), owner, dim, up;
      for (int h = 0; h < hops; h++) {
        link_of(t, l[h], &owner, &dim, &up);
        used[owner * 3 + dim] = 1;
      }
    }
  for (int v = 0; v < nn; v++)
    for (int k = 0; k < 3; k++) {
      if (!used[v * 3 + k])
        continue;
      int d[3], c[3], w;
      morph_topo_dims(t, d);
      morph_topo_coords(t, v, c);
      c[k] = (c[k] + 1) % d[k];
      w = c[0] + d[0] * (c[1] + d[1] * c[2]);
      fprintf(o, "  <link id=\"L%d_%d\" bandwidth=\"%s\" latency=\"1us\" sharing_policy=\"SPLITDUPLEX\"/>\n",
              v, k, failed[v] || failed[w] ? "0Bps" : "10Gbps");
    }
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      if (i == j)
        continue;
      int hops = morph_topo_route(t, host[i], host[j], l, max), owner, dim, up;
      fprintf(o, "  <route src=\"%s\" dst=\"%s\" symmetrical=\"NO\">", morph_topo_node_name(t, host[i]),
              morph_topo_node_name(t, host[j]));
      for (int h = 0; h < hops; h++) {
        link_of(t, l[h], &owner, &dim, &up);
        fprintf(o, "<link_ctn id=\"L%d_%d\" direction=\"%s\"/>", owner, dim, up ? "UP" : "DOWN");
      }
      fprintf(o, "</route>\n");
    }
  fprintf(o, "</zone>\n</platform>\n");
  return fclose(o) == 0 ? 0 : 1;
}

static int cmd_faults(const args *a)
{
  morph_topo *t = torus(a);
  int n = morph_topo_nodes(t);
  uint64_t s = a->seed;
  unsigned char *pick = calloc((size_t)n, 1);
  FILE *o = fopen(a->out ? a->out : "", "w");
  if (!pick || !o || a->count < 0 || a->count > n)
    die("bad --count or -o %s", a->out ? a->out : "");
  for (int k = 0; k < a->count;) {
    int v = (int)(next(&s) % (uint64_t)n);
    if (!pick[v]) {
      pick[v] = 1;
      fprintf(o, "%s %g\n", morph_topo_node_name(t, v), a->pf);
      k++;
    }
  }
  return fclose(o) == 0 ? 0 : 1;
}

/* One run's failed nodes: each faulty node fails with its probability. */
static int draw(const morph_faults *f, int n, uint64_t *s, unsigned char *failed)
{
  int any = 0;
  for (int v = 0; v < n; v++) {
    double p = morph_faults_get(f, v);
    failed[v] = p > 0 && uniform01(s) < p;
    any |= failed[v];
  }
  return any;
}

/* Draws with at least one failed node, written for the script to run for
 * real: "touches node7 node99" (the failed nodes, and the model's verdict). */
static void log_draw(FILE *o, const morph_topo *t, const unsigned char *failed, const unsigned char *touched)
{
  int n = morph_topo_nodes(t), hit = 0;
  for (int v = 0; v < n; v++)
    hit |= failed[v] && touched[v];
  fprintf(o, "%s", hit ? "aborts" : "survives");
  for (int v = 0; v < n; v++)
    if (failed[v])
      fprintf(o, " %s", morph_topo_node_name(t, v));
  fputc('\n', o);
}

static int cmd_batch(const args *a)
{
  morph_topo *t = torus(a);
  morph_faults *f = faults(t, a->faults);
  morph_comm_matrix *m = matrix(a->matrix);
  int nranks, n = morph_topo_nodes(t), instances = a->instances > 0 ? a->instances : 100, logged = 0;
  int *node = read_hosts(t, a->hostfile, &nranks);
  if (nranks != m->n || !(a->time > 0))
    die("the hostfile must place every rank of the matrix, and --time must be > 0%s", "");
  morph_map_input in = {.topo = t, .faults = f, .nprocs = m->n, .traffic = m->bytes, .traffic_n = m->n};
  unsigned char *touched = malloc((size_t)n), *failed = malloc((size_t)n);
  if (!touched || !failed || morph_map_footprint(&in, node, touched))
    die("out of memory%s", "");
  FILE *log = a->draws_out ? fopen(a->draws_out, "w") : NULL;
  uint64_t s = a->seed, runs = 0, aborts = 0, footprint = 0;
  for (int v = 0; v < n; v++)
    footprint += touched[v];
  for (int i = 0; i < instances; i++) {
    for (int attempt = 0; attempt < 100000; attempt++) {
      int any = draw(f, n, &s, failed), hit = 0;
      for (int v = 0; any && v < n; v++)
        hit |= failed[v] && touched[v];
      if (any && log && logged++ < 20)
        log_draw(log, t, failed, touched);
      runs++;
      if (!hit)
        break;
      aborts++;
    }
  }
  if (log)
    fclose(log);
  printf("instances=%d runs=%" PRIu64 " aborts=%" PRIu64 " abort_ratio=%.4f batch_time=%.6f "
         "footprint=%" PRIu64 "\n", instances, runs, aborts, (double)aborts / (double)runs,
         a->time * (double)runs, footprint);
  return 0;
}

int main(int argc, char **argv)
{
  args a = {.migration = 1, .pf = 0.02};
  if (argc < 2)
    die("usage: tofa-bench place|platform|faults|batch [options] (see the source)%s", "");
  parse(argc, argv, &a);
  if (!strcmp(argv[1], "place"))
    return cmd_place(&a);
  if (!strcmp(argv[1], "platform"))
    return cmd_platform(&a);
  if (!strcmp(argv[1], "faults"))
    return cmd_faults(&a);
  if (!strcmp(argv[1], "batch"))
    return cmd_batch(&a);
  die("unknown command %s", argv[1]);
  return 2;
}
