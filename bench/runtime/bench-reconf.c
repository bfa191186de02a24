/*
 * bench-reconf: the malleable side of the reconfiguration benchmark. One
 * block-distributed array of doubles (the job's whole registered data) and
 * an iteration loop that only paces itself and keeps the ranks together, so that what
 * `morph run --report` measures is the reconfiguration alone.
 *
 *   bench-reconf --bytes B [--iters N] [--sleep-ms S]
 *
 * Element g holds the value g wherever it lives; after every
 * reconfiguration (and at the end) each process checks a sample of its
 * elements (every 4093rd, and the last). Rank 0 prints one line per
 * reconfiguration it took part in, and after a relaunch the restore time
 * that only the restarted job knows:
 *
 *   RECONF old=2 new=4 mech=live t_spawn=.. t_redist=.. t_commit=.. bytes=..
 *   RESTORE new=4 t_restore=..
 *   CHECK PASSED size=2 errors=0
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "morph.h"

typedef struct bench {
  int64_t bytes, iters, iter;
  double sleep_ms;
  double *a;
  int errors;
} bench;

static void parse(bench *b, int argc, char **argv)
{
  static const struct option opts[] = {{"bytes", required_argument, 0, 'b'},
                                       {"iters", required_argument, 0, 'n'},
                                       {"sleep-ms", required_argument, 0, 's'},
                                       {0, 0, 0, 0}};
  b->bytes = 1 << 20, b->iters = 40, b->sleep_ms = 10;
  for (int c; (c = getopt_long(argc, argv, "b:n:s:", opts, NULL)) != -1;) {
    if (c == 'b')
      b->bytes = atoll(optarg);
    else if (c == 'n')
      b->iters = atoll(optarg);
    else if (c == 's')
      b->sleep_ms = atof(optarg);
  }
}

static void init(bench *b, morph_ctx *m)
{
  int64_t off = morph_local_offset(m, "a"), n = morph_local_count(m, "a");
  for (int64_t i = 0; i < n; i++)
    b->a[i] = (double)(off + i);
}

/* A sample is enough to catch misplaced blocks; a full pass over a GiB
 * after every change would dominate the run. */
static void verify_one(bench *b, morph_ctx *m, int64_t off, int64_t i)
{
  if (b->a[i] != (double)(off + i) && b->errors++ < 5)
    fprintf(stderr, "rank %d: a[%lld] = %g, expected %lld\n", morph_rank(m),
            (long long)(off + i), b->a[i], (long long)(off + i));
}

static void verify(bench *b, morph_ctx *m)
{
  int64_t off = morph_local_offset(m, "a"), n = morph_local_count(m, "a");
  for (int64_t i = 0; i < n; i += 4093)
    verify_one(b, m, off, i);
  if (n > 0)
    verify_one(b, m, off, n - 1);
}

/* Rank 0 prints what libmorph measured of the reconfiguration just done. */
static void print_report(morph_ctx *m, morph_status st)
{
  morph_reconf_report r;
  morph_last_report(m, &r);
  if (morph_rank(m) != 0)
    return;
  if (st == MORPH_JOINING)
    printf("RESTORE new=%d t_restore=%.6f\n", morph_size(m), r.t_redist);
  else
    printf("RECONF old=%d new=%d mech=%s outcome=%d t_spawn=%.6f t_redist=%.6f t_commit=%.6f "
           "bytes=%lld\n", r.old_size, r.new_size, morph_mechanism_name(r.mechanism), r.outcome,
           r.t_spawn, r.t_redist, r.t_commit, (long long)r.bytes_moved);
  fflush(stdout);
}

static int run(bench *b, morph_ctx *m)
{
  morph_status st = MORPH_NEW;
  int seen = 0;
  for (; b->iter < b->iters; b->iter++) {
    int rc = morph_point(m, &st);
    if (rc != MORPH_OK) {
      fprintf(stderr, "morph_point: %s: %s\n", morph_strerror(rc), morph_errmsg(m));
      return 1;
    }
    if (st == MORPH_LEAVING)
      return 0;
    morph_reconf_report r;
    morph_last_report(m, &r);
    if (r.seq != seen || st == MORPH_JOINING) {
      seen = r.seq;
      print_report(m, st);
      verify(b, m);
    }
    if (b->sleep_ms > 0)
      usleep((useconds_t)(b->sleep_ms * 1000));
    /* Iterations end together, as in an application that communicates
     * every step. Without this, rank 0 (the root of the check's broadcast,
     * which never waits) ran ahead under load, and the first collective of
     * the next window counted the others' lag as part of the resize: the
     * ranks of a 4 -> 2 entered it up to 0.32 s after rank 0. */
    MPI_Barrier(morph_comm(m));
  }
  verify(b, m);
  int errs = b->errors;
  MPI_Allreduce(MPI_IN_PLACE, &errs, 1, MPI_INT, MPI_SUM, morph_comm(m));
  if (morph_rank(m) == 0)
    printf("CHECK %s size=%d errors=%d\n", errs ? "FAILED" : "PASSED", morph_size(m), errs);
  return errs != 0;
}

int main(int argc, char **argv)
{
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  bench b = {0};
  parse(&b, argc, argv);
  morph_ctx *m;
  if (morph_open(MPI_COMM_WORLD, NULL, &m) != MORPH_OK) {
    MPI_Finalize();
    return 1;
  }
  int rc = morph_data_replicated(m, "iter", &b.iter, 1, MPI_INT64_T);
  if (rc == MORPH_OK)
    rc = morph_data_block(m, "a", (void **)&b.a, b.bytes / (int64_t)sizeof(double), MPI_DOUBLE);
  if (rc != MORPH_OK) {
    fprintf(stderr, "registration failed: %s\n", morph_errmsg(m));
    return morph_finalize(m, 1);
  }
  if (morph_get_status(m) == MORPH_NEW)
    init(&b, m);
  return morph_finalize(m, run(&b, m));
}
