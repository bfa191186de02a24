/*
 * Test harness of the policy engine: snapshots written as short text, one
 * statement per ';':
 *
 *   unit node|slot            sizes in whole nodes (default) or slots
 *   now T                     current time (default 100)
 *   nodes N S                 N nodes of S slots each, all up
 *   down I | drain I          node I is DOWN / DRAINING
 *   run ID KIND SIZE [MIN PREF MAX] [key=value...] @ NODE[:SLOTS],...
 *   pend ID KIND REQMIN[-REQMAX] [MIN PREF MAX] [key=value...]
 *
 * KIND is rigid | moldable | malleable | flexible. Keys: wall, start, last
 * (last change), period (sched_period), resizing, to (resize_to: where the
 * resize in progress goes), failed, mtct=AVG/TREND, eff (efficiency), submit, from (expand_from: the
 * lowest node an expansion may take). `@ 0,1` books whole nodes 0 and 1; `@ 0:2,1:1` books slots. A
 * running job's request defaults to its size.
 *
 * The policy decides, then firstfit places (test_place()); actions are
 * compared as text: "start J N", "start J N dep=K",
 * "expand J A->B", "shrink J A->B", joined by "; " ("" for none). If the
 * expectation contains '@', each action is followed by its pieces:
 * " @NODE,NODE" (node units) or " @NODE:SLOTS,..." (slot units).
 */
#ifndef MORPH_TEST_POLICY_HARNESS_H
#define MORPH_TEST_POLICY_HARNESS_H

#include <stddef.h>

#include <morph/place.h>
#include <morph/policy.h>

typedef struct policy_case {
  const char *name;     /* test name without the area prefix */
  const char *policy;   /* policy name */
  const char *params;   /* "key=value key=value" or NULL */
  const char *snapshot; /* description, see above */
  const char *expect;   /* expected actions */
} policy_case;

/* A parsed snapshot with its own memory. */
typedef struct test_snap {
  morph_policy_snapshot s;
  morph_policy_node nodes[64];
  morph_policy_job running[64];
  morph_policy_job pending[64];
  morph_policy_alloc allocs[64][64];
} test_snap;

/* Parses desc into *t; fails the current test on a syntax error. */
void test_snap_parse(test_snap *t, const char *desc);

/* Writes actions as text (see above), with pieces if `pieces`. */
void test_actions_format(const morph_policy_actions *a, int pieces, int slots, char *buf,
                         size_t size);

/* Places decided actions with firstfit (the placement stage callers run
 * after the policy); fails the test if placement fails. */
void test_place(const morph_policy_snapshot *snap, morph_policy_actions *a);

/* Creates the case's policy, decides, places (firstfit), checks that the
 * actions are feasible
 * (morph_policy_actions_check and morph_policy_snapshot_apply) and that
 * their text equals the expectation. */
void test_run_case(const policy_case *c);

/* Runs every case of an array of n structs of `elem` bytes whose first
 * field is the case name (const char *) as a cmocka test calling fn with
 * the case as its state, or only the one named by argv[1]. Returns the
 * cmocka status. */
int test_run_named(const char *group, const void *cases, size_t elem, int n,
                   void (*fn)(void **state), int argc, char **argv);

/* Runs every case of the table as a cmocka test, or only the one named by
 * argv[1]. Returns the cmocka status. */
int test_run_table(const char *group, const policy_case *cases, int n, int argc, char **argv);

#endif
