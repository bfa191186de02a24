/* An SWF trace (morph sim --swf): imported with the default options, then
 * with every job made malleable, capped and not. */
#include "fuzz_input.h"
#include "morph/workload.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  char path[64];
  morph_workload *wl = NULL;
  if (morph__fuzz_file(data, size, path, sizeof path) != 0 || morph_workload_create(&wl) != 0)
    return 0;
  morph_swf_options opt;
  morph_swf_options_init(&opt);
  morph_workload_load_swf(wl, path, &opt);
  opt.malleable_share = 1, opt.units_per_node = 2, opt.max_size = 64;
  morph_workload_load_swf(wl, path, &opt);
  opt.max_size = 0, opt.moldable = 1;
  morph_workload_load_swf(wl, path, &opt);
  morph_workload_destroy(wl);
  return 0;
}
