/* Communication matrices in memory and as Matrix Market files. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "morph/prof.h"

static int fail(morph_comm_matrix *m, int rc, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(m->errmsg, sizeof m->errmsg, fmt, ap);
  va_end(ap);
  return rc;
}

int morph_comm_matrix_create(int n, morph_comm_matrix **out)
{
  if (!out || n < 0)
    return MORPH_EINVAL;
  *out = NULL;
  morph_comm_matrix *m = calloc(1, sizeof *m);
  size_t cells = (size_t)n * (size_t)n;
  if (m) {
    m->bytes = calloc(cells ? cells : 1, sizeof(uint64_t));
    m->msgs = calloc(cells ? cells : 1, sizeof(uint64_t));
  }
  if (!m || !m->bytes || !m->msgs) {
    morph_comm_matrix_destroy(m);
    return MORPH_ENOMEM;
  }
  m->n = n;
  *out = m;
  return MORPH_OK;
}

void morph_comm_matrix_destroy(morph_comm_matrix *m)
{
  if (m) {
    free(m->bytes);
    free(m->msgs);
    free(m);
  }
}

const char *morph_comm_matrix_errmsg(const morph_comm_matrix *m) { return m ? m->errmsg : ""; }

static uint64_t *weights(const morph_comm_matrix *m, morph_cm_weight w)
{
  return w == MORPH_CM_MSGS ? m->msgs : m->bytes;
}

uint64_t morph_comm_matrix_total(const morph_comm_matrix *m, morph_cm_weight w)
{
  uint64_t sum = 0, *a = weights(m, w);
  for (size_t i = 0; i < (size_t)m->n * (size_t)m->n; i++)
    sum += a[i];
  return sum;
}

static const char *weight_name(morph_cm_weight w) { return w == MORPH_CM_MSGS ? "messages" : "bytes"; }

static void write_origin(FILE *f, const morph_cm_origin *o)
{
  fprintf(f, "%% processes: finished %d exited %d crashed %d missing %d%s\n", o->finished,
          o->exited, o->crashed, o->missing, o->spawned ? " (spawned world)" : "");
  fprintf(f, "%% outside the matrix: external_bytes %" PRIu64 " external_msgs %" PRIu64
             " uncounted_calls %" PRIu64 "\n",
          o->external_bytes, o->external_msgs, o->uncounted);
}

int morph_comm_matrix_save(morph_comm_matrix *m, const char *path, morph_cm_weight w)
{
  if (!m || !path)
    return MORPH_EINVAL;
  FILE *f = fopen(path, "w");
  if (!f)
    return fail(m, MORPH_EIO, "%s: cannot write: %s", path, strerror(errno));
  const uint64_t *a = weights(m, w);
  size_t nnz = 0, cells = (size_t)m->n * (size_t)m->n;
  for (size_t i = 0; i < cells; i++)
    nnz += a[i] != 0;
  fprintf(f, "%%%%MatrixMarket matrix coordinate integer general\n"
             "%% morph-prof communication matrix, weight: %s\n"
             "%% row = sending rank + 1, column = receiving rank + 1 (MPI_COMM_WORLD)\n",
          weight_name(w));
  write_origin(f, &m->origin);
  fprintf(f, "%d %d %zu\n", m->n, m->n, nnz);
  for (int i = 0; i < m->n; i++)
    for (int j = 0; j < m->n; j++)
      if (a[(size_t)i * m->n + j])
        fprintf(f, "%d %d %" PRIu64 "\n", i + 1, j + 1, a[(size_t)i * m->n + j]);
  if (ferror(f) | (fclose(f) != 0))
    return fail(m, MORPH_EIO, "%s: write failed", path);
  m->errmsg[0] = '\0';
  return MORPH_OK;
}
