/*
 * Test harness of the placement stage. A case is a snapshot in the policy
 * harness's language (tests/policy/harness.h), actions as the policy would
 * count them (no pieces), and the expected result:
 *
 *   start J N [dep=K]        pending job J starts with N units
 *   expand J A->B            running job J grows from A to B
 *   shrink J A->B [up]       running job J shrinks (up: RELEASE_UP)
 *   migrate J                an op the placement does not know
 *
 * joined by "; ". The expectation is the actions with their pieces, as
 * tests/policy/harness.h formats them ("start 2 2 @0,1"; slot units
 * "@0:2,1:1"), or "EBUSY: WORDS" / "EINVAL: WORDS": the error and words
 * its message must contain. Every successful placement must also pass the
 * referee, morph_policy_actions_check().
 */
#ifndef MORPH_TEST_PLACE_HARNESS_H
#define MORPH_TEST_PLACE_HARNESS_H

#include <morph/place.h>

#include "harness.h"

typedef struct place_case {
  const char *name;     /* test name without the file prefix */
  const char *strategy; /* placement strategy */
  const char *snapshot; /* policy harness description */
  const char *actions;  /* counted actions, see above */
  const char *expect;   /* placed actions, or "ECODE: words" */
  const char *params;   /* strategy parameters "KEY=VALUE KEY=VALUE"; NULL: none */
} place_case;

/* Parses `text` into *a (emptied first) against the snapshot. */
void place_actions_parse(const test_snap *t, const char *text, morph_policy_actions *a);

/* Places the case's actions and compares with the expectation. */
void place_run_case(const place_case *c);

/* Runs every case of the table, or only the one named by argv[1]. */
int place_run_table(const char *group, const place_case *cases, int n, int argc, char **argv);

#endif
