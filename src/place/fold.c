#include "fold.h"

#include <stdlib.h>

uint64_t *morph__fold_traffic(const uint64_t *m, int n, const int *unit_rank, int nunits, int k)
{
  if (!m || n < 1 || nunits < 1 || k < 1 || n % nunits)
    return NULL;
  int per = n / nunits;
  for (int u = 0; u < nunits; u++)
    if (unit_rank[u] < 0 || unit_rank[u] >= k)
      return NULL;
  uint64_t *out = calloc((size_t)k * (size_t)k, sizeof *out);
  for (int i = 0; out && i < n; i++) {
    int a = unit_rank[i / per];
    for (int j = 0; j < n; j++) {
      int b = unit_rank[j / per];
      if (a != b)
        out[(size_t)a * (size_t)k + (size_t)b] += m[(size_t)i * (size_t)n + (size_t)j];
    }
  }
  return out;
}
