/* DMRlib Algorithm 2 (paper 000 section 5.1), one case per branch. Line
 * numbers refer to the algorithm as quoted in src/policy/dmr.c. Node units
 * unless said otherwise; "run ID KIND SIZE MIN PREF MAX @ nodes". */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "harness.h"

#define CASE(name, policy, params, snap, expect) {name, policy, params, snap, expect}

static const policy_case cases[] = {
    /* Lines 1-2: below pref, resources free: expand, up to the maximum. */
    CASE("expand-below-pref", "dmr", NULL,
         "nodes 8 1; run 1 flexible 2 2 4 8 @ 0,1", "expand 1 2->8"),
    CASE("below-pref-no-resources", "dmr", NULL,
         "nodes 2 1; run 1 flexible 2 2 4 8 @ 0,1", ""),
    /* Line 5: at pref, never shrunk even if a pending job waits (line 9). */
    CASE("shrink-only-above-pref", "dmr", NULL,
         "nodes 4 1; run 1 malleable 4 2 4 8 @ 0,1,2,3; pend 2 rigid 2", ""),
    /* Line 6: above pref and the released nodes start a pending job, which
     * gets them first (START depends on the SHRINK). */
    CASE("shrink-above-pref-starts-pending", "dmr", NULL,
         "nodes 4 1; run 1 malleable 4 1 2 8 @ 0,1,2,3; pend 2 rigid 2",
         "shrink 1 4->2 @3,2; start 2 2 dep=0 @3,2"),
    CASE("shrink-never-below-pref", "dmr", NULL,
         "nodes 4 1; run 1 malleable 4 1 3 8 @ 0,1,2,3; pend 2 rigid 2", ""),
    CASE("shrink-releases-only-what-is-needed", "dmr", NULL,
         "nodes 8 1; run 1 malleable 8 1 2 8 @ 0,1,2,3,4,5,6,7; pend 2 rigid 3",
         "shrink 1 8->5; start 2 3 dep=0"),
    CASE("shrink-counts-free-nodes", "dmr", NULL,
         "nodes 5 1; run 1 malleable 4 1 1 4 @ 0,1,2,3; pend 2 rigid 3",
         "shrink 1 4->2 @3,2; start 2 3 dep=0 @3,2,4"),
    CASE("shrink-moldable-pending-gets-all-avail", "dmr", NULL,
         "nodes 7 1; run 1 malleable 6 1 1 6 @ 0,1,2,3,4,5; pend 2 moldable 2-4",
         "shrink 1 6->5; start 2 2 dep=0"),
    /* Line 6 picks the first pending job, in queue order, that the shrink
     * can start; a job too large for it is passed over. */
    CASE("shrink-picks-first-startable-pending", "dmr", NULL,
         "nodes 4 1; run 1 malleable 4 1 1 4 @ 0,1,2,3; pend 2 rigid 8; pend 3 rigid 2;"
         "pend 4 rigid 1",
         "shrink 1 4->2; start 3 2 dep=0"),
    /* Line 8: above pref, the first startable pending job fits without a
     * shrink (it waits behind the FCFS head), so no shrink; expand. */
    CASE("no-shrink-when-pending-fits-without-it", "dmr", NULL,
         "nodes 4 1; run 1 malleable 3 1 1 4 @ 0,1,2; pend 2 rigid 8; pend 3 rigid 1",
         "expand 1 3->4"),
    CASE("line8-expand-when-shrink-cannot-start-any", "dmr", NULL,
         "nodes 5 1; run 1 malleable 3 1 2 5 @ 0,1,2; pend 2 rigid 9",
         "expand 1 3->5"),
    /* Line 9: at pref, pending jobs, resources free: expand. */
    CASE("line9-expand-at-pref-with-pending", "dmr", NULL,
         "nodes 4 1; run 1 malleable 2 1 2 4 @ 0,1; pend 2 rigid 8", "expand 1 2->4"),
    /* Line 11: no pending job: expand. */
    CASE("line11-expand-without-pending", "dmr", NULL,
         "nodes 4 1; run 1 malleable 3 1 2 4 @ 0,1,2", "expand 1 3->4"),
    CASE("line11-no-resources", "dmr", NULL,
         "nodes 3 1; run 1 malleable 3 1 2 4 @ 0,1,2", ""),
    /* Jobs that may not be resized. */
    CASE("rigid-never-resized", "dmr", NULL, "nodes 4 1; run 1 rigid 2 @ 0,1", ""),
    CASE("moldable-never-resized", "dmr", NULL, "nodes 4 1; run 1 moldable 2 @ 0,1", ""),
    CASE("resize-in-progress-left-alone", "dmr", NULL,
         "nodes 4 1; run 1 malleable 2 1 2 4 resizing=1 @ 0,1", ""),
    CASE("failed-resizes-stop-retries", "dmr", NULL,
         "nodes 4 1; run 1 malleable 2 1 2 4 failed=3 @ 0,1", ""),
    CASE("failed-resizes-below-limit-retry", "dmr", NULL,
         "nodes 4 1; run 1 malleable 2 1 2 4 failed=2 @ 0,1", "expand 1 2->4"),
    CASE("failed-resizes-limit-configurable", "dmr", "max_failed_resizes=1",
         "nodes 4 1; run 1 malleable 2 1 2 4 failed=1 @ 0,1", ""),
    /* Scheduling period (paper 000 Table 5: 10 s for CG and Jacobi). */
    CASE("inhibitor-period-blocks-resize", "dmr", NULL,
         "nodes 4 1; run 1 malleable 2 1 2 4 period=10 last=95 @ 0,1", ""),
    CASE("inhibitor-period-elapsed", "dmr", NULL,
         "nodes 4 1; run 1 malleable 2 1 2 4 period=10 last=85 @ 0,1", "expand 1 2->4"),
    CASE("inhibitor-default-from-params", "dmr", "sched_period=10",
         "nodes 4 1; run 1 malleable 2 1 2 4 last=95 @ 0,1", ""),
    /* Starts come first (fcfs), then resizes. */
    CASE("starts-before-expansions", "dmr", NULL,
         "nodes 4 1; run 1 malleable 2 1 1 4 @ 0,1; pend 2 rigid 1",
         "start 2 1; expand 1 2->3"),
    CASE("composes-with-easy", "dmr+easy", NULL,
         "nodes 4 1; run 1 malleable 2 1 1 4 start=0 wall=1000 @ 0,1;"
         "pend 2 rigid 4 wall=100; pend 3 rigid 1 wall=50",
         "start 3 1; expand 1 2->3"),
    /* The master node (first piece) is never released. */
    CASE("shrink-keeps-master-node", "dmr", NULL,
         "nodes 2 1; run 1 malleable 2 1 1 2 @ 0,1; pend 2 rigid 1",
         "shrink 1 2->1 @1; start 2 1 dep=0 @1"),
    CASE("shrink-master-only-no-release", "dmr", NULL,
         "nodes 2 1; run 1 malleable 2 1 1 2 @ 0,1; pend 2 rigid 2", ""),
    /* Released nodes must be up to serve the pending job. */
    CASE("shrink-releases-only-up-nodes", "dmr", NULL,
         "nodes 3 1; drain 2; run 1 malleable 3 1 1 3 @ 0,1,2; pend 2 rigid 2", ""),
    CASE("shrink-up-node-of-draining-job", "dmr", NULL,
         "nodes 3 1; drain 2; run 1 malleable 3 1 1 3 @ 0,1,2; pend 2 rigid 1",
         "shrink 1 3->2 @1; start 2 1 dep=0 @1"),
    /* Size rules (DMRlib's default redistribution: multiples, divisors). */
    CASE("sizes-factor-expand-to-multiple", "dmr", "sizes=factor",
         "nodes 7 1; run 1 malleable 2 1 2 8 @ 0,1", "expand 1 2->6"),
    CASE("sizes-pow2-expand-doubles", "dmr", "sizes=pow2",
         "nodes 7 1; run 1 malleable 2 1 2 8 @ 0,1", "expand 1 2->4"),
    CASE("sizes-factor-shrink-to-divisor", "dmr", "sizes=factor",
         "nodes 6 1; run 1 malleable 6 1 2 6 @ 0,1,2,3,4,5; pend 2 rigid 1",
         "shrink 1 6->3; start 2 1 dep=0"),
    CASE("sizes-pow2-no-divisor-above-pref", "dmr", "sizes=pow2",
         "nodes 6 1; run 1 malleable 6 1 4 6 @ 0,1,2,3,4,5; pend 2 rigid 1", ""),
    /* Slot units: slots are released from the last piece; the start takes
     * them and then free slots; expansions fill the job's own nodes first. */
    CASE("slots-shrink-and-start", "dmr", NULL,
         "unit slot; nodes 2 4; run 1 malleable 6 1 2 8 @ 0:4,1:2; pend 2 rigid 3",
         "shrink 1 6->5 @1:1; start 2 3 dep=0 @1:3"),
    CASE("slots-expand-own-nodes-first", "dmr", NULL,
         "unit slot; nodes 3 2; run 2 rigid 1 @ 0:1; run 1 malleable 1 1 1 4 @ 1:1",
         "expand 1 1->4 @1:1,0:1,2:1"),
    /* Several jobs: each shrink serves its own pending job. */
    /* shrink_floor=min (an assumption the paper fixes at pref; varied in
     * docs/reproduction-dmrlib.md): a job at pref may shrink to min. */
    CASE("shrink-floor-min-goes-below-pref", "dmr", "shrink_floor=min",
         "nodes 4 1; run 1 malleable 4 1 4 4 @ 0,1,2,3; pend 2 rigid 3",
         "shrink 1 4->1; start 2 3 dep=0"),
    CASE("shrink-floor-pref-is-the-paper", "dmr", "shrink_floor=pref",
         "nodes 4 1; run 1 malleable 4 1 4 4 @ 0,1,2,3; pend 2 rigid 3", ""),
    /* dmr-slurm: an expansion waits behind the queue, so the free units a
     * waiting job needs are kept (dmr expands into them, line 9). */
    CASE("slurm-keeps-free-units-for-waiting-job", "dmr-slurm", NULL,
         "nodes 4 1; run 1 malleable 2 1 2 4 @ 0,1; pend 2 rigid 4", ""),
    CASE("slurm-literal-dmr-expands-into-them", "dmr", NULL,
         "nodes 4 1; run 1 malleable 2 1 2 4 @ 0,1; pend 2 rigid 4", "expand 1 2->4"),
    /* The kept units count for line 6: one shrink then starts the job. */
    CASE("slurm-kept-units-let-one-shrink-start", "dmr-slurm", NULL,
         "nodes 8 1; run 1 malleable 4 1 2 4 @ 0,1,2,3; pend 2 rigid 6",
         "shrink 1 4->2; start 2 6 dep=0"),
    /* Units beyond what the waiting jobs need are spare: they expand. */
    CASE("slurm-spare-units-expand", "dmr-slurm", NULL,
         "nodes 8 1; run 1 malleable 2 1 2 8 @ 0,1; run 2 rigid 2 @ 2,3; pend 3 rigid 6; pend 4 rigid 1",
         ""),
    CASE("slurm-no-waiting-job-expands", "dmr-slurm", NULL,
         "nodes 8 1; run 1 malleable 2 1 2 8 @ 0,1; pend 3 rigid 3",
         "start 3 3; expand 1 2->5"),
    CASE("two-shrinks-two-starts", "dmr", NULL,
         "nodes 8 1; run 1 malleable 4 1 2 4 @ 0,1,2,3; run 2 malleable 4 1 2 4 @ 4,5,6,7;"
         "pend 3 rigid 2; pend 4 rigid 2",
         "shrink 1 4->2; start 3 2 dep=0; shrink 2 4->2; start 4 2 dep=2"),
};

int main(int argc, char **argv)
{
  return test_run_table("test-policy-dmr", cases, (int)(sizeof(cases) / sizeof(cases[0])), argc,
                        argv);
}
