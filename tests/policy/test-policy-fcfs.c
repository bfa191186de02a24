/* First come, first served, with moldable requests (Slurm -N min-max). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "harness.h"

#define CASE(name, policy, params, snap, expect) {name, policy, params, snap, expect}

#define GROUP "test-policy-fcfs"

static const policy_case cases[] = {
    CASE("starts-in-queue-order", "fcfs", NULL,
         "nodes 4 1; pend 1 rigid 2; pend 2 rigid 2; pend 3 rigid 1", "start 1 2; start 2 2"),
    CASE("head-blocks-queue", "fcfs", NULL, "nodes 4 1; pend 1 rigid 5; pend 2 rigid 1", ""),
    CASE("empty-queue", "fcfs", NULL, "nodes 4 1; run 1 rigid 2 @ 0,1", ""),
    CASE("moldable-takes-all-free", "fcfs", NULL, "nodes 4 1; pend 1 moldable 2-8",
         "start 1 4"),
    CASE("moldable-capped-at-max", "fcfs", NULL, "nodes 8 1; pend 1 moldable 2-3",
         "start 1 3"),
    CASE("moldable-below-min-waits", "fcfs", NULL,
         "nodes 4 1; run 9 rigid 3 @ 0,1,2; pend 1 moldable 2-4", ""),
    CASE("flexible-submission-is-moldable", "fcfs", NULL,
         "nodes 8 1; pend 1 flexible 2-32 2 16 32", "start 1 8"),
    CASE("skips-down-and-draining-nodes", "fcfs", NULL,
         "nodes 4 1; down 0; drain 1; pend 1 rigid 2; pend 2 rigid 1", "start 1 2 @2,3"),
    CASE("down-nodes-not-counted", "fcfs", NULL, "nodes 4 1; down 0; pend 1 rigid 4", ""),
    CASE("slots-first-fit", "fcfs", NULL,
         "unit slot; nodes 2 4; run 9 rigid 1 @ 0:1; pend 2 rigid 5", "start 2 5 @0:3,1:2"),
    CASE("slots-used-by-others-not-booked", "fcfs", NULL,
         "unit slot; nodes 2 4; run 9 rigid 3 @ 0:3; pend 2 rigid 6", ""),
    CASE("nodes-partially-used-not-free", "fcfs", NULL,
         "nodes 2 4; run 9 rigid 1 @ 0; pend 2 rigid 2", ""),
};

int main(int argc, char **argv)
{
  return test_run_table(GROUP, cases, (int)(sizeof(cases) / sizeof(cases[0])), argc, argv);
}
