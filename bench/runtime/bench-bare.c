/*
 * bench-bare: the two references of the reconfiguration benchmark, in
 * plain MPI (no libmorph, no launcher, no pause before the spawn).
 *
 *   mpirun -n OLD bench-bare --mode bare|respawn --old OLD --new NEW --bytes B
 *          [--thread-multiple] [--host HOST:N]
 *
 * The job holds B bytes of doubles in blocks over OLD processes (element g
 * holds g) and moves them to blocks over NEW processes, as a programmer
 * would by hand:
 *
 *  - bare, NEW > OLD: MPI_Comm_spawn the NEW - OLD missing processes,
 *    MPI_Intercomm_merge, one MPI_Alltoallv to the new layout;
 *  - bare, NEW < OLD: one MPI_Alltoallv to the new layout, then
 *    MPI_Comm_split off the stayers (the leavers finalize afterwards);
 *  - respawn (paper 000's approach): MPI_Comm_spawn NEW fresh processes,
 *    merge, the OLD processes send all the data to them with one
 *    MPI_Alltoallv, and the OLD processes leave.
 *
 * --host HOST:N spawns with Open MPI's info key "host" (bench/cluster.sh:
 * the joiners go onto another host, as morph's do).
 *
 * Times are taken on rank 0 between barriers, from the start of the
 * reconfiguration to the moment every new owner holds its data (the old
 * processes of a respawn leaving afterwards is not counted, which only
 * favours the reference). Rank 0 prints
 *   BARE mode=bare old=2 new=4 bytes=.. t_spawn=.. t_redist=.. t_commit=.. errors=0
 *        hosts=node1,node1,node2,node2
 * (hosts: where each process of the exchange runs, in rank order,
 * gathered after the timed part).
 * Every receiver checks a sample of what it got (not timed).
 */
#include <getopt.h>
#include <limits.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct cfg {
  int respawn, old, now, child, thread_multiple;
  int64_t global;   /* doubles */
  const char *host; /* info "host" of the spawn; NULL: none */
} cfg;

#define HOST_LEN 64 /* a processor name in the hosts= list */

static void parse(cfg *c, int argc, char **argv)
{
  static const struct option opts[] = {
    {"mode", required_argument, 0, 'm'},  {"old", required_argument, 0, 'o'},
    {"new", required_argument, 0, 'n'},   {"bytes", required_argument, 0, 'b'},
    {"child", no_argument, 0, 'c'},       {"thread-multiple", no_argument, 0, 't'},
    {"host", required_argument, 0, 'H'},  {0, 0, 0, 0}};
  memset(c, 0, sizeof *c);
  c->old = 2, c->now = 4, c->global = (1 << 20) / 8;
  for (int o; (o = getopt_long(argc, argv, "m:o:n:b:ctH:", opts, NULL)) != -1;) {
    if (o == 'm')
      c->respawn = !strcmp(optarg, "respawn");
    else if (o == 'o')
      c->old = atoi(optarg);
    else if (o == 'n')
      c->now = atoi(optarg);
    else if (o == 'b')
      c->global = atoll(optarg) / (int64_t)sizeof(double);
    else if (o == 'c')
      c->child = 1;
    else if (o == 't')
      c->thread_multiple = 1;
    else if (o == 'H')
      c->host = optarg;
  }
}

/* First element of rank r of P in a block layout of g elements (the same
 * split as libmorph: sizes differ by at most one). */
static int64_t block_off(int64_t g, int r, int p)
{
  int64_t q = g / p, s = g % p;
  return (int64_t)r * q + ((int64_t)r * s) / p;
}

static int64_t overlap(int64_t a0, int64_t a1, int64_t b0, int64_t b1)
{
  int64_t lo = a0 > b0 ? a0 : b0, hi = a1 < b1 ? a1 : b1;
  return hi > lo ? hi - lo : 0;
}

/* Where the old and new owners sit in the communicator of the exchange. */
typedef struct layout {
  int old_first, new_first; /* rank of old owner 0 and of new owner 0 */
  int old_n, new_n;
} layout;

/* Counts and displacements (in doubles) of rank `me` for one Alltoallv
 * from the old block layout to the new one. */
