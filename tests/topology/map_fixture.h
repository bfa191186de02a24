/* A torus, its (empty) fault model and a mapping input of nprocs ranks
 * with room for their traffic: the fixture of the mapping tests
 * (test-map, test-place-box). Include after <cmocka.h>. */
#ifndef MORPH_TEST_MAP_FIXTURE_H
#define MORPH_TEST_MAP_FIXTURE_H

#include <stdint.h>
#include <stdlib.h>

#include "morph/map.h"

typedef struct fixture {
  morph_topo *t;
  morph_faults *f;
  uint64_t traffic[64 * 64];
  morph_map_input in;
  morph_map_report rep;
  int node[64];
} fixture;

static fixture *make(int x, int y, int z, int nprocs)
{
  fixture *F = calloc(1, sizeof *F);
  assert_non_null(F);
  assert_int_equal(morph_topo_create(&F->t), MORPH_OK);
  assert_int_equal(morph_topo_torus(F->t, x, y, z), MORPH_OK);
  assert_int_equal(morph_faults_create(F->t, &F->f), MORPH_OK);
  F->in = (morph_map_input){.topo = F->t, .faults = F->f, .nprocs = nprocs, .traffic = F->traffic,
                            .traffic_n = nprocs, .seed = 1};
  return F;
}

static void drop(fixture *F)
{
  morph_faults_destroy(F->f);
  morph_topo_destroy(F->t);
  free(F);
}

#endif
