/* EASY backfilling: reservation for the head job from walltime estimates. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "harness.h"

#define CASE(name, policy, params, snap, expect) {name, policy, params, snap, expect}

#define GROUP "test-policy-easy"

static const policy_case cases[] = {
    CASE("fcfs-prefix-starts", "easy", NULL, "nodes 4 1; pend 1 rigid 2; pend 2 rigid 2",
         "start 1 2; start 2 2"),
    CASE("backfill-short-job", "easy", NULL,
         "nodes 4 1; run 1 rigid 2 start=0 wall=200 @ 0,1; pend 2 rigid 4 wall=100;"
         "pend 3 rigid 2 wall=50",
         "start 3 2"),
    CASE("no-backfill-that-delays-head", "easy", NULL,
         "nodes 4 1; run 1 rigid 2 start=0 wall=200 @ 0,1; pend 2 rigid 4 wall=100;"
         "pend 3 rigid 2 wall=500",
         ""),
    CASE("backfill-long-job-into-extra", "easy", NULL,
         "nodes 6 1; run 1 rigid 4 start=0 wall=200 @ 0,1,2,3; pend 2 rigid 3 wall=100;"
         "pend 3 rigid 2 wall=1000",
         "start 3 2"),
    CASE("extra-is-used-up", "easy", NULL,
         "nodes 6 1; run 1 rigid 4 start=0 wall=200 @ 0,1,2,3; pend 2 rigid 5 wall=100;"
         "pend 3 rigid 1 wall=1000; pend 4 rigid 1 wall=1000",
         "start 3 1"),
    CASE("moldable-backfill-capped-by-extra", "easy", NULL,
         "nodes 6 1; run 1 rigid 4 start=0 wall=200 @ 0,1,2,3; pend 2 rigid 5 wall=100;"
         "pend 3 moldable 1-2 wall=1000",
         "start 3 1"),
    CASE("moldable-backfill-short-gets-all", "easy", NULL,
         "nodes 6 1; run 1 rigid 4 start=0 wall=200 @ 0,1,2,3; pend 2 rigid 5 wall=100;"
         "pend 3 moldable 1-4 wall=50",
         "start 3 2"),
    CASE("unknown-walltime-uses-default", "easy", NULL,
         "nodes 4 1; run 1 rigid 2 start=0 @ 0,1; pend 2 rigid 4; pend 3 rigid 2 wall=5000", ""),
    CASE("default-walltime-configurable", "easy", "default_walltime=10000",
         "nodes 4 1; run 1 rigid 2 start=0 @ 0,1; pend 2 rigid 4; pend 3 rigid 2 wall=5000",
         "start 3 2"),
    CASE("no-estimates-never-delays", "easy", "default_walltime=0",
         "nodes 4 1; run 1 rigid 2 start=0 @ 0,1; pend 2 rigid 4; pend 3 rigid 2",
         "start 3 2"),
    CASE("head-larger-than-cluster", "easy", NULL,
         "nodes 4 1; run 1 rigid 2 start=0 wall=100 @ 0,1; pend 2 rigid 9 wall=10;"
         "pend 3 rigid 2 wall=5000",
         "start 3 2"),
    CASE("jobs-started-now-count-in-reservation", "easy", NULL,
         "nodes 4 1; pend 1 rigid 2 wall=100; pend 2 rigid 4 wall=100; pend 3 rigid 2 wall=50",
         "start 1 2; start 3 2"),
    CASE("overdue-job-expected-to-end-now", "easy", NULL,
         "nodes 4 1; now 500; run 1 rigid 2 start=0 wall=100 @ 0,1; pend 2 rigid 4 wall=10;"
         "pend 3 rigid 2 wall=1",
         ""),
    CASE("backfill-continues-past-waiting-job", "easy", NULL,
         "nodes 4 1; run 1 rigid 2 start=0 wall=200 @ 0,1; pend 2 rigid 4 wall=100;"
         "pend 3 rigid 2 wall=500; pend 4 rigid 1 wall=50",
         "start 4 1"),
};

int main(int argc, char **argv)
{
  return test_run_table(GROUP, cases, (int)(sizeof(cases) / sizeof(cases[0])), argc, argv);
}
