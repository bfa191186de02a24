/* Efficiency-aware reservation DMR (src/policy/edmr.c), one case per rule:
 * serving the queue in two tiers (above pref, then down to min), least
 * efficient job first; expanding with spare units only, below pref first,
 * beyond it only where paper 002 would double; moving units from a job it
 * would halve to one it would double. Node units unless said otherwise;
 * "run ID KIND SIZE MIN PREF MAX [eff=E | mtct=AVG/TREND] @ nodes". */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "harness.h"

#define CASE(name, policy, params, snap, expect) {name, policy, params, snap, expect}

static const policy_case cases[] = {
    /* The least efficient job gives first (both above pref). */
    CASE("least-efficient-gives-first", "edmr", NULL,
         "nodes 8 1; run 1 malleable 4 1 2 4 eff=0.9 @ 0,1,2,3; run 2 malleable 4 1 2 4 eff=0.3 @ 4,5,6,7;"
         "pend 3 rigid 2",
         "shrink 2 4->2"),
    /* MTCT stands in for efficiency (1 - the larger of average and trend). */
    CASE("mtct-gives-efficiency", "edmr", NULL,
         "nodes 8 1; run 1 malleable 4 1 2 4 mtct=0.1/0.6 @ 0,1,2,3; run 2 malleable 4 1 2 4 mtct=0.3/0.3 @ 4,5,6,7;"
         "pend 3 rigid 2",
         "shrink 1 4->2"),
    /* Units above pref first, whatever the efficiency; below pref only for
     * what is still missing. */
    CASE("above-pref-before-below-pref", "edmr", NULL,
         "nodes 8 1; run 1 malleable 4 1 4 4 eff=0.1 @ 0,1,2,3; run 2 malleable 4 1 2 4 eff=0.9 @ 4,5,6,7;"
         "pend 3 rigid 3",
         "shrink 2 4->2; shrink 1 4->3"),
    CASE("down-to-min-for-a-waiting-job", "edmr", NULL,
         "nodes 4 1; run 1 malleable 4 1 4 4 @ 0,1,2,3; pend 2 rigid 3", "shrink 1 4->1"),
    /* Nothing waits: no shrink, and free units grow jobs to pref first,
     * the most efficient first. */
    CASE("grows-below-pref-most-efficient-first", "edmr", NULL,
         "nodes 8 1; run 1 malleable 1 1 4 8 eff=0.5 @ 0; run 2 malleable 1 1 4 8 eff=0.9 @ 1;"
         "run 3 rigid 2 @ 2,3",
         "expand 2 1->4; expand 1 1->2"),
    /* Beyond pref: paper 002 doubles below mtct_lower, stays in the band;
     * an unmeasured job grows as Algorithm 2 does (to max). */
    CASE("beyond-pref-doubles-when-mtct-low", "edmr", NULL,
         "nodes 8 1; run 1 malleable 2 1 2 8 mtct=0.1/0.1 @ 0,1", "expand 1 2->4"),
    CASE("beyond-pref-stays-in-the-band", "edmr", NULL,
         "nodes 8 1; run 1 malleable 2 1 2 8 mtct=0.3/0.1 @ 0,1", ""),
    CASE("beyond-pref-unmeasured-grows-to-max", "edmr", NULL,
         "nodes 8 1; run 1 malleable 2 1 2 8 @ 0,1", "expand 1 2->8"),
    /* A waiting job no shrink can serve keeps every free unit for the jobs
     * EASY backfills behind it. */
    CASE("blocked-head-keeps-free-units", "edmr+easy", NULL,
         "nodes 4 1; run 1 malleable 2 1 2 4 @ 0,1; pend 2 rigid 4", ""),
    /* With FCFS starts nobody else may start before it: the free units
     * would sit idle until jobs end, so a running job uses them (step 1
     * takes them back once the head can be covered). */
    CASE("blocked-head-under-fcfs-lends-free-units", "edmr", NULL,
         "nodes 4 1; run 1 malleable 2 1 2 4 @ 0,1; pend 2 rigid 4", "expand 1 2->4"),
    CASE("fcfs-head-covered-takes-them-back", "edmr", NULL,
         "nodes 4 1; run 1 malleable 4 1 2 4 @ 0,1,2,3; pend 2 rigid 3",
         "shrink 1 4->1"),
    /* Shrinks in progress count as soon free: nobody else shrinks. */
    CASE("shrink-in-progress-counts", "edmr", NULL,
         "nodes 8 1; run 1 malleable 4 1 1 4 resizing=1 to=1 @ 0,1,2,3;"
         "run 2 malleable 4 1 1 4 @ 4,5,6,7; pend 3 rigid 3",
         ""),
    /* Rebalance: a job paper 002 would double and that found no units gets
     * them from the least efficient job it would halve (down to its pref). */
    CASE("halving-job-gives-to-doubling-job", "edmr", NULL,
         "nodes 6 1; run 1 malleable 4 1 2 4 mtct=0.7/0.7 @ 0,1,2,3; run 2 malleable 2 1 2 4 mtct=0.1/0.1 @ 4,5",
         "shrink 1 4->2"),
    CASE("no-rebalance-in-the-band", "edmr", NULL,
         "nodes 6 1; run 1 malleable 4 1 2 4 mtct=0.4/0.4 @ 0,1,2,3; run 2 malleable 2 1 2 4 mtct=0.1/0.1 @ 4,5",
         ""),
    CASE("no-rebalance-without-a-taker", "edmr", NULL,
         "nodes 6 1; run 1 malleable 4 1 2 4 mtct=0.7/0.7 @ 0,1,2,3; run 2 malleable 2 1 2 2 mtct=0.1/0.1 @ 4,5",
         ""),
    CASE("no-rebalance-below-pref", "edmr", NULL,
         "nodes 6 1; run 1 malleable 4 1 4 4 mtct=0.7/0.7 @ 0,1,2,3; run 2 malleable 2 1 2 4 mtct=0.1/0.1 @ 4,5",
         ""),
    /* Free units go to the doubling job first; no rebalance needed. */
    CASE("free-units-before-rebalance", "edmr", NULL,
         "nodes 8 1; run 1 malleable 4 1 2 4 mtct=0.7/0.7 @ 0,1,2,3; run 2 malleable 2 1 2 4 mtct=0.1/0.1 @ 4,5",
         "expand 2 2->4"),
    /* With easy: backfill first, then the head is served. */
    CASE("composes-with-easy", "edmr+easy", NULL,
         "nodes 6 1; run 1 malleable 4 1 1 4 start=0 wall=1000 @ 0,1,2,3;"
         "pend 2 rigid 4 wall=100; pend 3 rigid 1 wall=50",
         "start 3 1; shrink 1 4->1"),
    /* DMRlib sizes: a shrink lands on a divisor, releasing at least what
     * was needed. */
    CASE("sizes-factor-rounds-release-up", "edmr", "sizes=factor",
         "nodes 8 1; run 1 malleable 8 1 1 8 @ 0,1,2,3,4,5,6,7; pend 2 rigid 3", "shrink 1 8->4"),
    /* Slot units: the master piece keeps one slot. */
    CASE("slots-serve-queue", "edmr", NULL,
         "unit slot; nodes 2 4; run 1 malleable 4 1 1 4 eff=0.2 @ 0:4; run 2 malleable 4 1 1 4 eff=0.8 @ 1:4;"
         "pend 3 rigid 5",
         "shrink 1 4->1 @0:3; shrink 2 4->2 @1:2"),
};

int main(int argc, char **argv)
{
  return test_run_table("test-policy-edmr", cases, (int)(sizeof(cases) / sizeof(cases[0])), argc,
                        argv);
}
