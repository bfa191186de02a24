/* Free nodes drawn at random: the paper's second baseline. The generator
 * is local and seeded from the input, so a seed gives one placement. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "place/map_internal.h"

/* splitmix64: small, good enough to shuffle, and no hidden state. */
static uint64_t next(uint64_t *s)
{
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static int map_random(morph__mapctx *c, int *node)
{
  int *deck = malloc(sizeof(int) * (size_t)c->navail);
  uint64_t s = c->in->seed;
  if (!deck)
    return morph__map_say(c, MORPH_ENOMEM, "out of memory");
  memcpy(deck, c->avail, sizeof(int) * (size_t)c->navail);
  for (int i = 0; i < c->k; i++) { /* partial Fisher-Yates: the first k cards */
    int j = i + (int)(next(&s) % (uint64_t)(c->navail - i));
    int t = deck[i];
    deck[i] = deck[j], deck[j] = t;
  }
  memcpy(node, deck, sizeof(int) * (size_t)c->k);
  free(deck);
  return MORPH_OK;
}

const morph__mapper morph__map_random = {"random", map_random};
