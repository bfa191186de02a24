/* Property tests: on random snapshots, every policy's counted actions can
 * be placed (firstfit), pass the independent check (nothing double-booked,
 * limits kept) and can be applied, round after round, with jobs ending in
 * between. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "harness.h"
#include "policy_gen.h"

/* Ends every third running job of an owned snapshot (frees its slots). */
static void end_some_jobs(morph_policy_snapshot *s, int round)
{
  int w = 0;
  for (int j = 0; j < s->nrunning; j++) {
    morph_policy_job *job = &s->running[j];
    if ((j + round) % 3 == 0 && !job->resizing) {
      for (int k = 0; k < job->nalloc; k++)
        s->nodes[job->alloc[k].node].used -= job->alloc[k].slots;
      free((void *)job->alloc);
    } else {
      s->running[w++] = *job;
    }
  }
  s->nrunning = w;
  s->now += 60;
}

/* Decides, checks and applies `rounds` times for one policy and seed. */
static void play(const char *name, const policy_gen_spec *spec, int rounds)
{
  morph_policy_snapshot gen, *s;
  assert_int_equal(policy_gen(spec, &gen), 0);
  assert_int_equal(morph_policy_snapshot_clone(&gen, &s), MORPH_OK);
  policy_gen_free(&gen);
  morph_policy *p;
  morph_policy_actions a;
  char msg[256];
  morph_policy_actions_init(&a);
  assert_int_equal(morph_policy_create(name, NULL, &p), MORPH_OK);
  for (int r = 0; r < rounds; r++) {
    int rc = morph_policy_decide(p, s, &a);
    if (rc)
      fail_msg("%s seed %u: decide: %s", name, spec->seed, morph_policy_errmsg(p));
    test_place(s, &a);
    if (morph_policy_snapshot_apply(s, &a, msg, sizeof(msg)) != MORPH_OK)
      fail_msg("%s seed %u round %d: %s", name, spec->seed, r, msg);
    end_some_jobs(s, r);
  }
  morph_policy_destroy(p);
  morph_policy_actions_free(&a);
  morph_policy_snapshot_free(s);
}

static void every_policy(const policy_gen_spec *base, int seeds, int rounds)
{
  char names[2048], *save;
  morph_policy_names(names, sizeof(names));
  for (char *x = strtok_r(names, ", ", &save); x; x = strtok_r(NULL, ", ", &save))
    for (int seed = 1; seed <= seeds; seed++) {
      policy_gen_spec spec = *base;
      spec.seed = (unsigned)seed;
      play(x, &spec, rounds);
    }
}

static void random_node_units_never_double_book(void **state)
{
  (void)state;
  policy_gen_spec spec = {.nnodes = 32, .slots_per_node = 4, .njobs = 40, .load = 0.8,
                          .max_run_size = 6, .max_req = 10, .unit = MORPH_POLICY_UNIT_NODE,
                          .bad_nodes = 0.1};
  every_policy(&spec, 30, 6);
}

static void random_slot_units_never_double_book(void **state)
{
  (void)state;
  policy_gen_spec spec = {.nnodes = 8, .slots_per_node = 6, .njobs = 40, .load = 0.8,
                          .max_run_size = 9, .max_req = 12, .unit = MORPH_POLICY_UNIT_SLOT,
                          .bad_nodes = 0.15};
  every_policy(&spec, 30, 6);
}

static void large_snapshot_feasible(void **state)
{
  (void)state;
  policy_gen_spec spec = {.seed = 7, .nnodes = 10000, .slots_per_node = 48, .njobs = 10000,
                          .load = 0.9, .max_run_size = 4, .max_req = 32,
                          .unit = MORPH_POLICY_UNIT_NODE, .bad_nodes = 0.01};
  static const char *names[] = {"dmr+easy", "mtct", "granularity+easy"};
  for (int i = 0; i < 3; i++)
    play(names[i], &spec, 2);
}

int main(int argc, char **argv)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(random_node_units_never_double_book),
      cmocka_unit_test(random_slot_units_never_double_book),
      cmocka_unit_test(large_snapshot_feasible),
  };
  if (argc > 1)
    cmocka_set_test_filter(argv[1]);
  return cmocka_run_group_tests_name("test-policy-random", tests, NULL, NULL);
}