static void exchange_counts(const cfg *c, const layout *l, int me, int size, int *sc, int *sd,
                            int *rc, int *rd)
{
  int o = me - l->old_first, n = me - l->new_first;
  int64_t g = c->global;
  int64_t mo0 = o >= 0 && o < l->old_n ? block_off(g, o, l->old_n) : 0;
  int64_t mo1 = o >= 0 && o < l->old_n ? block_off(g, o + 1, l->old_n) : 0;
  int64_t mn0 = n >= 0 && n < l->new_n ? block_off(g, n, l->new_n) : 0;
  int64_t mn1 = n >= 0 && n < l->new_n ? block_off(g, n + 1, l->new_n) : 0;
  for (int p = 0; p < size; p++) {
    int po = p - l->old_first, pn = p - l->new_first;
    int64_t s = 0, r = 0, sdisp = 0, rdisp = 0;
    if (pn >= 0 && pn < l->new_n && mo1 > mo0) {
      int64_t b0 = block_off(g, pn, l->new_n), b1 = block_off(g, pn + 1, l->new_n);
      s = overlap(mo0, mo1, b0, b1);
      sdisp = s ? (b0 > mo0 ? b0 : mo0) - mo0 : 0;
    }
    if (po >= 0 && po < l->old_n && mn1 > mn0) {
      int64_t b0 = block_off(g, po, l->old_n), b1 = block_off(g, po + 1, l->old_n);
      r = overlap(mn0, mn1, b0, b1);
      rdisp = r ? (b0 > mn0 ? b0 : mn0) - mn0 : 0;
    }
    sc[p] = (int)s, sd[p] = (int)sdisp, rc[p] = (int)r, rd[p] = (int)rdisp;
  }
}

/* One Alltoallv over `comm`; *out receives the new part (NULL if none). */
static int exchange(const cfg *c, const layout *l, MPI_Comm comm, const double *old,
                    double **out, int64_t *out_n)
{
  int me, size;
  MPI_Comm_rank(comm, &me);
  MPI_Comm_size(comm, &size);
  int *v = malloc(4 * (size_t)size * sizeof *v);
  if (!v)
    return 1;
  exchange_counts(c, l, me, size, v, v + size, v + 2 * size, v + 3 * size);
  int n = me - l->new_first;
  *out_n = n >= 0 && n < l->new_n
               ? block_off(c->global, n + 1, l->new_n) - block_off(c->global, n, l->new_n)
               : 0;
  *out = malloc((size_t)(*out_n + 1) * sizeof **out);
  int err = !*out || MPI_Alltoallv(old, v, v + size, MPI_DOUBLE, *out, v + 2 * size,
                                   v + 3 * size, MPI_DOUBLE, comm) != MPI_SUCCESS;
  free(v);
  return err;
}

/* A sample (every 4093rd element and the last), as in bench-reconf. */
static int check_part(const cfg *c, const layout *l, int me, const double *a, int64_t n)
{
  int64_t off = block_off(c->global, me - l->new_first, l->new_n), errors = 0;
  for (int64_t i = 0; i < n; i += 4093)
    errors += a[i] != (double)(off + i);
  if (n > 0)
    errors += a[n - 1] != (double)(off + n - 1);
  return errors > 0;
}

static double *old_part(const cfg *c, int rank, int64_t *n)
{
  int64_t off = block_off(c->global, rank, c->old);
  *n = block_off(c->global, rank + 1, c->old) - off;
  double *a = malloc((size_t)(*n + 1) * sizeof *a);
  for (int64_t i = 0; a && i < *n; i++)
    a[i] = (double)(off + i);
  return a;
}

/* Spawns n copies of this program (child_argv: its arguments plus
 * --child) and merges them after the current processes. */
static MPI_Comm spawn_merge(const cfg *c, char **child_argv, int n)
{
  char exe[PATH_MAX];
  ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
  exe[len > 0 ? len : 0] = '\0';
  MPI_Comm inter, merged;
  MPI_Info info = MPI_INFO_NULL;
  if (c->host) {
    MPI_Info_create(&info);
    MPI_Info_set(info, "host", c->host);
  }
  MPI_Comm_spawn(exe, child_argv, n, info, 0, MPI_COMM_WORLD, &inter, MPI_ERRCODES_IGNORE);
  if (info != MPI_INFO_NULL)
    MPI_Info_free(&info);
  MPI_Intercomm_merge(inter, 0, &merged);
  MPI_Comm_free(&inter);
  return merged;
}

/* Rank 0 of comm gets every member's processor name, comma-separated, in
 * `out` (HOST_LEN per name); collective over comm, not timed. */
