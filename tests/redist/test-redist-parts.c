/*
 * Redistribution between parts held in memory files (src/redist/part.c),
 * on P processes of one host: a receiver adopts ranges of the senders'
 * files (a mapping, no copy) where file and new part agree on page
 * alignment, and copies the rest. For each change M -> N, with the old
 * parts in memory files filled with their global indices:
 *  (1) every element of every new part is right after the transfer;
 *  (2) rollback: the new parts are freed and the old ones still hold
 *      their data;
 *  (3) commit: the transfer again, then every old part is trimmed and
 *      freed (as the leavers' and the stayers' old parts are) and the new
 *      parts still hold their data: adopted pages outlive their first
 *      owner;
 *  (4) where slices are page-aligned (block, grow or shrink by an integer
 *      factor, page-multiple parts), every new part adopted and copied
 *      nothing (nfiles > 1 and its own base file holds no page);
 *  (5) no page is kept that no part maps: after the commit the files
 *      behind the new parts hold at most the data plus two pages per part
 *      (counted once per file, by inode, over all ranks);
 *  (6) no descriptor is left open once every part is freed.
 * Element sizes: 8 bytes (parts of 2^k pages: aligned) and 24 bytes
 * (misaligned: copies). Exit 1 on any failure; each rank prints its own.
 *
 *   test-redist-parts [M:N ...]   (default: 4:2 8:2 2:4 3:5 5:2 4:3 1:4 4:1)
 */
#include <dirent.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/clock.h"
#include "morph/error.h"
#include "redist/part.h"
#include "redist/redist.h"

#define PAGES_PER_PART 64 /* of the 8-byte case, per old rank at M = 8 */

static int open_fds(void)
{
  int n = 0;
  DIR *d = opendir("/proc/self/fd");
  for (struct dirent *e; d && (e = readdir(d));)
    n += e->d_name[0] != '.';
  if (d)
    closedir(d);
  return n;
}

/* Element i of the global array: its index, in the first 8 bytes. */
static void fill(morph__part *p, int64_t first, int64_t n, size_t es)
{
  for (int64_t i = 0; i < n; i++) {
    memset(p->base + i * es, 0x5a, es);
    memcpy(p->base + i * es, &(int64_t){first + i}, sizeof(int64_t));
  }
}

static int check(const char *base, int64_t first, int64_t n, size_t es, const char *what, int me)
{
  int errors = 0;
  for (int64_t i = 0; i < n; i++) {
    int64_t v;
    memcpy(&v, base + i * es, sizeof v);
    if (v != first + i && errors++ < 3)
      fprintf(stderr, "%s: rank %d element %lld holds %lld\n", what, me, (long long)(first + i),
              (long long)v);
  }
  return errors;
}

/* Bytes of memory file fd in use (st_blocks), to see that a part adopted
 * everything and wrote nothing of its own. */
static long long file_bytes(int fd)
{
  struct stat st;
  return fstat(fd, &st) == 0 ? (long long)st.st_blocks * 512 : -1;
}

typedef struct move {
  int m, n, me;
  size_t es;
  int64_t global;
  morph__dist dist;
  morph__plan plan;
  morph__part *old, *nw;
} move;

static int transfer(move *x)
{
  int64_t cnt = x->me < x->n ? x->plan.new_count : 0;
  x->nw = NULL;
  if (cnt > 0 && morph__part_new(&x->nw, (size_t)cnt * x->es) != MORPH_OK)
    return 1;
  morph__redist_bufs b = {x->old ? x->old->base : NULL, x->nw ? x->nw->base : NULL, x->old, x->nw};
  int rc = morph__redist_exec_parts(MPI_COMM_WORLD, &x->plan, &b, x->es, MPI_DATATYPE_NULL, 5,
                                    morph__now() + 30, NULL);
  if (rc != MORPH_OK)
    fprintf(stderr, "rank %d: transfer %d -> %d: %s\n", x->me, x->m, x->n, morph_strerror(rc));
  return rc != MORPH_OK;
}

static int check_new(move *x, const char *what)
{
  if (!x->nw)
    return 0;
  return check(x->nw->base, morph__dist_offset(&x->dist, x->me, x->n), x->plan.new_count, x->es,
               what, x->me);
}

/* Adoption of everything expected: block, a change by an integer factor,
 * and page-multiple parts (the 8-byte case). */
static int expect_adopted(const move *x)
{
  int factor = x->n < x->m ? x->m % x->n == 0 : x->n % x->m == 0;
  return x->es == 8 && factor && x->me < x->n;
}

/* (5): bytes held by the distinct files behind the new parts, over all
 * ranks, against the data's size. Returns the number of errors. */
