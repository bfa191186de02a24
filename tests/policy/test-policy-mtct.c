/* Elastic MPI MTCT rule (paper 002 section 3.3.4): above upper halve, both
 * below lower double, otherwise stay. Defaults: lower 0.2, upper 0.5. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "harness.h"

#define CASE(name, policy, params, snap, expect) {name, policy, params, snap, expect}

#define GROUP "test-policy-mtct"

static const policy_case cases[] = {
    CASE("halve-when-average-above-upper", "mtct", NULL,
         "nodes 8 1; run 1 malleable 8 1 4 8 mtct=0.6/0.1 @ 0,1,2,3,4,5,6,7", "shrink 1 8->4"),
    CASE("halve-when-trend-above-upper", "mtct", NULL,
         "nodes 8 1; run 1 malleable 8 1 4 8 mtct=0.1/0.7 @ 0,1,2,3,4,5,6,7", "shrink 1 8->4"),
    CASE("halve-releases-last-nodes", "mtct", NULL,
         "nodes 4 1; run 1 malleable 4 1 4 8 mtct=0.9/0.9 @ 0,1,2,3", "shrink 1 4->2 @3,2"),
    CASE("halve-stops-at-min", "mtct", NULL,
         "nodes 8 1; run 1 malleable 8 6 6 8 mtct=0.6/0.6 @ 0,1,2,3,4,5,6,7", "shrink 1 8->6"),
    CASE("halve-at-min-stays", "mtct", NULL,
         "nodes 8 1; run 1 malleable 6 6 6 8 mtct=0.6/0.6 @ 0,1,2,3,4,5", ""),
    CASE("double-when-both-below-lower", "mtct", NULL,
         "nodes 8 1; run 1 malleable 2 1 2 8 mtct=0.1/0.1 @ 0,1", "expand 1 2->4"),
    CASE("double-limited-by-free-nodes", "mtct", NULL,
         "nodes 3 1; run 1 malleable 2 1 2 8 mtct=0.1/0.1 @ 0,1", "expand 1 2->3"),
    CASE("double-limited-by-max", "mtct", NULL,
         "nodes 8 1; run 1 malleable 2 1 2 3 mtct=0.1/0.1 @ 0,1", "expand 1 2->3"),
    CASE("double-no-free-nodes-stays", "mtct", NULL,
         "nodes 2 1; run 1 malleable 2 1 2 8 mtct=0.1/0.1 @ 0,1", ""),
    CASE("stay-one-between-one-below", "mtct", NULL,
         "nodes 8 1; run 1 malleable 2 1 2 8 mtct=0.3/0.1 @ 0,1", ""),
    CASE("stay-both-between", "mtct", NULL,
         "nodes 8 1; run 1 malleable 2 1 2 8 mtct=0.3/0.3 @ 0,1", ""),
    CASE("stay-at-threshold-exactly", "mtct", NULL,
         "nodes 8 1; run 1 malleable 2 1 2 8 mtct=0.5/0.2 @ 0,1", ""),
    CASE("stay-when-mtct-unknown", "mtct", NULL,
         "nodes 8 1; run 1 malleable 2 1 2 8 @ 0,1", ""),
    CASE("thresholds-configurable", "mtct", "mtct_upper=0.25 mtct_lower=0.05",
         "nodes 8 1; run 1 malleable 8 1 4 8 mtct=0.3/0.1 @ 0,1,2,3,4,5,6,7", "shrink 1 8->4"),
    CASE("lower-threshold-configurable", "mtct", "mtct_lower=0.05",
         "nodes 8 1; run 1 malleable 2 1 2 8 mtct=0.1/0.1 @ 0,1", ""),
    /* Halving comes before starts, but the released nodes are not reused in
     * the same decision: the leaving processes must exit first. */
    CASE("halved-nodes-not-reused-at-once", "mtct", NULL,
         "nodes 8 1; run 1 malleable 8 1 4 8 mtct=0.9/0.9 @ 0,1,2,3,4,5,6,7; pend 2 rigid 2",
         "shrink 1 8->4"),
    /* New jobs are launched before running ones double (paper 002). */
    CASE("starts-before-doubling", "mtct", NULL,
         "nodes 4 1; run 1 malleable 2 1 1 4 mtct=0.1/0.1 @ 0,1; pend 2 rigid 1",
         "start 2 1; expand 1 2->3"),
    CASE("composes-with-easy", "mtct+easy", NULL,
         "nodes 4 1; run 1 malleable 2 1 1 4 mtct=0.1/0.1 start=0 wall=1000 @ 0,1;"
         "pend 2 rigid 4 wall=100; pend 3 rigid 1 wall=50",
         "start 3 1; expand 1 2->3"),
    CASE("rigid-job-ignored", "mtct", NULL,
         "nodes 8 1; run 1 rigid 2 mtct=0.1/0.1 @ 0,1", ""),
    CASE("inhibited-job-stays", "mtct", NULL,
         "nodes 8 1; run 1 malleable 2 1 2 8 mtct=0.1/0.1 period=10 last=95 @ 0,1", ""),
    CASE("resizing-job-stays", "mtct", NULL,
         "nodes 8 1; run 1 malleable 8 1 2 8 mtct=0.9/0.9 resizing=1 @ 0,1,2,3,4,5,6,7", ""),
    CASE("sizes-pow2-odd-size-stays", "mtct", "sizes=pow2",
         "nodes 8 1; run 1 malleable 5 1 2 8 mtct=0.9/0.9 @ 0,1,2,3,4", ""),
    CASE("sizes-pow2-halves-even-size", "mtct", "sizes=pow2",
         "nodes 8 1; run 1 malleable 6 1 2 8 mtct=0.9/0.9 @ 0,1,2,3,4,5", "shrink 1 6->3"),
    CASE("halve-releases-draining-first", "mtct", NULL,
         "nodes 4 1; drain 1; run 1 malleable 4 1 4 8 mtct=0.9/0.9 @ 0,1,2,3",
         "shrink 1 4->2 @1,3"),
};

int main(int argc, char **argv)
{
  return test_run_table(GROUP, cases, (int)(sizeof(cases) / sizeof(cases[0])), argc, argv);
}
