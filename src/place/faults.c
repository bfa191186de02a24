/* Outage probabilities per node, and the file that overrides them. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "morph/topology.h"

struct morph_faults {
  int n;
  double *p;
  char errmsg[512];
};

static int ffail(morph_faults *f, int rc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int ffail(morph_faults *f, int rc, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(f->errmsg, sizeof f->errmsg, fmt, ap);
  va_end(ap);
  return rc;
}

int morph_faults_create(const morph_topo *t, morph_faults **out)
{
  if (!out || morph_topo_nodes(t) < 1)
    return MORPH_EINVAL;
  morph_faults *f = calloc(1, sizeof *f);
  if (f && !(f->p = calloc((size_t)morph_topo_nodes(t), sizeof(double)))) {
    free(f);
    f = NULL;
  }
  if (!f)
    return MORPH_ENOMEM;
  f->n = morph_topo_nodes(t);
  *out = f;
  return MORPH_OK;
}

void morph_faults_destroy(morph_faults *f)
{
  if (f) {
    free(f->p);
    free(f);
  }
}

const char *morph_faults_errmsg(const morph_faults *f) { return f ? f->errmsg : ""; }

int morph_faults_nodes(const morph_faults *f) { return f ? f->n : 0; }

int morph_faults_set(morph_faults *f, int node, double p)
{
  if (!f)
    return MORPH_EINVAL;
  if (node < 0 || node >= f->n)
    return ffail(f, MORPH_EINVAL, "node %d is outside 0..%d", node, f->n - 1);
  if (!(p >= 0 && p <= 1))
    return ffail(f, MORPH_EINVAL, "probability %g is outside 0..1", p);
  f->p[node] = p;
  return MORPH_OK;
}

double morph_faults_get(const morph_faults *f, int node)
{
  return f && node >= 0 && node < f->n ? f->p[node] : 0;
}

int morph_faults_count(const morph_faults *f)
{
  int k = 0;
  for (int i = 0; f && i < f->n; i++)
    k += f->p[i] > 0;
  return k;
}

/* One "NODE PROBABILITY" line into p[]; seen[] holds the line that set
 * each node, to reject a node named twice. */
static int fault_line(morph_faults *f, const morph_topo *t, const char *path, int ln, char *line,
                      double *p, int *seen)
{
  char *save = NULL, *hash = strchr(line, '#'), *end;
  if (hash)
    *hash = '\0';
  char *name = strtok_r(line, " \t\r\n", &save), *prob = strtok_r(NULL, " \t\r\n", &save);
  if (!name)
    return MORPH_OK;
  if (!prob || strtok_r(NULL, " \t\r\n", &save))
    return ffail(f, MORPH_EPARSE, "%.300s:%d: line: expected NODE PROBABILITY", path, ln);
  int node = morph_topo_find(t, name);
  if (node < 0)
    return ffail(f, MORPH_EPARSE, "%.300s:%d: node: no node named '%.100s' in the topology", path,
                 ln, name);
  if (seen[node])
    return ffail(f, MORPH_EPARSE, "%.300s:%d: node: '%.100s' already given on line %d", path, ln,
                 name, seen[node]);
  double v = strtod(prob, &end);
  if (*end || !(v >= 0 && v <= 1))
    return ffail(f, MORPH_EPARSE, "%.300s:%d: probability: '%.60s' is not a number in 0..1", path,
                 ln, prob);
  p[node] = v;
  seen[node] = ln;
  return MORPH_OK;
}

int morph_faults_load(morph_faults *f, const morph_topo *t, const char *path)
{
  if (!f || !path || morph_topo_nodes(t) != f->n)
    return MORPH_EINVAL;
  FILE *in = fopen(path, "r");
  if (!in)
    return ffail(f, MORPH_EIO, "%.400s: cannot read: %s", path, strerror(errno));
  double *p = malloc(sizeof(double) * (size_t)f->n);
  int *seen = calloc((size_t)f->n, sizeof(int)), rc = MORPH_OK, ln = 0;
  char *line = NULL;
  size_t cap = 0;
  if (!p || !seen)
    rc = ffail(f, MORPH_ENOMEM, "out of memory");
  else
    memcpy(p, f->p, sizeof(double) * (size_t)f->n);
  while (!rc && getline(&line, &cap, in) >= 0)
    rc = fault_line(f, t, path, ++ln, line, p, seen);
  fclose(in);
  free(line);
  free(seen);
  if (!rc) {
    free(f->p);
    f->p = p;
    f->errmsg[0] = '\0';
  } else {
    free(p);
  }
  return rc;
}
