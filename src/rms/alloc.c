/*
 * Allocations: merged lists of {node, slots} pieces. The first piece holds
 * the job's rank 0 and stays first, as the policy engine expects.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "morph/error.h"
#include "rms/alloc.h"

void morph__alloc_init(morph__alloc *a)
{
  memset(a, 0, sizeof *a);
}

void morph__alloc_free(morph__alloc *a)
{
  free(a->v);
  morph__alloc_init(a);
}

void morph__alloc_clear(morph__alloc *a)
{
  a->n = 0;
}

int morph__alloc_add(morph__alloc *a, int node, int slots)
{
  if (slots <= 0 || node < 0)
    return slots == 0 ? MORPH_OK : MORPH_EINVAL;
  for (int i = 0; i < a->n; i++)
    if (a->v[i].node == node) {
      a->v[i].slots += slots;
      return MORPH_OK;
    }
  if (a->n == a->cap) {
    int cap = a->cap ? 2 * a->cap : 4;
    morph_policy_alloc *v = realloc(a->v, (size_t)cap * sizeof *v);
    if (!v)
      return MORPH_ENOMEM;
    a->v = v, a->cap = cap;
  }
  a->v[a->n++] = (morph_policy_alloc){.node = node, .slots = slots};
  return MORPH_OK;
}

int morph__alloc_add_all(morph__alloc *a, const morph__alloc *b)
{
  for (int i = 0; i < b->n; i++) {
    int rc = morph__alloc_add(a, b->v[i].node, b->v[i].slots);
    if (rc != MORPH_OK)
      return rc;
  }
  return MORPH_OK;
}

static int find(const morph__alloc *a, int node)
{
  for (int i = 0; i < a->n; i++)
    if (a->v[i].node == node)
      return i;
  return -1;
}

int morph__alloc_sub(morph__alloc *a, const morph__alloc *b)
{
  for (int i = 0; i < b->n; i++) {
    int k = find(a, b->v[i].node);
    if (k < 0 || a->v[k].slots < b->v[i].slots)
      return MORPH_EINVAL;
  }
  for (int i = 0; i < b->n; i++)
    a->v[find(a, b->v[i].node)].slots -= b->v[i].slots;
  /* Drop emptied pieces but keep the order, so the first stays first. */
  int w = 0;
  for (int i = 0; i < a->n; i++)
    if (a->v[i].slots > 0)
      a->v[w++] = a->v[i];
  a->n = w;
  return MORPH_OK;
}

int morph__alloc_total(const morph__alloc *a)
{
  int t = 0;
  for (int i = 0; i < a->n; i++)
    t += a->v[i].slots;
  return t;
}

int morph__alloc_on(const morph__alloc *a, int node)
{
  int k = find(a, node);
  return k < 0 ? 0 : a->v[k].slots;
}

int morph__alloc_copy(morph__alloc *dst, const morph__alloc *src)
{
  morph__alloc_clear(dst);
  return morph__alloc_add_all(dst, src);
}

void morph__alloc_format(const morph__alloc *a, char *buf, size_t size)
{
  size_t len = 0;
  if (size)
    buf[0] = '\0';
  for (int i = 0; i < a->n && len < size; i++) {
    int w = snprintf(buf + len, size - len, "%s%d:%d", i ? "," : "", a->v[i].node, a->v[i].slots);
    if (w < 0)
      return;
    len += (size_t)w;
  }
}

int morph__alloc_parse(morph__alloc *a, const char *text)
{
  morph__alloc_clear(a);
  const char *s = text ? text : "";
  while (*s) {
    int node, slots, used = 0;
    if (sscanf(s, "%d:%d%n", &node, &slots, &used) != 2 || node < 0 || slots <= 0)
      return MORPH_EPARSE;
    int rc = morph__alloc_add(a, node, slots);
    if (rc != MORPH_OK)
      return rc;
    s += used;
    if (*s == ',')
      s++;
    else if (*s)
      return MORPH_EPARSE;
  }
  return MORPH_OK;
}