static void gather_hosts(MPI_Comm comm, char *out, size_t size)
{
  char me[HOST_LEN] = "", *all = NULL;
  int len, rank, n;
  MPI_Get_processor_name(me, &len);
  me[HOST_LEN - 1] = '\0';
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &n);
  if (rank == 0)
    all = calloc((size_t)n, HOST_LEN);
  MPI_Gather(me, HOST_LEN, MPI_CHAR, all, HOST_LEN, MPI_CHAR, 0, comm);
  if (!all)
    return;
  out[0] = '\0';
  for (int i = 0; i < n; i++) {
    size_t used = strlen(out);
    snprintf(out + used, size - used, "%s%s", i ? "," : "", all + (size_t)i * HOST_LEN);
  }
  free(all);
}

/* The exchange of every mode, seen from one process of comm. */
typedef struct times {
  double t0, spawn, redist, commit;
  char hosts[1024];
} times;

static int run_parent(const cfg *c, char **child_argv, times *t)
{
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int64_t n_old, n_new;
  double *old = old_part(c, rank, &n_old), *nw = NULL;
  int grow = c->now > c->old;
  layout l = {0, c->respawn ? c->old : 0, c->old, c->now};
  MPI_Barrier(MPI_COMM_WORLD);
  t->t0 = MPI_Wtime();
  MPI_Comm comm = MPI_COMM_WORLD;
  if (c->respawn || grow)
    comm = spawn_merge(c, child_argv, c->respawn ? c->now : c->now - c->old);
  t->spawn = MPI_Wtime();
  int err = exchange(c, &l, comm, old, &nw, &n_new);
  MPI_Barrier(comm);
  t->redist = MPI_Wtime();
  MPI_Comm stay = MPI_COMM_NULL;
  if (!c->respawn && !grow) {
    MPI_Comm_split(comm, rank < c->now ? 0 : MPI_UNDEFINED, rank, &stay);
    if (stay != MPI_COMM_NULL)
      MPI_Barrier(stay);
  }
  t->commit = MPI_Wtime();
  if (n_new > 0)
    err |= check_part(c, &l, rank, nw, n_new);
  MPI_Allreduce(MPI_IN_PLACE, &err, 1, MPI_INT, MPI_MAX, comm);
  gather_hosts(comm, t->hosts, sizeof t->hosts);
  if (stay != MPI_COMM_NULL)
    MPI_Comm_free(&stay);
  if (comm != MPI_COMM_WORLD)
    MPI_Comm_free(&comm);
  free(old);
  free(nw);
  return err;
}

static int run_child(const cfg *c)
{
  MPI_Comm parent, merged;
  MPI_Comm_get_parent(&parent);
  MPI_Intercomm_merge(parent, 1, &merged);
  MPI_Comm_free(&parent);
  int me;
  MPI_Comm_rank(merged, &me);
  layout l = {0, c->respawn ? c->old : 0, c->old, c->now};
  double *nw = NULL;
  int64_t n_new;
  int err = exchange(c, &l, merged, NULL, &nw, &n_new);
  MPI_Barrier(merged);
  if (n_new > 0)
    err |= check_part(c, &l, me, nw, n_new);
  MPI_Allreduce(MPI_IN_PLACE, &err, 1, MPI_INT, MPI_MAX, merged);
  gather_hosts(merged, NULL, 0);
  MPI_Comm_free(&merged);
  free(nw);
  return err;
}

int main(int argc, char **argv)
{
  cfg c;
  char *child_argv[32] = {0};
  for (int i = 1; i < argc && i < 30; i++)
    child_argv[i - 1] = argv[i];
  child_argv[argc < 31 ? argc - 1 : 29] = "--child";
  parse(&c, argc, argv);
  int provided;
  MPI_Init_thread(&argc, &argv, c.thread_multiple ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE,
                  &provided);
  int rank, err;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (c.child) {
    err = run_child(&c);
  } else {
    times t = {0};
    err = run_parent(&c, child_argv, &t);
    if (rank == 0)
      printf("BARE mode=%s old=%d new=%d bytes=%lld t_spawn=%.6f t_redist=%.6f t_commit=%.6f "
             "errors=%d hosts=%s\n", c.respawn ? "respawn" : "bare", c.old, c.now,
             (long long)c.global * (long long)sizeof(double), t.spawn - t.t0, t.redist - t.spawn,
             t.commit - t.redist, err, t.hosts);
  }
  MPI_Finalize();
  return err;
}
