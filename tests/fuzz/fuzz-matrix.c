/* The communication matrix (Matrix Market, what morph prof writes and the
 * placement reads), both weights. */
#include "fuzz_input.h"
#include "morph/error.h"
#include "morph/prof.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  char path[64];
  morph_comm_matrix *m;
  if (morph__fuzz_file(data, size, path, sizeof path) != 0 ||
      morph_comm_matrix_create(2, &m) != MORPH_OK)
    return 0;
  if (morph_comm_matrix_load(m, path, MORPH_CM_BYTES) == MORPH_OK)
    morph_comm_matrix_total(m, MORPH_CM_BYTES);
  if (morph_comm_matrix_load(m, path, MORPH_CM_MSGS) == MORPH_OK)
    morph_comm_matrix_total(m, MORPH_CM_MSGS);
  morph_comm_matrix_destroy(m);
  return 0;
}
