/* Gathering distributed results and printing the verdict (see app.h). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"

int64_t app_block_first(int64_t n, int p, int r) { return r * n / p; }

int64_t app_block_len(int64_t n, int p, int r) {
  return app_block_first(n, p, r + 1) - app_block_first(n, p, r);
}

int app_block_owner(int64_t n, int p, int64_t i) {
  int r = (int)(i * p / n); /* a guess, off by at most one */
  while (r > 0 && app_block_first(n, p, r) > i)
    r--;
  while (r + 1 < p && app_block_first(n, p, r + 1) <= i)
    r++;
  return r;
}

void app_block_counts(int64_t n, int p, int *counts, int *displs) {
  for (int r = 0; r < p; r++) {
    counts[r] = (int)app_block_len(n, p, r);
    displs[r] = (int)app_block_first(n, p, r);
  }
}

static void *xmalloc(size_t bytes, MPI_Comm comm) {
  void *p = malloc(bytes ? bytes : 1);
  if (!p) {
    fprintf(stderr, "out of memory (%zu bytes)\n", bytes);
    MPI_Abort(comm, 2);
  }
  return p;
}

void *app_gather(const void *local, int64_t count, MPI_Datatype type, MPI_Comm comm,
                 int64_t *total) {
  int rank, size, mine = (int)count;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int *counts = xmalloc(sizeof(int) * (size_t)size, comm);
  int *displs = xmalloc(sizeof(int) * (size_t)size, comm);
  MPI_Gather(&mine, 1, MPI_INT, counts, 1, MPI_INT, 0, comm);
  int64_t n = 0;
  for (int r = 0; rank == 0 && r < size; r++) {
    displs[r] = (int)n;
    n += counts[r];
  }
  MPI_Aint lb, extent;
  MPI_Type_get_extent(type, &lb, &extent);
  void *all = rank == 0 ? xmalloc((size_t)n * (size_t)extent, comm) : NULL;
  MPI_Gatherv(local, mine, type, all, counts, displs, type, 0, comm);
  free(counts);
  free(displs);
  *total = n;
  return all;
}

double app_rel_diff(const double *a, const double *b, int64_t n) {
  double num = 0, den = 0;
  for (int64_t i = 0; i < n; i++) {
    num += (a[i] - b[i]) * (a[i] - b[i]);
    den += b[i] * b[i];
  }
  return den > 0 ? sqrt(num / den) : sqrt(num);
}

int64_t app_first_difference(const void *a, const void *b, int64_t n, size_t size) {
  const char *x = a, *y = b;
  for (int64_t i = 0; i < n; i++)
    if (memcmp(x + (size_t)i * size, y + (size_t)i * size, size) != 0)
      return i;
  return -1;
}

int app_verdict(MPI_Comm comm, int ok, const char *fmt, ...) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  if (rank == 0) {
    va_list ap;
    va_start(ap, fmt);
    printf("CHECK %s ", ok ? "PASSED" : "FAILED");
    vprintf(fmt, ap);
    printf("\n");
    fflush(stdout);
    va_end(ap);
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, comm);
  return ok;
}

int app_finish(morph_ctx *m, int ok) {
  return morph_finalize(m, ok ? 0 : 1);
}
