/* A JSON workload file (morph workload run, morph sim): parsed, and when
 * it loads, written back. */
#include <stdio.h>
#include <stdlib.h>

#include "fuzz_input.h"
#include "morph/error.h"
#include "morph/workload.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  char *text = morph__fuzz_text(data, size);
  morph_workload *wl = NULL;
  if (!text || morph_workload_create(&wl) != MORPH_OK) {
    free(text);
    return 0;
  }
  if (morph_workload_parse_json(wl, text, "fuzz.json") == MORPH_OK) {
    FILE *null = fopen("/dev/null", "w");
    if (null) {
      morph_workload_write_json(wl, null);
      fclose(null);
    }
  }
  morph_workload_destroy(wl);
  free(text);
  return 0;
}
