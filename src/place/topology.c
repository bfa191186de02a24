/* Topologies in memory: generated shapes, names, coordinates, routes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "place/topology_internal.h"

int morph__topo_fail(morph_topo *t, int rc, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(t->errmsg, sizeof t->errmsg, fmt, ap);
  va_end(ap);
  return rc;
}

int morph_topo_create(morph_topo **out)
{
  if (!out)
    return MORPH_EINVAL;
  *out = calloc(1, sizeof **out);
  return *out ? MORPH_OK : MORPH_ENOMEM;
}

void morph__topo_clear(morph_topo *t)
{
  for (int i = 0; t->names && i < t->n; i++)
    free(t->names[i]);
  free(t->names);
  free(t->by_name);
  free(t->xyz);
  free(t->at);
  free(t->leaf);
  free(t->next);
  char msg[sizeof t->errmsg];
  memcpy(msg, t->errmsg, sizeof msg);
  memset(t, 0, sizeof *t);
  memcpy(t->errmsg, msg, sizeof msg);
}

void morph__topo_take(morph_topo *dst, morph_topo *src)
{
  morph__topo_clear(dst);
  char msg[sizeof dst->errmsg];
  memcpy(msg, dst->errmsg, sizeof msg);
  *dst = *src;
  memcpy(dst->errmsg, msg, sizeof msg);
  memset(src, 0, sizeof *src);
}

void morph_topo_destroy(morph_topo *t)
{
  if (t) {
    morph__topo_clear(t);
    free(t);
  }
}

const char *morph_topo_errmsg(const morph_topo *t) { return t ? t->errmsg : ""; }

morph_topo_kind morph_topo_kind_of(const morph_topo *t) { return t ? t->kind : MORPH_TOPO_NONE; }

const char *morph_topo_kind_name(morph_topo_kind kind)
{
  static const char *const names[] = {"none", "torus", "fattree", "flat", "graph"};
  return kind >= MORPH_TOPO_NONE && kind <= MORPH_TOPO_GRAPH ? names[kind] : "?";
}

int morph_topo_nodes(const morph_topo *t) { return t ? t->n : 0; }

const char *morph_topo_node_name(const morph_topo *t, int node)
{
  return t && node >= 0 && node < t->n ? t->names[node] : NULL;
}

/* by_name is sorted by the names it points to. */
static int cmp_names(const void *a, const void *b, void *names)
{
  char **n = names;
  return strcmp(n[*(const int *)a], n[*(const int *)b]);
}

int morph__topo_index_names(morph_topo *t, int *dup)
{
  char buf[32];
  for (int i = 0; i < t->n; i++) {
    if (t->names[i])
      continue;
    snprintf(buf, sizeof buf, "node%d", i);
    if (!(t->names[i] = strdup(buf)))
      return MORPH_ENOMEM;
  }
  if (!(t->by_name = malloc(sizeof(int) * (size_t)t->n)))
    return MORPH_ENOMEM;
  for (int i = 0; i < t->n; i++)
    t->by_name[i] = i;
  qsort_r(t->by_name, (size_t)t->n, sizeof(int), cmp_names, t->names);
  for (int i = 1; i < t->n; i++) {
    if (strcmp(t->names[t->by_name[i - 1]], t->names[t->by_name[i]]))
      continue;
    int a = t->by_name[i - 1], b = t->by_name[i];
    *dup = a > b ? a : b;
    return MORPH_EEXIST;
  }
  return MORPH_OK;
}

int morph_topo_find(const morph_topo *t, const char *name)
{
  int lo = 0, hi = t && name ? t->n - 1 : -1;
  while (lo <= hi) {
    int mid = (lo + hi) / 2, c = strcmp(name, t->names[t->by_name[mid]]);
    if (!c)
      return t->by_name[mid];
    if (c < 0)
      hi = mid - 1;
    else
      lo = mid + 1;
  }
  return MORPH_ENOENT;
}

int morph_topo_dims(const morph_topo *t, int dims[3])
{
  if (!t || t->kind != MORPH_TOPO_TORUS)
    return MORPH_EINVAL;
  memcpy(dims, t->dims, sizeof t->dims);
  return MORPH_OK;
}

int morph_topo_coords(const morph_topo *t, int node, int xyz[3])
{
  if (!t || t->kind != MORPH_TOPO_TORUS || node < 0 || node >= t->n)
    return MORPH_EINVAL;
  memcpy(xyz, t->xyz[node], sizeof t->xyz[node]);
  return MORPH_OK;
}

