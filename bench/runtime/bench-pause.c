/*
 * bench-pause: the visible pause of a resize, as the application's loop
 * sees it. Each iteration computes for a fixed time (a busy loop: the
 * cores are taken, as by real work), reduces one number over the job's
 * communicator, and calls morph_point. Rank 0 times every iteration; the
 * pause of a resize is the time its loop did not advance, from the
 * iteration whose point sees the decision to the end of the first
 * iteration at the new size:
 *
 *   pause = sum over those iterations of (duration - base)
 *
 * where base is the median iteration before the first decision. With the
 * spawn in the background the iterations in between run at the old size
 * and cost (nearly) nothing; with the blocking path the whole spawn is
 * inside the point.
 *
 *   bench-pause --bytes B --at I[,I...] [--iters N] [--compute-ms C] [--idle]
 *
 * --idle: each iteration sleeps for C ms instead of computing, which
 * leaves the cores free for the spawn (a stand-in for a host with cores
 * to spare).
 *
 * --at: the iterations of the schedule's decisions (morph run --schedule
 * "4@it10,2@it40" -> --at 10,40). Rank 0 prints one line per resize:
 *
 *   PAUSE old=2 new=4 pause_s=.. in_point_s=.. iterations=.. base_s=.. outcome=0
 *
 * in_point_s: the part of those iterations spent inside morph_point (the
 * loop stopped outright; the rest of the pause is iterations slowed by the
 * spawn's processes and threads sharing the cores). BENCH_PAUSE_TRACE set:
 * rank 0 prints every iteration of the span on stderr.
 *   CHECK PASSED size=2 errors=0
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "morph.h"

#define MAX_AT 8

typedef struct bench {
  int64_t bytes, iters, iter;
  double compute_ms;
  int idle;
  int64_t at[MAX_AT];
  int nat;
  double *a;
  int errors;
} bench;

static void parse(bench *b, int argc, char **argv)
{
  static const struct option opts[] = {{"bytes", required_argument, 0, 'b'},
                                       {"iters", required_argument, 0, 'n'},
                                       {"compute-ms", required_argument, 0, 'c'},
                                       {"at", required_argument, 0, 'a'},
                                       {"idle", no_argument, 0, 'i'},
                                       {0, 0, 0, 0}};
  b->bytes = 1 << 20, b->iters = 80, b->compute_ms = 20;
  for (int c; (c = getopt_long(argc, argv, "b:n:c:a:i", opts, NULL)) != -1;) {
    if (c == 'b')
      b->bytes = atoll(optarg);
    else if (c == 'n')
      b->iters = atoll(optarg);
    else if (c == 'c')
      b->compute_ms = atof(optarg);
    else if (c == 'i')
      b->idle = 1;
    else if (c == 'a')
      for (char *t = strtok(optarg, ","); t && b->nat < MAX_AT; t = strtok(NULL, ","))
        b->at[b->nat++] = atoll(t);
  }
}

static void spin(double seconds)
{
  double end = MPI_Wtime() + seconds;
  while (MPI_Wtime() < end)
    ;
}

static void check(bench *b, morph_ctx *m)
{
  int64_t off = morph_local_offset(m, "a"), n = morph_local_count(m, "a");
  for (int64_t i = 0; i < n; i += 4093)
    if (b->a[i] != (double)(off + i) && b->errors++ < 5)
      fprintf(stderr, "rank %d: a[%lld] = %g\n", morph_rank(m), (long long)(off + i), b->a[i]);
}

static int cmp(const void *x, const void *y)
{
  double a = *(const double *)x, c = *(const double *)y;
  return a < c ? -1 : a > c;
}

/* What rank 0 follows: the resize under way. */
typedef struct span {
  int open;          /* between the decision's point and the end of the
                        first iteration at the new size */
  int k;             /* which --at */
  int old;
  double sum;        /* its iterations' time */
  double in_point;   /* of which inside morph_point */
  int n;             /* and count */
  int outcome;
} span;

static int run(bench *b, morph_ctx *m)
{
  double base = 0, pre[1024];
  int npre = 0, seen = 0;
  span s = {0};
  int trace = getenv("BENCH_PAUSE_TRACE") != NULL;
  for (; b->iter < b->iters; b->iter++) {
    double t0 = MPI_Wtime();
    morph_status st;
    int size = morph_size(m);
    if (morph_point(m, &st) != MORPH_OK) {
      fprintf(stderr, "morph_point: %s\n", morph_errmsg(m));
      return 1;
    }
    if (st == MORPH_LEAVING)
      return 0;
    morph_reconf_report r;
    morph_last_report(m, &r);
    int changed = r.seq != seen || st == MORPH_JOINING;
    if (changed) {
      seen = r.seq;
      check(b, m);
      s.outcome = r.outcome;
    }
    if (!s.open && s.k < b->nat && morph_iteration(m) == b->at[s.k])
      s = (span){1, s.k, size, 0, 0, 0, changed ? r.outcome : 0};
    double t1 = MPI_Wtime();
    if (b->idle)
      usleep((useconds_t)(b->compute_ms * 1e3));
    else
      spin(b->compute_ms * 1e-3);
    double t2 = MPI_Wtime(), one = 1, all;
    MPI_Allreduce(&one, &all, 1, MPI_DOUBLE, MPI_SUM, morph_comm(m));
    double t3 = MPI_Wtime(), dt = t3 - t0;
    if (!s.open && s.k == 0 && npre < 1024 && b->iter > 2)
      pre[npre++] = dt;
    if (!s.open)
      continue;
    if (base == 0 && npre) {
      qsort(pre, (size_t)npre, sizeof *pre, cmp);
      base = pre[npre / 2];
    }
    s.sum += dt, s.in_point += t1 - t0, s.n++;
    if (trace && morph_rank(m) == 0)
      fprintf(stderr, "TRACE it=%lld size=%d dt=%.4f point=%.4f compute=%.4f reduce=%.4f\n",
              (long long)b->iter, morph_size(m), dt, t1 - t0, t2 - t1, t3 - t2);
    /* The point that changed the size (or rolled it back) ends the span
     * with its iteration: the first at the new size. */
    if (changed) {
      if (morph_rank(m) == 0)
        printf("PAUSE old=%d new=%d pause_s=%.6f in_point_s=%.6f iterations=%d base_s=%.6f "
               "outcome=%d\n", s.old, morph_size(m), s.sum - s.n * base, s.in_point, s.n, base,
               s.outcome);
      fflush(stdout);
      s.open = 0, s.k++;
    }
  }
  check(b, m);
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
  if (morph_get_status(m) == MORPH_NEW) {
    int64_t off = morph_local_offset(m, "a"), n = morph_local_count(m, "a");
    for (int64_t i = 0; i < n; i++)
      b.a[i] = (double)(off + i);
  }
  return morph_finalize(m, run(&b, m));
}
