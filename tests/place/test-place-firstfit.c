/* The firstfit strategy, one case per rule: where starts and expansions
 * go, which units a shrink gives back, what a START after a SHRINK takes,
 * and the actions that do not fit. Node units unless "unit slot". */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "place_harness.h"

#define CASE(name, snap, actions, expect) {name, "firstfit", snap, actions, expect, NULL}

static const place_case cases[] = {
    /* Starts take the lowest-numbered free units. */
    CASE("start-lowest-free-nodes", "nodes 4 1; run 1 rigid 1 @ 1; pend 2 rigid 2", "start 2 2",
         "start 2 2 @0,2"),
    CASE("start-skips-down-and-draining", "nodes 5 1; down 0; drain 1; pend 2 rigid 2",
         "start 2 2", "start 2 2 @2,3"),
    CASE("start-node-units-whole-free-nodes-only",
         "nodes 3 4; run 1 rigid 1 @ 0; pend 2 rigid 2", "start 2 2", "start 2 2 @1,2"),
    CASE("start-slots-fill-partly-used-nodes",
         "unit slot; nodes 3 4; run 1 rigid 3 @ 0:3; pend 2 rigid 4", "start 2 4",
         "start 2 4 @0:1,1:3"),
    /* Expansions: the job's own nodes first (slot units), then first fit. */
    CASE("expand-prefers-own-nodes",
         "unit slot; nodes 3 2; run 2 rigid 1 @ 0:1; run 1 malleable 1 1 1 4 @ 1:1",
         "expand 1 1->4", "expand 1 1->4 @1:1,0:1,2:1"),
    CASE("expand-own-nodes-in-allocation-order",
         "unit slot; nodes 4 2; run 1 malleable 2 1 1 8 @ 2:1,1:1", "expand 1 2->5",
         "expand 1 2->5 @2:1,1:1,0:1"),
    CASE("expand-node-units-first-free", "nodes 4 1; run 1 malleable 1 1 1 4 @ 2",
         "expand 1 1->3", "expand 1 1->3 @0,1"),
    /* Shrinks: DOWN / DRAINING nodes first, then from the last piece back;
     * the master (first piece's last unit) stays. */
    CASE("shrink-from-last-piece", "nodes 4 1; run 1 malleable 4 1 1 4 @ 0,1,2,3",
         "shrink 1 4->2", "shrink 1 4->2 @3,2"),
    CASE("shrink-bad-nodes-first",
         "nodes 4 1; down 1; drain 2; run 1 malleable 4 1 1 4 @ 0,1,2,3", "shrink 1 4->2",
         "shrink 1 4->2 @2,1"),
    CASE("shrink-bad-slots-first-then-up",
         "unit slot; nodes 3 2; drain 1; run 1 malleable 5 1 1 6 @ 0:2,1:2,2:1",
         "shrink 1 5->2", "shrink 1 5->2 @1:2,2:1"),
    CASE("shrink-up-rule-leaves-bad-nodes",
         "unit slot; nodes 3 2; drain 1; run 1 malleable 5 1 1 6 @ 0:2,1:2,2:1",
         "shrink 1 5->3 up", "shrink 1 5->3 @2:1,0:1"),
    CASE("shrink-never-master-node", "nodes 3 1; run 1 malleable 3 1 1 3 @ 0,1,2",
         "shrink 1 3->1", "shrink 1 3->1 @2,1"),
    CASE("shrink-keeps-master-slot", "unit slot; nodes 1 4; run 1 malleable 4 1 1 4 @ 0:4",
         "shrink 1 4->1", "shrink 1 4->1 @0:3"),
    CASE("shrink-master-on-bad-node-kept",
         "nodes 3 1; down 0; run 1 malleable 3 1 1 3 @ 0,1,2", "shrink 1 3->1",
         "shrink 1 3->1 @2,1"),
    /* A START after a SHRINK takes exactly what it released, then free
     * units; released units it does not need are nobody's. */
    CASE("start-after-shrink-released-first",
         "nodes 5 1; run 1 malleable 4 1 1 4 @ 0,1,2,3; pend 2 rigid 3",
         "shrink 1 4->2 up; start 2 3 dep=0", "shrink 1 4->2 @3,2; start 2 3 dep=0 @3,2,4"),
    CASE("start-after-shrink-takes-only-what-it-needs",
         "nodes 4 1; run 1 malleable 4 1 1 4 @ 0,1,2,3; pend 2 rigid 1",
         "shrink 1 4->2 up; start 2 1 dep=0", "shrink 1 4->2 @3,2; start 2 1 dep=0 @3"),
    CASE("released-left-over-not-free",
         "nodes 4 1; run 1 malleable 4 1 1 4 @ 0,1,2,3; pend 2 rigid 1; pend 3 rigid 1",
         "shrink 1 4->2 up; start 2 1 dep=0; start 3 1", "EBUSY: start of job 3 needs 1 free"),
    CASE("released-not-free-without-depends",
         "nodes 2 1; run 1 malleable 2 1 1 2 @ 0,1; pend 2 rigid 1", "shrink 1 2->1; start 2 1",
         "EBUSY: needs 1 free units, 0 are free"),
    CASE("start-after-shrink-slots-merge",
         "unit slot; nodes 2 4; run 1 malleable 6 1 2 8 @ 0:4,1:2; pend 2 rigid 3",
         "shrink 1 6->5 up; start 2 3 dep=0", "shrink 1 6->5 @1:1; start 2 3 dep=0 @1:3"),
    /* Nothing is booked twice across actions. */
    CASE("starts-never-double-book", "nodes 4 1; pend 2 rigid 2; pend 3 rigid 2",
         "start 2 2; start 3 2", "start 2 2 @0,1; start 3 2 @2,3"),
    CASE("slots-shared-never-double-booked",
         "unit slot; nodes 2 3; pend 2 rigid 2; pend 3 rigid 2; pend 4 rigid 2",
         "start 2 2; start 3 2; start 4 2", "start 2 2 @0:2; start 3 2 @0:1,1:1; start 4 2 @1:2"),
    CASE("expand-after-start-takes-what-is-left",
         "unit slot; nodes 2 2; run 1 malleable 1 1 1 4 @ 0:1; pend 2 rigid 2",
         "start 2 2; expand 1 1->2", "start 2 2 @0:1,1:1; expand 1 1->2 @1:1"),
    /* expand_from (Slurm's batch host rule, docs/slurm.md): an expansion
     * takes only nodes at or above it, trimmed to what is free there, and
     * is dropped when nothing is (a later START's dep follows). */
    CASE("expand-only-above-expand-from", "nodes 5 1; run 1 malleable 1 1 1 4 from=3 @ 2",
         "expand 1 1->2", "expand 1 1->2 @3"),
    CASE("expand-trimmed-to-free-above-expand-from",
         "nodes 5 1; run 1 malleable 1 1 1 4 from=3 @ 2", "expand 1 1->4",
         "expand 1 1->3 @3,4"),
    CASE("expand-dropped-when-nothing-free-above",
         "nodes 5 1; run 1 malleable 1 1 1 4 from=4 @ 3; run 2 malleable 2 1 1 4 @ 0,4; "
         "pend 3 rigid 1",
         "expand 1 1->2; shrink 2 2->1 up; start 3 1 dep=1",
         "shrink 2 2->1 @4; start 3 1 dep=0 @4"),
    CASE("expand-below-left-free-for-next-action",
         "nodes 5 1; run 1 malleable 1 1 1 4 from=4 @ 3; pend 2 rigid 2",
         "expand 1 1->3; start 2 2", "expand 1 1->2 @4; start 2 2 @0,1"),
    /* Actions that do not fit or do not match the snapshot. */
    CASE("start-too-large", "nodes 2 1; pend 2 rigid 3", "start 2 3",
         "EBUSY: needs 3 free units, 2 are free"),
    CASE("expand-too-large", "nodes 2 1; run 1 malleable 1 1 1 4 @ 0", "expand 1 1->3",
         "EBUSY: expand of job 1 needs 2"),
    CASE("shrink-more-than-releasable",
         "nodes 3 1; drain 2; run 1 malleable 3 1 1 3 @ 0,1,2", "shrink 1 3->1 up",
         "EBUSY: gives back 2 units, it may give back 1"),
    CASE("unknown-job", "nodes 2 1; pend 2 rigid 1", "start 9 1", "EINVAL: no such pending job"),
    CASE("from-not-size", "nodes 4 1; run 1 malleable 2 1 1 4 @ 0,1", "expand 1 1->3",
         "EINVAL: from 1 (size 2)"),
    CASE("two-actions-one-job", "nodes 4 1; run 1 malleable 2 1 1 4 @ 0,1",
         "shrink 1 2->1; expand 1 2->3", "EINVAL: two actions"),
    CASE("depends-on-a-start", "nodes 4 1; pend 2 rigid 1; pend 3 rigid 1",
         "start 2 1; start 3 1 dep=0", "EINVAL: not an earlier shrink"),
    CASE("shrink-serves-two-starts",
         "nodes 4 1; run 1 malleable 4 1 1 4 @ 0,1,2,3; pend 2 rigid 1; pend 3 rigid 1",
         "shrink 1 4->2; start 2 1 dep=0; start 3 1 dep=0", "EINVAL: serving no other start"),
    CASE("migrate-not-placed", "nodes 2 1; run 1 malleable 1 1 1 2 @ 0", "migrate 1",
         "EINVAL: op 4 is not placed"),
};

int main(int argc, char **argv)
{
  return place_run_table("test-place-firstfit", cases, (int)(sizeof(cases) / sizeof(cases[0])),
                         argc, argv);
}