int morph_topo_max_hops(const morph_topo *t) { return t ? t->max_hops : 0; }

int morph__topo_torus_finish(morph_topo *t, int generated)
{
  int *d = t->dims;
  if (!t->xyz && !(t->xyz = malloc(sizeof *t->xyz * (size_t)t->n)))
    return MORPH_ENOMEM;
  if (!(t->at = malloc(sizeof(int) * (size_t)t->n)))
    return MORPH_ENOMEM;
  for (int i = 0; i < t->n; i++)
    t->at[i] = -1;
  for (int i = 0; i < t->n; i++) {
    if (generated) { /* x fastest */
      t->xyz[i][0] = i % d[0];
      t->xyz[i][1] = i / d[0] % d[1];
      t->xyz[i][2] = i / (d[0] * d[1]);
    }
    t->at[t->xyz[i][0] + d[0] * (t->xyz[i][1] + d[1] * t->xyz[i][2])] = i;
  }
  t->max_hops = d[0] / 2 + d[1] / 2 + d[2] / 2;
  return MORPH_OK;
}

void morph__topo_tree_finish(morph_topo *t)
{
  t->max_hops = t->kind == MORPH_TOPO_FATTREE && t->leaves > 1 ? 4 : 2;
}

/* A fresh topology of n generated nodes of the given kind in tmp. */
static int generated(morph_topo *t, morph_topo *tmp, morph_topo_kind kind, long n)
{
  memset(tmp, 0, sizeof *tmp);
  if (n < 1 || n > MORPH__TOPO_MAX_NODES)
    return morph__topo_fail(t, MORPH_EINVAL, "%ld nodes: a topology has 1..%d", n,
                            MORPH__TOPO_MAX_NODES);
  tmp->kind = kind;
  tmp->n = (int)n;
  tmp->base_cost = 1;
  tmp->names = calloc((size_t)n, sizeof *tmp->names);
  return tmp->names ? MORPH_OK : morph__topo_fail(t, MORPH_ENOMEM, "out of memory");
}

static int install(morph_topo *t, morph_topo *tmp, int rc)
{
  int dup;
  if (!rc && (rc = morph__topo_index_names(tmp, &dup)) != MORPH_OK)
    morph__topo_fail(t, rc, "out of memory");
  if (rc) {
    morph__topo_clear(tmp);
    return rc;
  }
  morph__topo_take(t, tmp);
  t->errmsg[0] = '\0';
  return MORPH_OK;
}

int morph_topo_torus(morph_topo *t, int x, int y, int z)
{
  morph_topo tmp;
  if (!t)
    return MORPH_EINVAL;
  if (x < 1 || y < 1 || z < 1)
    return morph__topo_fail(t, MORPH_EINVAL, "torus %dx%dx%d: every size must be >= 1", x, y, z);
  int rc = generated(t, &tmp, MORPH_TOPO_TORUS, (long)x * y * z);
  if (rc)
    return rc;
  tmp.dims[0] = x, tmp.dims[1] = y, tmp.dims[2] = z;
  rc = morph__topo_torus_finish(&tmp, 1);
  return install(t, &tmp, rc);
}

int morph_topo_fattree(morph_topo *t, int leaves, int per_leaf)
{
  morph_topo tmp;
  if (!t)
    return MORPH_EINVAL;
  if (leaves < 1 || per_leaf < 1)
    return morph__topo_fail(t, MORPH_EINVAL, "fat tree %d x %d: sizes must be >= 1", leaves, per_leaf);
  int rc = generated(t, &tmp, MORPH_TOPO_FATTREE, (long)leaves * per_leaf);
  if (rc)
    return rc;
  tmp.leaves = leaves;
  if (!(tmp.leaf = malloc(sizeof(int) * (size_t)tmp.n)))
    rc = MORPH_ENOMEM;
  for (int i = 0; !rc && i < tmp.n; i++)
    tmp.leaf[i] = i / per_leaf;
  morph__topo_tree_finish(&tmp);
  return install(t, &tmp, rc);
}

int morph_topo_flat(morph_topo *t, int nodes)
{
  morph_topo tmp;
  if (!t)
    return MORPH_EINVAL;
  int rc = generated(t, &tmp, MORPH_TOPO_FLAT, nodes);
  if (rc)
    return rc;
  morph__topo_tree_finish(&tmp);
  return install(t, &tmp, rc);
}
