/*
 * The protocol decoder as the daemon and morph run reach it: the bytes a
 * peer sends, cut into lines, each line decoded. A line that decodes must
 * encode again and decode to a message that encodes the same (no field is
 * lost or changed on the way through).
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"
#include "morph/error.h"
#include "proto/protocol.h"

static void round_trip(const morph__msg *m)
{
  static char a[8192], b[8192];
  char err[256];
  morph__msg again;
  int n = morph__msg_encode(m, a, sizeof a);
  if (n < 0)
    return; /* too long for the buffer: refused, not corrupted */
  if (morph__msg_decode(a, &again, err, sizeof err) != MORPH_OK)
    abort();
  if (morph__msg_encode(&again, b, sizeof b) != n || memcmp(a, b, (size_t)n) != 0)
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  char *text = morph__fuzz_text(data, size);
  if (!text)
    return 0;
  char *save = NULL;
  for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    morph__msg m;
    char err[256];
    if (morph__msg_decode(line, &m, err, sizeof err) == MORPH_OK)
      round_trip(&m);
  }
  free(text);
  return 0;
}
