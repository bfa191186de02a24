/*
 * resize-check: a malleable program whose every registered datum is a known
 * function of its global index and of the iteration, so that after any
 * sequence of reconfigurations each process can verify every element it
 * holds. Used by the runtime tests under `morph run` with schedules.
 *
 *   resize-check [-n ITERS] [-g GLOBAL] [-s SLEEP_MS] [--mismatch]
 *                [--fault joiner-hang|joiner-die|leaver-die|write-constant|abort]
 *                [--thread single|multiple] [--overlap K]
 *
 * --thread single initialises MPI with plain MPI_Init (as paper 000's
 * listings do). --overlap K resizes with morph_begin_overlap: the constant
 * block-cyclic array "k" (k[g] = 3g) moves in the background while up to K
 * iterations run at the old size; write-constant writes k inside that
 * window anyway, which morph must catch (the window rolls back).
 *
 * Faults, for the fault tests: joiners hang before joining (the spawn
 * times out), joiner rank 3 dies inside the adaptation window, rank 3
 * of 4 dies while handing its data over, or (abort) the last rank calls
 * MPI_Abort at iteration 10 while the others go on.
 *
 * Exit 0 and "CHECK PASSED" if all data stayed correct; 1 otherwise.
 */
#include <dirent.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "morph.h"

typedef struct particle {
  int64_t id;
  double x;
} particle;

typedef struct app {
  int64_t iter, iters, global;
  double sleep_ms;
  int mismatch;
  const char *fault;
  morph_ctx *m;
  double *a;        /* block: a[g] = g + iter */
  int64_t *b;       /* block-cyclic (block 3): b[g] = 2g - iter */
  int64_t *k;       /* block-cyclic (block 5), constant: k[g] = 3g */
  int overlap;      /* --overlap K (0: morph_point) */
  int single;       /* --thread single */
  int flipped;      /* write-constant: k[0] is flipped inside the window */
  particle *v;      /* varcount: ids in global order, x = id * 0.5 + iter */
  int64_t nv;
  int64_t tokens[64]; /* callbacks: tokens this process owns */
  int ntokens;
  int64_t token_sum;  /* replicated: expected sum of all tokens */
  int errors;
} app;

static int faulty(const app *s, const char *name)
{
  return s->fault && !strcmp(s->fault, name);
}

static int pack(void *arg, void **blob, size_t *len)
{
  app *s = arg;
  if (faulty(s, "leaver-die") && morph_size(s->m) == 4 && morph_rank(s->m) == 3)
    raise(SIGKILL);
  *len = (size_t)s->ntokens * sizeof(int64_t);
  *blob = malloc(*len + 1);
  if (!*blob)
    return MORPH_ENOMEM;
  memcpy(*blob, s->tokens, *len);
  return MORPH_OK;
}

static int unpack(void *arg, int nblobs, void *const *blobs, const size_t *lens)
{
  app *s = arg;
  s->ntokens = 0;
  for (int i = 0; i < nblobs; i++)
    for (size_t k = 0; k < lens[i] / sizeof(int64_t) && s->ntokens < 64; k++)
      s->tokens[s->ntokens++] = ((const int64_t *)blobs[i])[k];
  return MORPH_OK;
}

static MPI_Datatype particle_type(void)
{
  MPI_Datatype t;
  int lens[2] = {1, 1};
  MPI_Aint disp[2] = {offsetof(particle, id), offsetof(particle, x)};
  MPI_Datatype types[2] = {MPI_INT64_T, MPI_DOUBLE};
  MPI_Type_create_struct(2, lens, disp, types, &t);
  MPI_Type_commit(&t);
  return t;
}

static void fail(app *s, morph_ctx *m, const char *what, int64_t g, double got, double want)
{
  if (s->errors++ < 5)
    fprintf(stderr, "rank %d it %lld: %s[%lld] = %g, expected %g\n", morph_rank(m),
            (long long)s->iter, what, (long long)g, got, want);
}

static void verify(app *s, morph_ctx *m)
{
  int64_t off = morph_local_offset(m, "a"), n = morph_local_count(m, "a");
  for (int64_t i = 0; i < n; i++)
    if (s->a[i] != (double)(off + i + s->iter))
      fail(s, m, "a", off + i, s->a[i], (double)(off + i + s->iter));
  int P = morph_size(m), r = morph_rank(m);
  int64_t k = 0;
  for (int64_t blk = r; blk * 3 < s->global; blk += P)
    for (int64_t g = blk * 3; g < blk * 3 + 3 && g < s->global; g++, k++)
      if (s->b[k] != 2 * g - s->iter)
        fail(s, m, "b", g, (double)s->b[k], (double)(2 * g - s->iter));
  k = 0;
  for (int64_t blk = r; blk * 5 < s->global; blk += P)
    for (int64_t g = blk * 5; g < blk * 5 + 5 && g < s->global; g++, k++)
      if (s->k[k] != 3 * g)
        fail(s, m, "k", g, (double)s->k[k], (double)(3 * g));
  int64_t voff = morph_local_offset(m, "v");
  for (int64_t i = 0; i < s->nv; i++)
    if (s->v[i].id != voff + i || s->v[i].x != (double)(voff + i) * 0.5 + (double)s->iter)
      fail(s, m, "v", voff + i, (double)s->v[i].id, (double)(voff + i));
  int64_t sum = 0, all = 0;
  for (int i = 0; i < s->ntokens; i++)
    sum += s->tokens[i];
  MPI_Allreduce(&sum, &all, 1, MPI_INT64_T, MPI_SUM, morph_comm(m));
  if (all != s->token_sum)
    fail(s, m, "tokens", 0, (double)all, (double)s->token_sum);
}

