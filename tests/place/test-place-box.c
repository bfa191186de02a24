/* The box strategy of morph/map.h (src/place/map_box.c) on small tori: it
 * finds the most compact sub-box for the job, keeps the box and its
 * routes off nodes likely to fail, and falls back to tofa (Listing 1.1)
 * when no fault-free box exists or the topology is not a torus. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "morph/map.h"
#include "../topology/map_fixture.h"

/* A periodic g x g x g grid of ranks (rank = x + g (y + g z)) exchanging
 * w bytes with each grid neighbour, as the LAMMPS-like proxy. */
static void grid(fixture *F, int g, uint64_t w)
{
  int k = g * g * g;
  for (int r = 0; r < k; r++)
    for (int d = 0, s = 1; d < 3; d++, s *= g) {
      int c = r / s % g, q = r - c * s + (c + 1) % g * s;
      if (q != r)
        F->traffic[r * k + q] = F->traffic[q * k + r] = w;
    }
}

static int hops(const fixture *F, int u, int v) { return morph_topo_route(F->t, u, v, NULL, 0); }

/* The number of distinct coordinates the ranks use along each dimension. */
static void extent(const fixture *F, int k, int ext[3])
{
  int d[3];
  morph_topo_dims(F->t, d);
  for (int a = 0; a < 3; a++) {
    unsigned char seen[64] = {0};
    ext[a] = 0;
    for (int r = 0; r < k; r++) {
      int xyz[3];
      morph_topo_coords(F->t, F->node[r], xyz);
      ext[a] += !seen[xyz[a]]++;
    }
  }
}

static void all_distinct(const fixture *F, int k)
{
  for (int i = 0; i < k; i++)
    for (int j = i + 1; j < k; j++)
      assert_int_not_equal(F->node[i], F->node[j]);
}

/* pf 0.02 on every node where faulty(x, y, z), 0 elsewhere. */
static void set_faults(fixture *F, int (*faulty)(const int xyz[3]))
{
  for (int v = 0; v < morph_topo_nodes(F->t); v++) {
    int xyz[3];
    morph_topo_coords(F->t, v, xyz);
    assert_int_equal(morph_faults_set(F->f, v, faulty(xyz) ? 0.02 : 0), MORPH_OK);
  }
}

static int outside_block_34(const int p[3])
{
  return !(p[0] >= 3 && p[0] <= 4 && p[1] >= 3 && p[1] <= 4 && p[2] >= 3 && p[2] <= 4);
}

static int on_a_zero_plane(const int p[3]) { return !p[0] || !p[1] || !p[2]; }

static int odd_sum(const int p[3]) { return (p[0] + p[1] + p[2]) % 2; }

static void place(fixture *F, int want_box)
{
  assert_int_equal(morph_map_compute(MORPH_MAP_BOX, &F->in, F->node, &F->rep), MORPH_OK);
  assert_int_equal(F->rep.used, MORPH_MAP_BOX);
  assert_int_equal(F->rep.fallback, 0);
  assert_int_equal(F->rep.box[0] != 0, want_box);
  all_distinct(F, F->in.nprocs);
}

/* 8 ranks in a 2x2x2 grid on a 6x6x6 torus: a 2x2x2 box (a 4x2x1 one
 * costs 112 hops over all pairs against 96), and every grid neighbour is
 * one link away (the box's own order achieves it, Scotch may not beat it). */
static void box_is_the_most_compact(void **state)
{
  (void)state;
  fixture *F = make(6, 6, 6, 8);
  grid(F, 2, 1000);
  place(F, 1);
  int ext[3];
  extent(F, 8, ext);
  for (int d = 0; d < 3; d++) {
    assert_int_equal(F->rep.box[d], 2);
    assert_int_equal(ext[d], 2);
  }
  for (int i = 0; i < 8; i++)
    for (int j = 0; j < 8; j++)
      if (F->traffic[i * 8 + j])
        assert_int_equal(hops(F, F->node[i], F->node[j]), 1);
  drop(F);
}

/* The task's case: 64 ranks of a 4x4x4 grid on the 8x8x8 torus get a
 * 4x4x4 box (Listing 1.1 gives them an 8x8 plane), cheaper than both. */
static void box_for_64_ranks_is_4x4x4(void **state)
{
  (void)state;
  fixture *F = make(8, 8, 8, 64);
  grid(F, 4, 1000);
  place(F, 1);
  double box_cost = F->rep.cost;
  int ext[3];
  extent(F, 64, ext);
  for (int d = 0; d < 3; d++) {
    assert_int_equal(F->rep.box[d], 4);
    assert_int_equal(ext[d], 4);
  }
  assert_int_equal(morph_map_compute(MORPH_MAP_TOFA, &F->in, F->node, &F->rep), MORPH_OK);
  assert_int_equal(F->rep.tofa_window, 1);
  assert_true(box_cost < F->rep.cost);
  drop(F);
}

