/*
 * Reading a communication matrix from a Matrix Market file. Every error
 * names the file, the line and the field ("m.mtx:7: column: 9 is outside
 * 1..8"), and a failed read leaves the matrix as it was.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "morph/prof.h"

typedef struct reader {
  FILE *f;
  const char *path;
  int line;
  char *buf;
  size_t cap;
  morph_comm_matrix *m;
  int pattern, real, symmetric;
} reader;

static int perr(reader *r, const char *field, const char *fmt, ...)
{
  char what[300];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  snprintf(r->m->errmsg, sizeof r->m->errmsg, "%s:%d: %s: %s", r->path, r->line, field, what);
  return MORPH_EPARSE;
}

/* The next line that is neither a comment nor blank; NULL at the end. */
static char *next_line(reader *r, int comments)
{
  while (getline(&r->buf, &r->cap, r->f) >= 0) {
    r->line++;
    char *s = r->buf + strspn(r->buf, " \t\r\n");
    if (*s && (!comments || *s != '%'))
      return r->buf;
  }
  return NULL;
}

/* "%%MatrixMarket matrix coordinate <field> <symmetry>". */
static int header(reader *r)
{
  char *l = next_line(r, 0), *save = NULL;
  if (!l)
    return perr(r, "header", "empty file (a Matrix Market file starts with %%%%MatrixMarket)");
  const char *names[] = {"banner", "object", "format", "field", "symmetry"};
  char *tok[5] = {0};
  for (int i = 0; i < 5; i++)
    tok[i] = strtok_r(i ? NULL : l, " \t\r\n", &save);
  if (!tok[0] || strcasecmp(tok[0], "%%MatrixMarket"))
    return perr(r, names[0], "not a Matrix Market file (first line must start with %%%%MatrixMarket)");
  for (int i = 1; i < 5; i++)
    if (!tok[i])
      return perr(r, names[i], "missing");
  if (strcasecmp(tok[1], "matrix"))
    return perr(r, names[1], "'%s' is not supported (only 'matrix')", tok[1]);
  if (strcasecmp(tok[2], "coordinate"))
    return perr(r, names[2], "'%s' is not supported (only 'coordinate')", tok[2]);
  r->pattern = !strcasecmp(tok[3], "pattern");
  r->real = !strcasecmp(tok[3], "real");
  if (!r->pattern && !r->real && strcasecmp(tok[3], "integer"))
    return perr(r, names[3], "'%s' is not supported (integer, real or pattern)", tok[3]);
  r->symmetric = !strcasecmp(tok[4], "symmetric");
  if (!r->symmetric && strcasecmp(tok[4], "general"))
    return perr(r, names[4], "'%s' is not supported (general or symmetric)", tok[4]);
  return MORPH_OK;
}

/* A whole decimal number in [lo, hi] from the next token. */
static int number(reader *r, char **pos, const char *field, long long lo, long long hi,
                  long long *out)
{
  char *end;
  errno = 0;
  long long v = strtoll(*pos, &end, 10);
  if (end == *pos)
    return perr(r, field, "missing or not a number");
  if (*end && !strchr(" \t\r\n", *end))
    return perr(r, field, "'%.*s' is not a whole number", (int)strcspn(*pos, " \t\r\n"), *pos);
  if (errno == ERANGE || v < lo || v > hi)
    return perr(r, field, "%lld is outside %lld..%lld", v, lo, hi);
  *pos = end;
  *out = v;
  return MORPH_OK;
}

static int size_line(reader *r, int *n, long long *nnz)
{
  char *l = next_line(r, 1);
  long long rows = 0, cols = 0;
  if (!l)
    return perr(r, "size", "missing (expected 'rows columns entries')");
  int rc = number(r, &l, "rows", 1, MORPH_CM_MAX_RANKS, &rows);
  if (!rc)
    rc = number(r, &l, "columns", 1, MORPH_CM_MAX_RANKS, &cols);
  if (!rc)
    rc = number(r, &l, "entries", 0, rows * cols, nnz);
  if (!rc && rows != cols)
    rc = perr(r, "columns", "%lld rows but %lld columns: a communication matrix is square", rows,
              cols);
  *n = (int)rows;
  return rc;
}

static int value(reader *r, char *l, uint64_t *v)
{
  char *end;
  if (r->pattern) {
    *v = 1;
    return MORPH_OK;
  }
  errno = 0;
  double d = r->real ? strtod(l, &end) : (double)strtoull(l, &end, 10);
  if (end == l || (*end && !strchr(" \t\r\n", *end)))
    return perr(r, "value", "missing or not a number");
  if (errno == ERANGE || !(d >= 0) || !isfinite(d) || (!r->real && strchr(l, '-')))
    return perr(r, "value", "'%.*s' is not a count (must be >= 0)", (int)strcspn(l, " \t\r\n"), l);
  *v = r->real ? (uint64_t)llround(d) : strtoull(l, NULL, 10);
  return MORPH_OK;
}

static int entries(reader *r, int n, long long nnz, uint64_t *a)
{
  long long seen = 0, i, j;
  char *l;
  while ((l = next_line(r, 1))) {
    if (++seen > nnz)
      return perr(r, "entries", "more entries than the %lld declared", nnz);
    uint64_t v = 0;
    int rc = number(r, &l, "row", 1, n, &i);
    if (!rc)
      rc = number(r, &l, "column", 1, n, &j);
    if (!rc)
      rc = value(r, l, &v);
    if (rc)
      return rc;
    a[(size_t)(i - 1) * n + (j - 1)] += v;
    if (r->symmetric && i != j)
      a[(size_t)(j - 1) * n + (i - 1)] += v;
  }
  if (ferror(r->f))
    return perr(r, "entries", "read error: %s", strerror(errno));
  if (seen < nnz)
    return perr(r, "entries", "%lld declared but the file ends after %lld", nnz, seen);
  return MORPH_OK;
}

static int read_all(reader *r, morph_comm_matrix **tmp, morph_cm_weight w)
{
  int n = 0, rc = header(r);
  long long nnz;
  if (!rc)
    rc = size_line(r, &n, &nnz);
  if (!rc && (rc = morph_comm_matrix_create(n, tmp)) != MORPH_OK)
    return perr(r, "size", "out of memory for %d x %d", n, n);
  if (!rc)
    rc = entries(r, n, nnz, w == MORPH_CM_MSGS ? (*tmp)->msgs : (*tmp)->bytes);
  return rc;
}

int morph_comm_matrix_load(morph_comm_matrix *m, const char *path, morph_cm_weight w)
{
  if (!m || !path)
    return MORPH_EINVAL;
  reader r = {.path = path, .m = m};
  if (!(r.f = fopen(path, "r"))) {
    snprintf(m->errmsg, sizeof m->errmsg, "%s: cannot read: %s", path, strerror(errno));
    return MORPH_EIO;
  }
  morph_comm_matrix *tmp = NULL;
  int rc = read_all(&r, &tmp, w);
  fclose(r.f);
  free(r.buf);
  if (rc) {
    morph_comm_matrix_destroy(tmp);
    return rc;
  }
  /* Take the new arrays; the caller's object (and its address) stays. */
  free(m->bytes);
  free(m->msgs);
  m->n = tmp->n, m->bytes = tmp->bytes, m->msgs = tmp->msgs;
  memset(&m->origin, 0, sizeof m->origin);
  m->errmsg[0] = '\0';
  free(tmp);
  return MORPH_OK;
}
