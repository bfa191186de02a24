/* One decision and its placement (firstfit) on a large snapshot (default
 * 10,000 jobs and 10,000 nodes of 48 slots, 90 % loaded), timed for every
 * policy; prints the median of several runs. The engine has no clock; the
 * benchmark times it from the outside.
 * Usage: bench-policy [--quick] [--jobs N] [--nodes N] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <morph/place.h>
#include <morph/policy.h>

#include "policy_gen.h"

static double now_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Median times of `runs` decisions, each followed by its placement
 * (firstfit), as morphd and the simulator run them: *ms the whole, *place_ms
 * the placement alone. Returns -1 on error; *nactions gets the count. */
static int time_policy(const char *name, const morph_policy_snapshot *snap, int runs, double *ms,
                       double *place_ms, int *nactions)
{
  morph_policy *p;
  morph_place *pl;
  morph_policy_actions a;
  double t[101], tp[101];
  if (morph_policy_create(name, NULL, &p) != MORPH_OK ||
      morph_place_create("firstfit", NULL, 0, &pl) != MORPH_OK)
    return -1;
  morph_policy_actions_init(&a);
  for (int r = 0; r < runs; r++) {
    double t0 = now_ms();
    int rc = morph_policy_decide(p, snap, &a);
    double t1 = now_ms();
    if (rc == MORPH_OK && (rc = morph_place_actions(pl, snap, &a)) != MORPH_OK)
      fprintf(stderr, "bench-policy: %s: %s\n", name, morph_place_errmsg(pl));
    t[r] = now_ms() - t0;
    tp[r] = now_ms() - t1;
    if (rc) {
      fprintf(stderr, "bench-policy: %s: %s\n", name, morph_policy_errmsg(p));
      return -1;
    }
  }
  *nactions = a.n;
  if (morph_policy_actions_check(snap, &a, NULL, 0) != MORPH_OK)
    fprintf(stderr, "bench-policy: %s: infeasible actions\n", name);
  morph_policy_actions_free(&a);
  morph_place_destroy(pl);
  morph_policy_destroy(p);
  qsort(t, (size_t)runs, sizeof(double), cmp_double);
  qsort(tp, (size_t)runs, sizeof(double), cmp_double);
  *ms = t[runs / 2];
  *place_ms = tp[runs / 2];
  return 0;
}

int main(int argc, char **argv)
{
  policy_gen_spec spec = {.seed = 42, .nnodes = 10000, .slots_per_node = 48, .njobs = 10000,
                          .load = 0.9, .max_run_size = 4, .max_req = 32,
                          .unit = MORPH_POLICY_UNIT_NODE, .bad_nodes = 0.01};
  int runs = 21;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--quick") == 0)
      runs = 5;
    else if (strcmp(argv[i], "--jobs") == 0 && i + 1 < argc)
      spec.njobs = atoi(argv[++i]);
    else if (strcmp(argv[i], "--nodes") == 0 && i + 1 < argc)
      spec.nnodes = atoi(argv[++i]);
  }
  morph_policy_snapshot snap;
  if (policy_gen(&spec, &snap)) {
    fprintf(stderr, "bench-policy: out of memory\n");
    return 1;
  }
  static const char *names[] = {"dmr+easy",  "dmr",         "easy", "fcfs", "mtct+easy",
                                "granularity+easy", "rdmr+easy", "stepping+easy"};
  enum { NPOL = sizeof(names) / sizeof(names[0]) };
  double ms[NPOL], place_ms[NPOL];
  int nact[NPOL];
  for (int i = 0; i < NPOL; i++) {
    if (time_policy(names[i], &snap, runs, &ms[i], &place_ms[i], &nact[i]))
      return 1;
    fprintf(stderr, "  %-18s %8.3f ms (placement %.3f)  %d actions\n", names[i], ms[i],
            place_ms[i], nact[i]);
  }
  double worst = 0;
  for (int i = 0; i < NPOL; i++)
    worst = ms[i] > worst ? ms[i] : worst;
  printf("RESULT decide_ms=%.3f place_ms=%.3f policy=%s placement=firstfit jobs=%d nodes=%d "
         "running=%d pending=%d runs=%d actions=%d worst_ms=%.3f fcfs_ms=%.3f easy_ms=%.3f "
         "mtct_ms=%.3f granularity_ms=%.3f rdmr_ms=%.3f stepping_ms=%.3f\n",
         ms[0], place_ms[0], names[0], spec.njobs, spec.nnodes, snap.nrunning, snap.npending, runs,
         nact[0], worst, ms[3], ms[2], ms[4], ms[5], ms[6], ms[7]);
  policy_gen_free(&snap);
  return 0;
}
