/* The strategies of the placement stage backed by the mapping library
 * (src/place/mapped.c): tofa, greedy, random and box on a 4x4 torus
 * (data/torus44.topo, node i at x = i % 4, y = i / 4), with outage
 * probabilities from data/faults-*. Node units unless "unit slot". The
 * tests run in tests/place, where the data files are. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "place_harness.h"

#define TORUS "topology=data/torus44.topo"
#define CASE(name, strategy, params, snap, actions, expect)                                 \
  {name, strategy, snap, actions, expect, params}

static const place_case cases[] = {
    /* Listing 1.1: a window of consecutive fault-free nodes; among them
     * the cheapest (a whole ring, not one straddling two). */
    CASE("tofa-start-fault-free-window", "tofa", TORUS " faults=data/faults-node2",
         "nodes 16 1; pend 2 rigid 4", "start 2 4", "start 2 4 @4,5,6,7"),
    CASE("tofa-start-whole-ring-without-faults", "tofa", TORUS,
         "nodes 16 1; run 1 rigid 1 @ 1; pend 2 rigid 4", "start 2 4", "start 2 4 @4,5,6,7"),
    /* Without a window (nodes 4..15 busy), Scotch places on the most
     * compact free set, the faulty node last. */
    CASE("tofa-start-no-window-keeps-off-faulty", "tofa", TORUS " faults=data/faults-node2",
         "nodes 16 1; run 1 rigid 12 @ 4,5,6,7,8,9,10,11,12,13,14,15; pend 2 rigid 3",
         "start 2 3", "start 2 3 @0,1,3"),
    /* Growing: the new processes go next to the job's nodes (5 and 6: their
     * neighbours 1, 2 above, 9, 10 below; the first on ties). */
    CASE("tofa-expand-next-to-the-job", "tofa", TORUS,
         "nodes 16 1; run 1 malleable 2 1 1 8 @ 5,6", "expand 1 2->4", "expand 1 2->4 @1,2"),
    /* Above the batch host only (expand_from): node 5's nearest free
     * neighbour numbered 6 or more is 6; 7 or more, 9. */
    CASE("tofa-expand-above-expand-from", "tofa", TORUS,
         "nodes 16 1; run 1 malleable 1 1 1 8 from=6 @ 5", "expand 1 1->2", "expand 1 1->2 @6"),
    CASE("tofa-expand-above-expand-from-skips-lower-neighbours", "tofa", TORUS,
         "nodes 16 1; run 1 malleable 1 1 1 8 from=7 @ 5", "expand 1 1->2", "expand 1 1->2 @9"),
    /* data/line4.topo, the Slurm case's line node1 - node4 - node3 - node2
     * (indices 0 - 3 - 2 - 1): a grow from node1 takes node4 then node3,
     * not node2; a shrink gives back the farthest, node3, not the last
     * node Slurm lists (node4). */
    CASE("tofa-line-expand-nearest-not-first-free", "tofa", "topology=data/line4.topo",
         "nodes 4 1; run 1 malleable 1 1 1 3 @ 0", "expand 1 1->3", "expand 1 1->3 @3,2"),
    CASE("tofa-line-shrink-farthest", "tofa", "topology=data/line4.topo",
         "nodes 4 1; run 1 malleable 3 1 1 3 @ 0,3,2", "shrink 1 3->2", "shrink 1 3->2 @2"),
    /* A job whose batch host is node3 (index 2) may grow onto node4 only,
     * not onto its other neighbour node2: trimmed to one node. */
    CASE("tofa-line-expand-above-batch-host", "tofa", "topology=data/line4.topo",
         "nodes 4 1; run 1 malleable 1 1 1 3 from=3 @ 2", "expand 1 1->3", "expand 1 1->2 @3"),
    CASE("greedy-expand-next-to-the-job", "greedy", TORUS,
         "nodes 16 1; run 1 malleable 2 1 1 8 @ 5,6", "expand 1 2->4", "expand 1 2->4 @1,2"),
    /* Shrinking: the node likely to fail first, then the farthest from
     * the master's node (5). */
    CASE("tofa-shrink-faulty-then-far", "tofa", TORUS " faults=data/faults-node9",
         "nodes 16 1; run 1 malleable 4 1 1 4 @ 5,6,9,15", "shrink 1 4->2",
         "shrink 1 4->2 @9,15"),
    CASE("tofa-shrink-draining-first", "tofa", TORUS " faults=data/faults-node9",
         "nodes 16 1; drain 6; run 1 malleable 4 1 1 4 @ 5,6,9,15", "shrink 1 4->2",
         "shrink 1 4->2 @6,9"),
    /* Slot units: the fewest nodes that hold the job, side by side (node 0
     * has one slot left). */
    CASE("tofa-start-slots-fewest-nodes", "tofa", TORUS,
         "unit slot; nodes 16 2; run 1 rigid 1 @ 0:1; pend 2 rigid 5", "start 2 5",
         "start 2 5 @0:1,1:2,2:2"),
    /* A snapshot that is not the topology's size: first fit, not a failure. */
    CASE("tofa-other-size-falls-back-to-first-fit", "tofa", TORUS,
         "nodes 20 1; run 1 rigid 1 @ 0; pend 2 rigid 3", "start 2 3", "start 2 3 @1,2,3"),
    /* Without a topology: a flat one of the snapshot's size. */
    CASE("tofa-no-topology-is-flat", "tofa", NULL, "nodes 6 1; run 1 rigid 1 @ 0; pend 2 rigid 3",
         "start 2 3", "start 2 3 @1,2,3"),
    /* A START after a SHRINK takes what it released first, then grows
     * from there. */
    CASE("tofa-start-after-shrink", "tofa", TORUS,
         "nodes 16 1; run 1 malleable 4 1 1 4 @ 0,1,2,3; run 3 rigid 8 @ 8,9,10,11,12,13,14,15; "
         "pend 2 rigid 3",
         "shrink 1 4->2 up; start 2 3 dep=0", "shrink 1 4->2 @2,3; start 2 3 dep=0 @2,3,6"),
    /* box (morph's own) in the stage: a whole ring of free fault-free
     * nodes, as compact as a 2x2 square on a 4x4 torus; not Listing 1.1's
     * node order (tofa: 4,5,6,7): the column x = 1, off busy node 0 and
     * faulty node 2. */
    CASE("box-start-compact-off-busy-and-faulty", "box", TORUS " faults=data/faults-node2",
         "nodes 16 1; run 1 rigid 1 @ 0; pend 2 rigid 4", "start 2 4", "start 2 4 @1,5,9,13"),
    CASE("tofa-start-same-snapshot-as-box", "tofa", TORUS " faults=data/faults-node2",
         "nodes 16 1; run 1 rigid 1 @ 0; pend 2 rigid 4", "start 2 4", "start 2 4 @4,5,6,7"),
    CASE("box-expand-next-to-the-job", "box", TORUS,
         "nodes 16 1; run 1 malleable 2 1 1 8 @ 5,6", "expand 1 2->4", "expand 1 2->4 @1,2"),
};

int main(int argc, char **argv)
{
  return place_run_table("test-place-tofa", cases, sizeof cases / sizeof cases[0], argc, argv);
}