/* Every node may fail except the 2x2x2 block at (3..4)^3 of a 6x6x6
 * torus: the box is that block, whatever the job's traffic. */
static void box_avoids_faulty_nodes(void **state)
{
  (void)state;
  fixture *F = make(6, 6, 6, 8);
  grid(F, 2, 1000);
  set_faults(F, outside_block_34);
  place(F, 1);
  assert_int_equal(F->rep.on_faulty, 0);
  for (int r = 0; r < 8; r++) {
    int xyz[3];
    morph_topo_coords(F->t, F->node[r], xyz);
    for (int d = 0; d < 3; d++)
      assert_in_range(xyz[d], 3, 4);
  }
  drop(F);
}

/* On a 4x4x4 torus the nodes with x, y or z = 0 may fail. A fault-free
 * 2x2x2 box fits in 1..3 along each dimension, but routes between 1 and
 * 3 may go through 0: the box's routes must not cross a faulty node. */
static void box_routes_avoid_faulty_nodes(void **state)
{
  (void)state;
  fixture *F = make(4, 4, 4, 8);
  grid(F, 2, 1000);
  unsigned char touched[64];
  set_faults(F, on_a_zero_plane);
  place(F, 1);
  F->in.traffic = NULL; /* every pair's route */
  assert_int_equal(morph_map_footprint(&F->in, F->node, touched), MORPH_OK);
  for (int v = 0; v < 64; v++)
    if (touched[v])
      assert_true(morph_faults_get(F->f, v) == 0);
  drop(F);
}

/* A checkerboard of faulty nodes on a 4x4x4 torus: no two neighbours are
 * both fault-free, so no box; tofa's Listing 1.1 places the job instead
 * (no window either: on the whole machine, still one rank per node). */
static void box_falls_back_without_a_fault_free_box(void **state)
{
  (void)state;
  fixture *F = make(4, 4, 4, 8);
  grid(F, 2, 1000);
  set_faults(F, odd_sum);
  place(F, 0);
  assert_int_equal(F->rep.box[1], 0);
  assert_int_equal(F->rep.box[2], 0);
  assert_int_equal(F->rep.tofa_window, 0);
  int tofa[64];
  memcpy(tofa, F->node, sizeof tofa);
  morph_map_report rep;
  assert_int_equal(morph_map_compute(MORPH_MAP_TOFA, &F->in, tofa, &rep), MORPH_OK);
  assert_memory_equal(tofa, F->node, sizeof(int) * 8);
  drop(F);
}

/* Busy nodes count as missing: with only one x-row of a 4x4x4 torus free,
 * 8 ranks fit in no box and the job still gets 8 free nodes. */
static void box_falls_back_when_nodes_are_busy(void **state)
{
  (void)state;
  fixture *F = make(4, 4, 4, 8);
  int avail[8] = {0, 1, 2, 3, 21, 22, 42, 63}; /* one x-row, and scattered nodes */
  F->in.available = avail, F->in.navailable = 8;
  place(F, 0);
  for (int r = 0; r < 8; r++) {
    int ok = 0;
    for (int i = 0; i < 8; i++)
      ok |= F->node[r] == avail[i];
    assert_true(ok);
  }
  drop(F);
}

/* A flat topology has no box: tofa's placement. */
static void box_on_flat_topology_is_tofa(void **state)
{
  (void)state;
  fixture *F = make(4, 4, 4, 4);
  morph_topo_destroy(F->t);
  morph_faults_destroy(F->f);
  assert_int_equal(morph_topo_create(&F->t), MORPH_OK);
  assert_int_equal(morph_topo_flat(F->t, 10), MORPH_OK);
  assert_int_equal(morph_faults_create(F->t, &F->f), MORPH_OK);
  F->in.topo = F->t, F->in.faults = F->f;
  F->traffic[0 * 4 + 3] = F->traffic[3 * 4 + 0] = 100;
  place(F, 0);
  int tofa[4];
  morph_map_report rep;
  assert_int_equal(morph_map_compute(MORPH_MAP_TOFA, &F->in, tofa, &rep), MORPH_OK);
  assert_memory_equal(tofa, F->node, sizeof tofa);
  drop(F);
}

int main(int argc, char **argv)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(box_is_the_most_compact),
    cmocka_unit_test(box_for_64_ranks_is_4x4x4),
    cmocka_unit_test(box_avoids_faulty_nodes),
    cmocka_unit_test(box_routes_avoid_faulty_nodes),
    cmocka_unit_test(box_falls_back_without_a_fault_free_box),
    cmocka_unit_test(box_falls_back_when_nodes_are_busy),
    cmocka_unit_test(box_on_flat_topology_is_tofa),
  };
  if (argc > 1)
    cmocka_set_test_filter(argv[1]);
  return cmocka_run_group_tests(tests, NULL, NULL);
}
