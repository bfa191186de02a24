/* The faults file of the placement stage (morph daemon --faults), over a
 * 2x2x2 torus whose nodes are node0..node7. */
#include "fuzz_input.h"
#include "morph/error.h"
#include "morph/topology.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  char path[64];
  morph_topo *t;
  morph_faults *f = NULL;
  if (morph__fuzz_file(data, size, path, sizeof path) != 0 || morph_topo_create(&t) != MORPH_OK)
    return 0;
  if (morph_topo_parse(t, "topology torus 2 2 2\n", "fuzz") == MORPH_OK &&
      morph_faults_create(t, &f) == MORPH_OK && morph_faults_load(f, t, path) == MORPH_OK) {
    for (int i = 0; i < morph_faults_nodes(f); i++)
      if (!(morph_faults_get(f, i) >= 0 && morph_faults_get(f, i) <= 1))
        __builtin_trap(); /* the loader promised [0, 1] */
    morph_route_cost(t, f, NULL, 0, 7);
  }
  morph_faults_destroy(f);
  morph_topo_destroy(t);
  return 0;
}
