/* Stepping scheduler (src/policy/stepping.c, paper 002 section 5.4.4): a
 * job grows by step_units every step_period seconds (defaults 1 and 60 s)
 * while units are free. now = 100 unless said otherwise. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "harness.h"

#define CASE(name, policy, params, snap, expect) {name, policy, params, snap, expect}

static const policy_case cases[] = {
    CASE("steps-after-period", "stepping", NULL,
         "nodes 8 1; run 1 malleable 1 1 1 8 last=40 @ 0", "expand 1 1->2"),
    CASE("waits-for-period", "stepping", NULL,
         "nodes 8 1; run 1 malleable 1 1 1 8 last=41 @ 0", ""),
    CASE("step-units-param", "stepping", "step_units=3",
         "nodes 8 1; run 1 malleable 1 1 1 8 last=40 @ 0", "expand 1 1->4"),
    CASE("step-period-param", "stepping", "step_period=10",
         "nodes 8 1; run 1 malleable 1 1 1 8 last=90 @ 0", "expand 1 1->2"),
    CASE("step-limited-by-free", "stepping", "step_units=4",
         "nodes 2 1; run 1 malleable 1 1 1 8 last=0 @ 0", "expand 1 1->2"),
    CASE("step-limited-by-max", "stepping", "step_units=4",
         "nodes 8 1; run 1 malleable 1 1 1 2 last=0 @ 0", "expand 1 1->2"),
    CASE("no-free-no-step", "stepping", NULL,
         "nodes 1 1; run 1 malleable 1 1 1 8 last=0 @ 0", ""),
    CASE("at-max-no-step", "stepping", NULL,
         "nodes 4 1; run 1 malleable 2 1 1 2 last=0 @ 0,1", ""),
    CASE("sizes-factor-no-step-to-non-multiple", "stepping", "sizes=factor",
         "nodes 8 1; run 1 malleable 2 1 1 8 last=0 @ 0,1", ""),
    CASE("sizes-factor-step-to-multiple", "stepping", "sizes=factor step_units=2",
         "nodes 8 1; run 1 malleable 2 1 1 8 last=0 @ 0,1", "expand 1 2->4"),
    CASE("rigid-not-stepped", "stepping", NULL, "nodes 4 1; run 1 rigid 1 last=0 @ 0", ""),
    CASE("resizing-not-stepped", "stepping", NULL,
         "nodes 4 1; run 1 malleable 1 1 1 4 last=0 resizing=1 @ 0", ""),
    CASE("inhibitor-applies", "stepping", NULL,
         "nodes 4 1; run 1 malleable 1 1 1 4 last=30 period=120 @ 0", ""),
    CASE("starts-before-steps", "stepping", NULL,
         "nodes 8 1; run 1 malleable 1 1 1 8 last=0 @ 0; pend 2 rigid 7", "start 2 7"),
    CASE("never-shrinks", "stepping", NULL,
         "nodes 4 1; run 1 malleable 4 1 1 4 last=0 @ 0,1,2,3; pend 2 rigid 2", ""),
    CASE("every-due-job-steps", "stepping", NULL,
         "nodes 4 1; run 1 malleable 1 1 1 4 last=0 @ 0; run 2 flexible 1 1 1 4 last=0 @ 1",
         "expand 1 1->2; expand 2 1->2"),
};

int main(int argc, char **argv)
{
  return test_run_table("test-policy-stepping", cases, (int)(sizeof(cases) / sizeof(cases[0])),
                        argc, argv);
}
