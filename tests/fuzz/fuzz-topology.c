/* The topology file of the placement stage (morph daemon --topology): the
 * machine it makes, and the routes between its first and last nodes. */
#include "fuzz_input.h"
#include "morph/error.h"
#include "morph/topology.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  char path[64];
  morph_topo *t;
  if (morph__fuzz_file(data, size, path, sizeof path) != 0 || morph_topo_create(&t) != MORPH_OK)
    return 0;
  if (morph_topo_load(t, path) == MORPH_OK && morph_topo_nodes(t) > 0) {
    morph_link links[64];
    int n = morph_topo_nodes(t), max = morph_topo_max_hops(t);
    morph_topo_route(t, 0, n - 1, links, max < 64 ? max : 64);
    morph_topo_route(t, n - 1, 0, links, max < 64 ? max : 64);
    morph_route_cost(t, NULL, NULL, 0, n - 1);
  }
  morph_topo_destroy(t);
  return 0;
}