static int check_kept(const move *x, const char *what)
{
  enum { F = MORPH__PART_FILES };
  long long mine[2 * F] = {0};
  int P, errors = 0;
  for (int k = 0; x->nw && k < x->nw->nfiles; k++) {
    struct stat st;
    if (fstat(x->nw->files[k].fd, &st) == 0)
      mine[2 * k] = (long long)st.st_ino, mine[2 * k + 1] = (long long)st.st_blocks * 512;
  }
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  long long *all = calloc((size_t)P * 2 * F, sizeof *all);
  if (!all)
    return 1;
  MPI_Allgather(mine, 2 * F, MPI_LONG_LONG, all, 2 * F, MPI_LONG_LONG, MPI_COMM_WORLD);
  long long held = 0, limit = (long long)x->global * (long long)x->es + 2LL * 4096 * x->n;
  for (int i = 0; i < P * F; i++) {
    int seen = all[2 * i] == 0;
    for (int j = 0; j < i && !seen; j++)
      seen = all[2 * j] == all[2 * i];
    held += seen ? 0 : all[2 * i + 1];
  }
  free(all);
  if (x->me == 0 && held > limit && ++errors)
    fprintf(stderr, "%s: the new parts' files hold %lld bytes for %lld of data\n", what, held,
            (long long)x->global * (long long)x->es);
  return errors;
}

static int one_change(int m, int n, size_t es, int me)
{
  move x = {.m = m, .n = n, .me = me, .es = es};
  x.global = (int64_t)PAGES_PER_PART * 8 * 4096 / 8 + (es == 8 ? 0 : 7);
  x.dist = (morph__dist){MORPH__DIST_BLOCK, x.global, 1};
  char what[64];
  snprintf(what, sizeof what, "%d->%d es=%zu", m, n, es);
  if (morph__plan_build(&x.dist, NULL, m, n, me, &x.plan) != MORPH_OK)
    return 1;
  int64_t oc = me < m ? morph__dist_count(&x.dist, me, m) : 0;
  int errors = 0;
  if (oc > 0 && morph__part_new(&x.old, (size_t)oc * es) != MORPH_OK)
    errors++;
  if (x.old)
    fill(x.old, morph__dist_offset(&x.dist, me, m), oc, es);
  /* (1), (2): transfer, then roll back. */
  errors += transfer(&x);
  errors += check_new(&x, what);
  MPI_Barrier(MPI_COMM_WORLD);
  morph__part_free(x.nw, 0);
  if (x.old)
    errors += check(x.old->base, morph__dist_offset(&x.dist, me, m), oc, es, what, me);
  MPI_Barrier(MPI_COMM_WORLD);
  /* (3), (4): transfer, then commit. */
  errors += transfer(&x);
  if (expect_adopted(&x) && x.nw && (x.nw->nfiles < 2 || file_bytes(x.nw->files[0].fd) != 0) &&
      ++errors)
    fprintf(stderr, "%s: rank %d copied (%d files, %lld bytes of its own)\n", what, me,
            x.nw->nfiles, file_bytes(x.nw->files[0].fd));
  MPI_Barrier(MPI_COMM_WORLD);
  morph__part_trim(x.old);
  morph__part_free(x.old, 0);
  MPI_Barrier(MPI_COMM_WORLD);
  errors += check_new(&x, what);
  errors += check_kept(&x, what);
  morph__part_free(x.nw, 0);
  morph__plan_free(&x.plan);
  printf("%s: rank %d, %d errors\n", what, me, errors);
  return errors;
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int me, size, errors = 0, all = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  static const char *defaults[] = {"4:2", "8:2", "2:4", "3:5", "5:2", "4:3", "1:4", "4:1"};
  int nchanges = argc > 1 ? argc - 1 : 8;
  int before = open_fds();
  for (int k = 0; k < nchanges; k++) {
    int m = 0, n = 0;
    if (sscanf(argc > 1 ? argv[k + 1] : defaults[k], "%d:%d", &m, &n) != 2 || m < 1 || n < 1 ||
        m > size || n > size) {
      fprintf(stderr, "bad change '%s' for %d processes\n", argc > 1 ? argv[k + 1] : defaults[k],
              size);
      errors++;
      continue;
    }
    errors += one_change(m, n, 8, me);
    errors += one_change(m, n, 24, me);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  int after = open_fds();
  if (after != before && ++errors)
    fprintf(stderr, "rank %d: %d descriptors open before, %d after\n", me, before, after);
  MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (me == 0)
    printf("test-redist-parts: %s\n", all ? "FAILED" : "PASSED");
  MPI_Finalize();
  return all != 0;
}