static void init(app *s, morph_ctx *m)
{
  int64_t off = morph_local_offset(m, "a"), n = morph_local_count(m, "a");
  for (int64_t i = 0; i < n; i++)
    s->a[i] = (double)(off + i);
  int P = morph_size(m), r = morph_rank(m);
  int64_t k = 0;
  for (int64_t blk = r; blk * 3 < s->global; blk += P)
    for (int64_t g = blk * 3; g < blk * 3 + 3 && g < s->global; g++)
      s->b[k++] = 2 * g;
  k = 0;
  for (int64_t blk = r; blk * 5 < s->global; blk += P)
    for (int64_t g = blk * 5; g < blk * 5 + 5 && g < s->global; g++)
      s->k[k++] = 3 * g;
  /* Uneven varcount parts: rank r holds 2r + 1 particles, ids in order. */
  s->nv = 2 * r + 1;
  s->v = malloc((size_t)s->nv * sizeof *s->v);
  int64_t first = (int64_t)r * r;
  for (int64_t i = 0; i < s->nv; i++)
    s->v[i] = (particle){first + i, (double)(first + i) * 0.5};
  s->ntokens = 2;
  s->tokens[0] = 10 * r + 1, s->tokens[1] = 10 * r + 2;
  int64_t sum = s->tokens[0] + s->tokens[1];
  MPI_Allreduce(&sum, &s->token_sum, 1, MPI_INT64_T, MPI_SUM, morph_comm(m));
}

static void step(app *s, morph_ctx *m)
{
  int64_t n = morph_local_count(m, "a"), nb = morph_local_count(m, "b");
  for (int64_t i = 0; i < n; i++)
    s->a[i] += 1.0;
  for (int64_t i = 0; i < nb; i++)
    s->b[i] -= 1;
  for (int64_t i = 0; i < s->nv; i++)
    s->v[i].x += 1.0;
  if (s->sleep_ms > 0)
    usleep((useconds_t)(s->sleep_ms * 1000));
}

static void parse(app *s, int argc, char **argv)
{
  static const struct option opts[] = {{"iterations", required_argument, 0, 'n'},
                                       {"global", required_argument, 0, 'g'},
                                       {"sleep", required_argument, 0, 's'},
                                       {"mismatch", no_argument, 0, 'm'},
                                       {"fault", required_argument, 0, 'f'},
                                       {"thread", required_argument, 0, 't'},
                                       {"overlap", required_argument, 0, 'o'},
                                       {0, 0, 0, 0}};
  s->iters = 100, s->global = 1000;
  for (int c; (c = getopt_long(argc, argv, "n:g:s:m", opts, NULL)) != -1;) {
    if (c == 'n')
      s->iters = atoll(optarg);
    else if (c == 'g')
      s->global = atoll(optarg);
    else if (c == 's')
      s->sleep_ms = atof(optarg);
    else if (c == 'm')
      s->mismatch = 1;
    else if (c == 'f')
      s->fault = optarg;
    else if (c == 't')
      s->single = !strcmp(optarg, "single");
    else if (c == 'o')
      s->overlap = atoi(optarg);
  }
}

static int register_all(app *s, morph_ctx *m, MPI_Datatype pt)
{
  morph_callbacks cb = {pack, unpack, s};
  /* --mismatch: joiners register a different size, to test detection. */
  int64_t g = s->mismatch && morph_get_status(m) == MORPH_JOINING ? s->global + 1 : s->global;
  int rc = morph_data_replicated(m, "iter", &s->iter, 1, MPI_INT64_T);
  if (!rc)
    rc = morph_data_replicated(m, "token_sum", &s->token_sum, 1, MPI_INT64_T);
  if (!rc)
    rc = morph_data_block(m, "a", (void **)&s->a, g, MPI_DOUBLE);
  if (!rc)
    rc = morph_data_block_cyclic(m, "b", (void **)&s->b, s->global, 3, MPI_INT64_T);
  if (!rc)
    rc = morph_data_varcount(m, "v", (void **)&s->v, &s->nv, pt);
  if (!rc)
    rc = morph_data_callbacks(m, "tokens", &cb);
  if (!rc)
    rc = morph_data_block_cyclic(m, "k", (void **)&s->k, s->global, 5, MPI_INT64_T);
  if (!rc)
    rc = morph_data_set_constant(m, "k", 1);
  return rc;
}

/* The point: morph_point, or overlapped (--overlap K) with the window
 * open until the background transfers are done or K iterations ran.
 * *open tells whether a window is open on return. */
