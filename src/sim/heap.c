/* The event queue: a binary min-heap on (time, insertion order). */
#include <stdlib.h>

#include "internal.h"

static int before(const morph__ev *a, const morph__ev *b)
{
  return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

int morph__heap_push(morph__heap *h, morph__ev ev)
{
  if (h->n == h->cap) {
    size_t cap = h->cap ? h->cap * 2 : 1024;
    morph__ev *v = realloc(h->v, cap * sizeof *v);
    if (!v)
      return MORPH_ENOMEM;
    h->v = v;
    h->cap = cap;
  }
  size_t i = h->n++;
  while (i > 0 && before(&ev, &h->v[(i - 1) / 2])) {
    h->v[i] = h->v[(i - 1) / 2];
    i = (i - 1) / 2;
  }
  h->v[i] = ev;
  return MORPH_OK;
}

morph__ev morph__heap_pop(morph__heap *h)
{
  morph__ev top = h->v[0], last = h->v[--h->n];
  size_t i = 0;
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= h->n)
      break;
    if (c + 1 < h->n && before(&h->v[c + 1], &h->v[c]))
      c++;
    if (!before(&h->v[c], &last))
      break;
    h->v[i] = h->v[c];
    i = c;
  }
  if (h->n)
    h->v[i] = last;
  return top;
}

void morph__heap_free(morph__heap *h)
{
  free(h->v);
  h->v = NULL;
  h->n = h->cap = 0;
}

int morph__sim_push(morph_sim *sim, double t, int type, int job)
{
  uint32_t gen = job < 0 ? 0 : type == EV_LIMIT ? sim->jobs[job].lgen : sim->jobs[job].gen;
  return morph__heap_push(&sim->heap, (morph__ev){t, sim->seq++, type, job, gen});
}
