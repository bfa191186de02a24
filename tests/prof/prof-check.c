/*
 * prof-check: compares a communication matrix written by `morph prof`
 * with an independent count. Exit status 0 when they agree, 1 with the
 * differing entries listed otherwise, 2 on bad usage or unreadable input.
 *
 *   prof-check equal A.mtx B.mtx
 *       same size, same value in every entry;
 *   prof-check monitoring DIR/PREFIX OURS.bytes.mtx SLACK
 *       Open MPI's own count (pml monitoring files PREFIX.<rank>.prof,
 *       point-to-point "E" plus internal "I" lines) is, for every pair, at
 *       least ours and at most SLACK bytes more: the excess is Open MPI's
 *       communicator bookkeeping (context-id agreement at MPI_Comm_dup and
 *       friends), which no MPI call of the program sends;
 *   prof-check totals A.mtx B.mtx
 *       same size and same sum (programs whose pattern depends on timing,
 *       like a master-worker farm);
 *   prof-check size A.mtx N
 *       the file is a readable N x N matrix;
 *   prof-check at A.mtx I J MIN
 *       entry (I, J), 0-based, is at least MIN.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "morph/prof.h"

static morph_comm_matrix *load(const char *path)
{
  morph_comm_matrix *m;
  if (morph_comm_matrix_create(0, &m) != MORPH_OK)
    exit(2);
  if (morph_comm_matrix_load(m, path, MORPH_CM_BYTES) != MORPH_OK) {
    fprintf(stderr, "prof-check: %s\n", morph_comm_matrix_errmsg(m));
    exit(2);
  }
  return m;
}

static int totals(const char *a, const char *b)
{
  morph_comm_matrix *x = load(a), *y = load(b);
  uint64_t s = morph_comm_matrix_total(x, MORPH_CM_BYTES), t = morph_comm_matrix_total(y, MORPH_CM_BYTES);
  printf("prof-check: %s %d x %d total %" PRIu64 ", %s %d x %d total %" PRIu64 "\n", a, x->n, x->n,
         s, b, y->n, y->n, t);
  return x->n == y->n && s == t ? 0 : 1;
}

static int equal(const char *a, const char *b)
{
  morph_comm_matrix *x = load(a), *y = load(b);
  int bad = 0;
  if (x->n != y->n) {
    fprintf(stderr, "prof-check: %s is %d x %d, %s is %d x %d\n", a, x->n, x->n, b, y->n, y->n);
    return 1;
  }
  for (int i = 0; i < x->n; i++)
    for (int j = 0; j < x->n; j++) {
      uint64_t u = x->bytes[i * x->n + j], v = y->bytes[i * x->n + j];
      if (u != v && bad++ < 20)
        fprintf(stderr, "prof-check: (%d,%d): %s has %" PRIu64 ", %s has %" PRIu64 "\n", i, j, a,
                u, b, v);
    }
  printf("prof-check: %d x %d, %d differing entries, total %" PRIu64 " and %" PRIu64 "\n", x->n,
         x->n, bad, morph_comm_matrix_total(x, MORPH_CM_BYTES),
         morph_comm_matrix_total(y, MORPH_CM_BYTES));
  return bad ? 1 : 0;
}

/* Adds the E and I lines of one monitoring file: "E\t0\t1\t6840 bytes\t...". */
static int read_monitoring(const char *path, int n, uint64_t *mon)
{
  FILE *f = fopen(path, "r");
  if (!f) {
    fprintf(stderr, "prof-check: cannot read %s\n", path);
    return 2;
  }
  char line[4096], kind;
  int from, to;
  unsigned long long bytes;
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "%c\t%d\t%d\t%llu bytes", &kind, &from, &to, &bytes) == 4 &&
        (kind == 'E' || kind == 'I') && from >= 0 && from < n && to >= 0 && to < n)
      mon[from * n + to] += bytes;
  fclose(f);
  return 0;
}

static int monitoring(const char *prefix, const char *ours, long slack)
{
  morph_comm_matrix *m = load(ours);
  int n = m->n, bad = 0;
  uint64_t *mon = calloc((size_t)n * n, sizeof *mon), over = 0;
  char path[4096];
  for (int r = 0; r < n; r++) {
    snprintf(path, sizeof path, "%s.%d.prof", prefix, r);
    if (read_monitoring(path, n, mon))
      return 2;
  }
  for (int i = 0; i < n * n; i++) {
    int64_t d = (int64_t)mon[i] - (int64_t)m->bytes[i];
    over += d > 0 ? (uint64_t)d : 0;
    if ((d < 0 || d > slack) && bad++ < 20)
      fprintf(stderr, "prof-check: (%d,%d): Open MPI counted %" PRIu64 ", morph prof %" PRIu64
                      " (allowed excess %ld)\n", i / n, i % n, mon[i], m->bytes[i], slack);
  }
  printf("prof-check: %d x %d, morph prof %" PRIu64 " bytes, Open MPI %" PRIu64 " (%" PRIu64
         " more, communicator bookkeeping), %d pairs outside the bounds\n",
         n, n, morph_comm_matrix_total(m, MORPH_CM_BYTES),
         morph_comm_matrix_total(m, MORPH_CM_BYTES) + over, over, bad);
  return bad ? 1 : 0;
}

int main(int argc, char **argv)
{
  if (argc == 4 && !strcmp(argv[1], "equal"))
    return equal(argv[2], argv[3]);
  if (argc == 4 && !strcmp(argv[1], "totals"))
    return totals(argv[2], argv[3]);
  if (argc == 5 && !strcmp(argv[1], "monitoring"))
    return monitoring(argv[2], argv[3], atol(argv[4]));
  if (argc == 4 && !strcmp(argv[1], "size")) {
    morph_comm_matrix *m = load(argv[2]);
    int ok = m->n == atoi(argv[3]);
    printf("prof-check: %s is %d x %d\n", argv[2], m->n, m->n);
    return ok ? 0 : 1;
  }
  if (argc == 6 && !strcmp(argv[1], "at")) {
    morph_comm_matrix *m = load(argv[2]);
    int i = atoi(argv[3]), j = atoi(argv[4]);
    if (i < 0 || j < 0 || i >= m->n || j >= m->n)
      return 1;
    uint64_t v = m->bytes[(size_t)i * m->n + j];
    printf("prof-check: (%d,%d) = %" PRIu64 "\n", i, j, v);
    return v >= strtoull(argv[5], NULL, 10) ? 0 : 1;
  }
  fprintf(stderr, "usage: prof-check equal A B | totals A B | monitoring PREFIX OURS SLACK | size A N | at A I J MIN\n");
  return 2;
}
