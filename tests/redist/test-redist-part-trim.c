/*
 * The page bookkeeping of memory-file parts (src/redist/part.c) that makes
 * adopting a range of another part's file safe: at a commit an old part
 * gives back every page it maps except the ranges new parts adopted
 * (morph__part_give, morph__part_trim), so that no page outlives its last
 * user, and the adopted ranges keep their data after the old part is gone.
 * Pages in use are read from the file's st_blocks.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "morph/error.h"
#include "redist/part.h"

static size_t pg;

static long long pages_held(int fd)
{
  struct stat st;
  assert_int_equal(fstat(fd, &st), 0);
  return (long long)st.st_blocks * 512 / (long long)pg;
}

/* A part of `bytes`, every byte written with its offset's page number. */
static morph__part *filled(size_t bytes)
{
  morph__part *p = NULL;
  assert_int_equal(morph__part_new(&p, bytes), MORPH_OK);
  for (size_t i = 0; i < bytes; i++)
    p->base[i] = (char)(i / pg + 1);
  return p;
}

static void assert_pages(const char *base, size_t npages, size_t first_page)
{
  for (size_t i = 0; i < npages * pg; i++)
    if (base[i] != (char)(first_page + i / pg + 1))
      fail_msg("byte %zu holds %d, expected %d", i, base[i], (int)(char)(first_page + i / pg + 1));
}

static void test_trim_keeps_only_the_adopted_range(void **state)
{
  (void)state;
  morph__part *old = filled(64 * pg), *nw = NULL;
  assert_int_equal(morph__part_new(&nw, 32 * pg), MORPH_OK);
  assert_int_equal(morph__part_adopt(nw, 0, dup(old->files[0].fd), 16 * pg, 32 * pg), MORPH_OK);
  morph__part_give(old, 16 * pg, 32 * pg);
  assert_int_equal(pages_held(old->files[0].fd), 64);
  morph__part_trim(old);
  assert_int_equal(pages_held(old->files[0].fd), 32);
  char c = 1; /* given back: reads as zero (pread: a load through the
                 mapping would allocate the page again) */
  assert_int_equal(pread(old->files[0].fd, &c, 1, 0), 1);
  assert_int_equal(c, 0);
  morph__part_free(old, 0);
  assert_pages(nw->base, 32, 16);
  assert_int_equal(pages_held(nw->files[1].fd), 32);
  morph__part_free(nw, 0);
}

static void test_trim_without_gifts_gives_back_everything(void **state)
{
  (void)state;
  morph__part *p = filled(16 * pg);
  morph__part_give(p, 0, 8 * pg);
  morph__part_forget(p); /* a rolled-back window's gifts do not count */
  morph__part_trim(p);
  assert_int_equal(pages_held(p->files[0].fd), 0);
  morph__part_free(p, 0);
}

/* A given range that ends the part keeps its last, partial page; a
 * rounding-out keeps pages a given range only touches. */
static void test_trim_rounds_gifts_out_to_pages(void **state)
{
  (void)state;
  morph__part *p = filled(10 * pg + 100);
  morph__part_give(p, 8 * pg, 2 * pg + 100);
  morph__part_give(p, 2 * pg + 10, 20); /* inside page 2 */
  morph__part_trim(p);
  assert_int_equal(pages_held(p->files[0].fd), 4);
  assert_pages(p->base + 8 * pg, 2, 8);
  assert_pages(p->base + 2 * pg, 1, 2);
  morph__part_free(p, 0);
}

/* Trimming a part that adopted ranges itself gives back the adopted
 * files' pages too (a part's second window), at their file offsets. */
static void test_trim_reaches_adopted_files(void **state)
{
  (void)state;
  morph__part *src = filled(32 * pg), *mid = NULL;
  assert_int_equal(morph__part_new(&mid, 16 * pg), MORPH_OK);
  assert_int_equal(morph__part_adopt(mid, 0, dup(src->files[0].fd), 16 * pg, 16 * pg), MORPH_OK);
  morph__part_give(src, 16 * pg, 16 * pg);
  morph__part_trim(src);
  morph__part_free(src, 0);
  int fd = mid->files[1].fd;
  assert_int_equal(pages_held(fd), 16);
  morph__part_give(mid, 4 * pg, 4 * pg);
  morph__part_trim(mid);
  assert_int_equal(pages_held(fd), 4);
  assert_pages(mid->base + 4 * pg, 4, 20);
  morph__part_free(mid, 0);
}

static void test_adopt_rejects_misaligned_ranges(void **state)
{
  (void)state;
  morph__part *src = filled(8 * pg), *nw = NULL;
  assert_int_equal(morph__part_new(&nw, 8 * pg), MORPH_OK);
  assert_int_equal(morph__part_adopt(nw, 0, dup(src->files[0].fd), 100, 4 * pg), MORPH_EINVAL);
  assert_int_equal(morph__part_adopt(nw, 100, dup(src->files[0].fd), 0, 4 * pg), MORPH_EINVAL);
  assert_int_equal(morph__part_adopt(nw, 0, dup(src->files[0].fd), 0, 4 * pg + 1), MORPH_EINVAL);
  assert_int_equal(nw->nfiles, 1);
  morph__part_free(src, 0);
  morph__part_free(nw, 0);
}

int main(void)
{
  pg = morph__part_page();
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_trim_keeps_only_the_adopted_range),
    cmocka_unit_test(test_trim_without_gifts_gives_back_everything),
    cmocka_unit_test(test_trim_rounds_gifts_out_to_pages),
    cmocka_unit_test(test_trim_reaches_adopted_files),
    cmocka_unit_test(test_adopt_rejects_misaligned_ranges),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
