/* Reservation-aware DMR (src/policy/rdmr.c), one case per branch: serving
 * the queue with several shrinks, keeping units for a waiting job, shrinks
 * in progress, and expanding only with spare units. Node units unless said
 * otherwise; "run ID KIND SIZE MIN PREF MAX @ nodes". */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "harness.h"

#define CASE(name, policy, params, snap, expect) {name, policy, params, snap, expect}

static const policy_case cases[] = {
    /* No waiting job: every free unit is spare, as in Algorithm 2 line 11. */
    CASE("no-pending-expands", "rdmr", NULL,
         "nodes 4 1; run 1 malleable 2 1 2 4 @ 0,1", "expand 1 2->4"),
    /* A waiting job that no shrink can serve keeps the free units: no
     * expansion (Algorithm 2 line 9 would expand). */
    CASE("blocked-head-keeps-free-units", "rdmr", NULL,
         "nodes 4 1; run 1 malleable 2 1 2 4 @ 0,1; pend 2 rigid 4", ""),
    /* Several jobs shrink for one waiting job (Algorithm 2: one). */
    CASE("several-shrinks-for-one-job", "rdmr", NULL,
         "nodes 8 1; run 1 malleable 4 1 2 4 @ 0,1,2,3; run 2 malleable 4 1 2 4 @ 4,5,6,7;"
         "pend 3 rigid 4",
         "shrink 1 4->2 @3,2; shrink 2 4->2 @7,6"),
    /* Largest release first; the last shrink releases only what is missing. */
    CASE("largest-release-first", "rdmr", NULL,
         "nodes 8 1; run 1 malleable 3 1 2 4 @ 0,1,2; run 2 malleable 5 1 1 5 @ 3,4,5,6,7;"
         "pend 3 rigid 3",
         "shrink 2 5->2"),
    /* One shrink serves several waiting jobs at once (one action per job). */
    CASE("one-shrink-serves-several-jobs", "rdmr", NULL,
         "nodes 8 1; run 1 malleable 8 1 1 8 @ 0,1,2,3,4,5,6,7; pend 2 rigid 3; pend 3 rigid 2",
         "shrink 1 8->3"),
    /* Free units count: shrink only the shortfall; a later job that cannot
     * be served stops the walk and nothing expands. */
    CASE("free-units-reserved-then-blocked", "rdmr", NULL,
         "nodes 8 1; run 1 malleable 4 1 1 4 @ 0,1,2,3; run 2 rigid 2 @ 4,5;"
         "pend 3 rigid 4; pend 4 rigid 4",
         "shrink 1 4->2"),
    /* Shrinks in progress: their units are soon free and served jobs wait
     * for them; nobody else shrinks. Without resize_to they are unknown. */
    CASE("shrink-in-progress-counts", "rdmr", NULL,
         "nodes 8 1; run 1 malleable 4 1 1 4 resizing=1 to=1 @ 0,1,2,3;"
         "run 2 malleable 4 1 1 4 @ 4,5,6,7; pend 3 rigid 3",
         ""),
    CASE("shrink-in-progress-target-unknown", "rdmr", NULL,
         "nodes 8 1; run 1 malleable 4 1 1 4 resizing=1 @ 0,1,2,3;"
         "run 2 malleable 4 1 1 4 @ 4,5,6,7; pend 3 rigid 3",
         "shrink 2 4->1"),
    CASE("expansion-in-progress-not-counted", "rdmr", NULL,
         "nodes 8 1; run 1 malleable 4 1 1 8 resizing=1 to=6 @ 0,1,2,3;"
         "run 2 malleable 4 1 1 4 @ 4,5,6,7; pend 3 rigid 3",
         "shrink 2 4->1"),
    /* Units of a shrink in progress are not free yet: not given away. */
    CASE("incoming-units-not-spare", "rdmr", NULL,
         "nodes 7 1; run 1 malleable 4 1 1 4 resizing=1 to=1 @ 0,1,2,3;"
         "run 2 malleable 1 1 1 8 @ 4",
         "expand 2 1->3"),
    /* Spare units: jobs below their preferred size first (line 2). */
    CASE("below-pref-expands-first", "rdmr", NULL,
         "nodes 6 1; run 1 malleable 2 1 1 6 @ 0,1; run 2 flexible 1 1 3 6 @ 2",
         "expand 2 1->4"),
    CASE("spare-after-starts", "rdmr", NULL,
         "nodes 6 1; run 1 malleable 2 1 1 4 @ 0,1; pend 2 rigid 3",
         "start 2 3; expand 1 2->3"),
    CASE("job-at-max-not-expanded", "rdmr", NULL,
         "nodes 4 1; run 1 malleable 2 1 1 2 @ 0,1; run 2 malleable 1 1 1 4 @ 2",
         "expand 2 1->2"),
    /* Who may shrink: never below pref, not at pref, not rigid, not
     * inhibited, not after too many failures, never the master node,
     * released units only on UP nodes. */
    CASE("never-below-pref", "rdmr", NULL,
         "nodes 4 1; run 1 malleable 4 1 3 4 @ 0,1,2,3; pend 2 rigid 2", ""),
    CASE("inhibited-not-shrunk", "rdmr", NULL,
         "nodes 4 1; run 1 malleable 4 1 1 4 period=10 last=95 @ 0,1,2,3; pend 2 rigid 2", ""),
    CASE("failed-resizes-not-shrunk", "rdmr", NULL,
         "nodes 4 1; run 1 malleable 4 1 1 4 failed=3 @ 0,1,2,3; pend 2 rigid 2", ""),
    CASE("resizing-not-shrunk", "rdmr", NULL,
         "nodes 4 1; run 1 malleable 4 1 1 4 resizing=1 to=8 @ 0,1,2,3; pend 2 rigid 2", ""),
    CASE("shrink-keeps-master-node", "rdmr", NULL,
         "nodes 2 1; run 1 malleable 2 1 1 2 @ 0,1; pend 2 rigid 1", "shrink 1 2->1 @1"),
    CASE("master-node-not-counted", "rdmr", NULL,
         "nodes 2 1; run 1 malleable 2 1 1 2 @ 0,1; pend 2 rigid 2", ""),
    CASE("draining-node-not-counted", "rdmr", NULL,
         "nodes 3 1; drain 2; run 1 malleable 3 1 1 3 @ 0,1,2; pend 2 rigid 2", ""),
    /* Size rules round the last release up to an allowed size. */
    CASE("sizes-factor-rounds-release", "rdmr", "sizes=factor",
         "nodes 6 1; run 1 malleable 6 1 1 6 @ 0,1,2,3,4,5; pend 2 rigid 2", "shrink 1 6->3"),
    CASE("sizes-pow2-no-size-above-pref", "rdmr", "sizes=pow2",
         "nodes 6 1; run 1 malleable 6 1 4 6 @ 0,1,2,3,4,5; pend 2 rigid 1", ""),
    /* shrink_floor=min: releases go down to min (the paper stops at pref). */
    CASE("shrink-floor-min", "rdmr", "shrink_floor=min",
         "nodes 4 1; run 1 malleable 4 1 4 4 @ 0,1,2,3; pend 2 rigid 3", "shrink 1 4->1"),
    /* shrink_jobs=1: only the largest release may serve the queue; here it
     * is not enough, so nothing shrinks and the head keeps the free unit. */
    CASE("shrink-jobs-limit", "rdmr", "shrink_jobs=1",
         "nodes 9 1; run 1 malleable 4 1 2 4 @ 0,1,2,3; run 2 malleable 4 1 2 4 @ 4,5,6,7;"
         "pend 3 rigid 5", ""),
    CASE("shrink-jobs-unlimited", "rdmr", NULL,
         "nodes 9 1; run 1 malleable 4 1 2 4 @ 0,1,2,3; run 2 malleable 4 1 2 4 @ 4,5,6,7;"
         "pend 3 rigid 5", "shrink 1 4->2; shrink 2 4->2"),
    /* With easy: backfilled jobs are started, the head is served after. */
    CASE("composes-with-easy", "rdmr+easy", NULL,
         "nodes 6 1; run 1 malleable 4 1 1 4 start=0 wall=1000 @ 0,1,2,3;"
         "pend 2 rigid 4 wall=100; pend 3 rigid 1 wall=50",
         "start 3 1; shrink 1 4->1"),
    /* morphd on Slurm (node units): two morph jobs grown to 2 nodes each, a
     * foreign -N2 job waiting. Each gives a node back (dmr, one job per
     * waiting job, could not start it: the foreign job waited longer). */
    CASE("slurm-foreign-job-shrinks-two", "rdmr+easy", NULL,
         "nodes 4 1; run 1 malleable 2 1 1 4 @ 0,1; run 2 malleable 2 1 1 4 @ 2,3;"
         "pend 3 rigid 2",
         "shrink 1 2->1; shrink 2 2->1"),
    /* Slot units: the master piece keeps one slot. */
    CASE("slots-several-shrinks", "rdmr", NULL,
         "unit slot; nodes 2 4; run 1 malleable 4 1 1 4 @ 0:4; run 2 malleable 4 1 1 4 @ 1:4;"
         "pend 3 rigid 5",
         "shrink 1 4->1 @0:3; shrink 2 4->2 @1:2"),
};

int main(int argc, char **argv)
{
  return test_run_table("test-policy-rdmr", cases, (int)(sizeof(cases) / sizeof(cases[0])), argc,
                        argv);
}
