/* morphd's hostfile (morph daemon --hostfile): the pool it makes. */
#include "fuzz_input.h"
#include "morph/error.h"
#include "rms/pool.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  char path[64], err[512];
  morph__pool p;
  if (morph__fuzz_file(data, size, path, sizeof path) != 0)
    return 0;
  if (morph__pool_hostfile(&p, path, err, sizeof err) == MORPH_OK) {
    morph__pool_free_slots(&p);
    morph__pool_free(&p);
  }
  return 0;
}