static int point(app *s, morph_ctx *m, int *open, int *k, morph_status *st)
{
  if (!s->overlap)
    return morph_point(m, st);
  int rc = MORPH_OK, done = 0;
  if (!*open) {
    morph_change ch;
    morph_window_info win;
    rc = morph_probe(m, &ch);
    if (rc == MORPH_OK && ch.pending)
      rc = morph_begin_overlap(m, &win);
    *st = morph_get_status(m);
    if (rc != MORPH_OK || !ch.pending)
      return rc;
    *open = 1, *k = 0;
    done = win.status == MORPH_JOINING || win.new_size == win.old_size;
  }
  if (!done)
    rc = morph_progress(m, &done);
  if (rc == MORPH_OK && (done || ++*k >= s->overlap)) {
    /* Against the promise, inside the window: the test of the check. */
    if (faulty(s, "write-constant") && morph_local_count(m, "k") > 0)
      s->k[0] ^= 1, s->flipped = 1;
    *open = 0;
    rc = morph_commit(m, MORPH_OK, st);
    rc = rc == MORPH_EABORTED ? MORPH_OK : rc;
    if (s->flipped) /* repaired, so that the check looks at morph's work */
      s->k[0] ^= 1, s->flipped = 0;
  }
  *st = morph_get_status(m);
  return rc;
}

/* Memory files of registered data (src/redist/part.h) still open after
 * morph_finalize: every window's parts, committed or rolled back, must
 * have been closed. Prints and returns how many. */
static int leaked_parts(void)
{
  int n = 0;
  DIR *d = opendir("/proc/self/fd");
  char path[64], target[256];
  for (struct dirent *e; d && (e = readdir(d));) {
    snprintf(path, sizeof path, "/proc/self/fd/%.32s", e->d_name);
    ssize_t len = readlink(path, target, sizeof target - 1);
    if (len > 0 && (target[len] = '\0', strstr(target, "morph-part")))
      n++;
  }
  if (d)
    closedir(d);
  if (n)
    fprintf(stderr, "LEAK: %d memory file(s) of registered data still open\n", n);
  return n;
}

int main(int argc, char **argv)
{
  app s;
  memset(&s, 0, sizeof s);
  int provided;
  /* getopt before MPI: the thread level is an option. */
  parse(&s, argc, argv);
  if (s.single)
    MPI_Init(&argc, &argv);
  else
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm parent;
  MPI_Comm_get_parent(&parent);
  if (parent != MPI_COMM_NULL && faulty(&s, "joiner-hang"))
    pause();
  morph_ctx *m;
  if (morph_open(MPI_COMM_WORLD, NULL, &m) != MORPH_OK) {
    MPI_Finalize();
    return 1;
  }
  s.m = m;
  if (parent != MPI_COMM_NULL && faulty(&s, "joiner-die") && morph_rank(m) == 3)
    raise(SIGKILL);
  MPI_Datatype pt = particle_type();
  int rc = register_all(&s, m, pt);
  if (rc != MORPH_OK) {
    fprintf(stderr, "registration failed: %s\n", morph_errmsg(m));
    return morph_finalize(m, 1);
  }
  if (morph_get_status(m) == MORPH_NEW)
    init(&s, m);
  int seen = 0, reconfigs = 0, broken = 0;
  morph_status st = MORPH_NEW;
  int open = 0, k = 0;
  for (; s.iter < s.iters; s.iter++) {
    if ((rc = point(&s, m, &open, &k, &st)) != MORPH_OK) {
      fprintf(stderr, "morph_point: %s: %s\n", morph_strerror(rc), morph_errmsg(m));
      s.errors++, broken = 1;
      break;
    }
    if (st == MORPH_LEAVING)
      break;
    morph_reconf_report rep;
    morph_last_report(m, &rep);
    if (!open && rep.seq != seen && morph_rank(m) == 0) {
      seen = rep.seq, reconfigs++;
      printf("it %lld: %s\n", (long long)s.iter, rep.message);
      fflush(stdout);
    }
    if (faulty(&s, "abort") && s.iter == 10 && morph_rank(m) == morph_size(m) - 1) {
      fprintf(stderr, "resize-check: giving up at iteration 10\n");
      MPI_Abort(morph_comm(m), 5);
    }
    verify(&s, m);
    step(&s, m);
  }
  if (open && !broken && st != MORPH_LEAVING) {
    rc = morph_commit(m, MORPH_OK, &st);
    broken = rc != MORPH_OK && rc != MORPH_EABORTED;
  }
  if (st != MORPH_LEAVING && !broken) {
    verify(&s, m);
    int errs = s.errors;
    MPI_Allreduce(MPI_IN_PLACE, &errs, 1, MPI_INT, MPI_SUM, morph_comm(m));
    if (morph_rank(m) == 0)
      printf("CHECK %s iterations=%lld size=%d reconfigurations=%d errors=%d\n",
             errs ? "FAILED" : "PASSED", (long long)s.iter, morph_size(m), reconfigs, errs);
    s.errors = errs;
  }
  MPI_Type_free(&pt);
  rc = morph_finalize(m, s.errors ? 1 : 0);
  return leaked_parts() ? 1 : rc;
}
