/* Malleable components (paper 003): one process per available processor. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "harness.h"

#define CASE(name, policy, params, snap, expect) {name, policy, params, snap, expect}

#define GROUP "test-policy-granularity"

static const policy_case cases[] = {
    CASE("spread-free-evenly", "granularity", NULL,
         "nodes 8 1; run 1 malleable 2 1 1 8 @ 0,1; run 2 malleable 2 1 1 8 @ 2,3",
         "expand 1 2->4; expand 2 2->4"),
    CASE("spread-smallest-headroom-first", "granularity", NULL,
         "nodes 8 1; run 1 malleable 2 1 1 8 @ 0,1; run 2 malleable 2 1 1 3 @ 2,3",
         "expand 2 2->3; expand 1 2->5"),
    CASE("no-free-processor-stays", "granularity", NULL,
         "nodes 2 1; run 1 malleable 2 1 1 8 @ 0,1", ""),
    CASE("at-max-stays", "granularity", NULL, "nodes 8 1; run 1 malleable 2 1 1 2 @ 0,1", ""),
    CASE("shrink-off-draining-node", "granularity", NULL,
         "nodes 4 1; drain 3; run 1 malleable 4 1 1 4 @ 0,1,2,3", "shrink 1 4->3 @3"),
    CASE("shrink-off-down-nodes", "granularity", NULL,
         "nodes 4 1; down 1; down 2; run 1 malleable 4 1 1 4 @ 0,1,2,3", "shrink 1 4->2 @2,1"),
    CASE("shrink-off-down-node-stops-at-min", "granularity", NULL,
         "nodes 4 1; down 1; down 2; run 1 malleable 4 3 3 4 @ 0,1,2,3", "shrink 1 4->3 @2"),
    CASE("at-min-keeps-down-node", "granularity", NULL,
         "nodes 4 1; down 3; run 1 malleable 4 4 4 4 @ 0,1,2,3", ""),
    CASE("shrink-off-down-node-ignores-period", "granularity", NULL,
         "nodes 4 1; down 3; run 1 malleable 4 1 1 4 period=100 last=99 @ 0,1,2,3",
         "shrink 1 4->3"),
    CASE("growth-respects-period", "granularity", NULL,
         "nodes 4 1; run 1 malleable 2 1 1 4 period=100 last=99 @ 0,1", ""),
    CASE("pending-jobs-start-first", "granularity", NULL,
         "nodes 4 1; run 1 malleable 2 1 1 4 @ 0,1; pend 2 rigid 1", "start 2 1; expand 1 2->3"),
    CASE("rigid-and-resizing-ignored", "granularity", NULL,
         "nodes 8 1; drain 1; run 1 rigid 2 @ 0,1; run 2 malleable 2 1 1 8 resizing=1 @ 2,3", ""),
    CASE("sizes-factor-job-by-job", "granularity", "sizes=factor",
         "nodes 8 1; run 1 malleable 2 1 1 8 @ 0,1; run 2 malleable 2 1 1 8 @ 2,3",
         "expand 1 2->6"),
    CASE("slots-one-process-per-slot", "granularity", NULL,
         "unit slot; nodes 2 4; run 1 malleable 2 1 1 8 @ 0:2", "expand 1 2->8 @0:2,1:4"),
    CASE("slots-shrink-off-draining-node", "granularity", NULL,
         "unit slot; nodes 2 4; drain 1; run 1 malleable 6 1 1 8 @ 0:4,1:2",
         "shrink 1 6->4 @1:2"),
    CASE("composes-with-easy", "granularity+easy", NULL,
         "nodes 4 1; run 1 malleable 2 1 1 4 start=0 wall=1000 @ 0,1;"
         "pend 2 rigid 4 wall=100; pend 3 rigid 1 wall=50",
         "start 3 1; expand 1 2->3"),
};

int main(int argc, char **argv)
{
  return test_run_table(GROUP, cases, (int)(sizeof(cases) / sizeof(cases[0])), argc, argv);
}
