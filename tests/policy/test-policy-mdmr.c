/* mdmr (ours, the default on EASY): paper 002's halving while jobs wait,
 * Algorithm 2's line 6 down to the minimum, paper 002's doubling; line 6,
 * and doubling past the first waiting job's reservation, only while a
 * third of the waiting jobs could start by shrinking. Defaults: lower
 * 0.2, upper 0.5. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "harness.h"

#define CASE(name, policy, params, snap, expect) {name, policy, params, snap, expect}

#define GROUP "test-policy-mdmr"

static const policy_case cases[] = {
    /* Step 1: an inefficient job is halved only while a job waits. */
    CASE("no-halving-without-a-queue", "mdmr+easy", NULL,
         "nodes 8 1; run 1 malleable 8 1 4 8 mtct=0.6/0.6 @ 0,1,2,3,4,5,6,7", ""),
    CASE("halving-while-a-job-waits", "mdmr+easy", NULL,
         "nodes 8 1; run 1 malleable 8 1 4 8 mtct=0.6/0.6 @ 0,1,2,3,4,5,6,7; pend 2 rigid 8",
         "shrink 1 8->4"),
    /* Step 3: line 6 goes down to the minimum (dmr stops at preferred). */
    CASE("line6-shrinks-below-pref", "mdmr+easy", NULL,
         "nodes 4 1; run 1 malleable 4 1 4 4 mtct=0.3/0.3 @ 0,1,2,3; pend 2 rigid 3",
         "shrink 1 4->1; start 2 3 dep=0"),
    CASE("dmr-stops-at-pref", "dmr+easy", NULL,
         "nodes 4 1; run 1 malleable 4 1 4 4 mtct=0.3/0.3 @ 0,1,2,3; pend 2 rigid 3", ""),
    /* Step 4: an efficient job doubles into free units when nobody waits. */
    CASE("doubles-when-nobody-waits", "mdmr+easy", NULL,
         "nodes 8 1; run 1 malleable 2 1 2 8 mtct=0.1/0.1 @ 0,1", "expand 1 2->4"),
    CASE("doubles-when-mtct-unknown", "mdmr+easy", NULL,
         "nodes 8 1; run 1 malleable 2 1 2 8 @ 0,1", "expand 1 2->4"),
    CASE("band-stays", "mdmr+easy", NULL,
         "nodes 8 1; run 1 malleable 2 1 2 8 mtct=0.3/0.1 @ 0,1", ""),
    /* While a job waits it doubles only if it ends before the head's
     * reservation: job 1 ends at 150 (start 0 + 150 s), the head (6 nodes)
     * can start at 200 when job 3 ends. */
    CASE("doubles-when-it-ends-before-the-reservation", "mdmr+easy", NULL,
         "now 100; nodes 8 1; run 1 malleable 2 1 2 8 mtct=0.1/0.1 start=0 wall=150 @ 0,1;"
         "run 3 rigid 4 start=0 wall=200 @ 2,3,4,5; pend 2 rigid 6 wall=100",
         "expand 1 2->4"),
    /* Ending after it (at 1000), it would take the head's units. */
    CASE("keeps-the-head-reservation", "mdmr+easy", NULL,
         "now 100; nodes 8 1; run 1 malleable 2 1 2 8 mtct=0.1/0.1 start=0 wall=1000 @ 0,1;"
         "run 3 rigid 4 start=0 wall=200 @ 2,3,4,5; pend 2 rigid 6 wall=100",
         ""),
    /* Units left over at the reservation may be taken: the head needs 4 of
     * the 8 free at 200, so job 1 may grow by 2 whenever it ends. */
    CASE("takes-units-left-over-at-the-reservation", "mdmr+easy", NULL,
         "now 100; nodes 8 1; run 1 malleable 2 1 2 8 mtct=0.1/0.1 start=0 wall=1000 @ 0,1;"
         "run 3 rigid 4 start=0 wall=200 @ 2,3,4,5; pend 2 rigid 4 wall=100",
         "expand 1 2->4"),
    /* Whether the queue can be served by shrinking: at least a third of
     * the waiting jobs fit on the free units plus what every resizable
     * running job releases at its minimum (here 0 + 3). One of three
     * (job 5) does: line 6 runs. */
    CASE("line6-when-a-third-of-the-queue-fits-by-shrinking", "mdmr+easy", NULL,
         "nodes 4 1; run 1 malleable 4 1 4 4 mtct=0.3/0.3 @ 0,1,2,3;"
         "pend 2 rigid 4; pend 3 rigid 4; pend 5 rigid 3",
         "shrink 1 4->1; start 5 3 dep=0"),
    /* One of four: the queue is of jobs no shrink can start, and line 6
     * would only move job 5 ahead of them at job 1's cost. */
    CASE("no-line6-when-less-than-a-third-fits-by-shrinking", "mdmr+easy", NULL,
         "nodes 4 1; run 1 malleable 4 1 4 4 mtct=0.3/0.3 @ 0,1,2,3;"
         "pend 2 rigid 4; pend 3 rigid 4; pend 4 rigid 4; pend 5 rigid 3",
         ""),
    /* A queue served by shrinking lets a growth take the head's units (as
     * in keeps-the-head-reservation, job 1 ends after the reservation at
     * 200 and nothing is left over then): job 4 fits on the free unit plus
     * one from each of jobs 3 and 5, though neither shrink alone starts
     * it, so line 6 leaves it, and job 1 doubles into the free unit. */
    CASE("grows-past-the-reservation-when-the-queue-fits-by-shrinking", "mdmr+easy", NULL,
         "now 100; nodes 8 1; run 1 malleable 2 2 2 8 mtct=0.1/0.1 start=0 wall=1000 @ 0,1;"
         "run 3 malleable 2 1 2 2 mtct=0.3/0.3 start=0 wall=200 @ 2,3;"
         "run 5 malleable 2 1 2 2 mtct=0.3/0.3 start=0 wall=200 @ 4,5;"
         "run 6 rigid 1 start=0 wall=200 @ 6; pend 2 rigid 6 wall=100; pend 4 rigid 3 wall=100",
         "expand 1 2->3"),
    CASE("rigid-job-ignored", "mdmr+easy", NULL,
         "nodes 8 1; run 1 rigid 2 mtct=0.1/0.1 @ 0,1", ""),
};

int main(int argc, char **argv)
{
  return test_run_table(GROUP, cases, (int)(sizeof(cases) / sizeof(cases[0])), argc, argv);
}
