/*
 * The pool of slots: this machine or the hosts of a hostfile. Booking is
 * all or nothing and never exceeds a node's slots, whatever the caller
 * believes: this is what keeps two racing decisions from sharing a slot.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hostfile.h"
#include "morph/error.h"
#include "rms/pool.h"

static int add_node(morph__pool *p, const char *host, int slots)
{
  for (int i = 0; i < p->n; i++)
    if (!strcmp(p->nodes[i].host, host)) {
      p->nodes[i].slots += slots;
      p->total += slots;
      return MORPH_OK;
    }
  morph__node *v = realloc(p->nodes, (size_t)(p->n + 1) * sizeof *v);
  if (!v)
    return MORPH_ENOMEM;
  p->nodes = v;
  memset(&v[p->n], 0, sizeof v[p->n]);
  snprintf(v[p->n].host, sizeof v[p->n].host, "%s", host);
  v[p->n++].slots = slots;
  p->total += slots;
  return MORPH_OK;
}

int morph__pool_local(morph__pool *p, int slots)
{
  memset(p, 0, sizeof *p);
  if (slots < 1)
    return MORPH_EINVAL;
  p->local = 1;
  return add_node(p, "localhost", slots);
}

int morph__pool_hostfile(morph__pool *p, const char *path, char *err, size_t errsize)
{
  memset(p, 0, sizeof *p);
  FILE *f = fopen(path, "r");
  if (!f) {
    snprintf(err, errsize, "%s: %s", path, strerror(errno));
    return MORPH_EIO;
  }
  char line[1024], why[128];
  struct morph__hostline h;
  int rc = MORPH_OK, lineno = 0;
  while (rc == MORPH_OK && fgets(line, sizeof line, f)) {
    lineno++;
    int k = morph__hostline_parse(line, &h, why, sizeof why);
    int slots = k > 0 && h.slots > 0 ? h.slots : 1;
    if (k < 0) {
      snprintf(err, errsize, "%s:%d: %s", path, lineno, why);
      rc = MORPH_EPARSE;
    } else if (k > 0 && slots > INT_MAX - p->total) { /* a host listed again adds up */
      snprintf(err, errsize, "%s:%d: slots=: the pool would hold more than %d slots", path,
               lineno, INT_MAX);
      rc = MORPH_EPARSE;
    } else if (k > 0) {
      rc = add_node(p, h.host, slots);
    }
  }
  fclose(f);
  if (rc == MORPH_OK && p->n == 0) {
    snprintf(err, errsize, "%s: no hosts", path);
    rc = MORPH_EPARSE;
  }
  if (rc != MORPH_OK)
    morph__pool_free(p);
  return rc;
}

void morph__pool_free(morph__pool *p)
{
  free(p->nodes);
  memset(p, 0, sizeof *p);
}

int morph__pool_free_slots(const morph__pool *p)
{
  int f = 0;
  for (int i = 0; i < p->n; i++)
    f += p->nodes[i].slots - p->nodes[i].used;
  return f;
}

int morph__pool_book(morph__pool *p, const morph__alloc *a)
{
  for (int i = 0; i < a->n; i++) {
    const morph_policy_alloc *x = &a->v[i];
    if (x->node < 0 || x->node >= p->n || x->slots <= 0)
      return MORPH_EINVAL;
    /* Pieces are merged per node, so one check per piece is exact. */
    if (p->nodes[x->node].used + x->slots > p->nodes[x->node].slots)
      return MORPH_EBUSY;
  }
  for (int i = 0; i < a->n; i++)
    p->nodes[a->v[i].node].used += a->v[i].slots;
  return MORPH_OK;
}

void morph__pool_release(morph__pool *p, const morph__alloc *a)
{
  for (int i = 0; i < a->n; i++) {
    if (a->v[i].node < 0 || a->v[i].node >= p->n)
      continue;
    morph__node *n = &p->nodes[a->v[i].node];
    n->used = n->used > a->v[i].slots ? n->used - a->v[i].slots : 0;
  }
}
