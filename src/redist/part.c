/*
 * Local parts in memory files (part.h has the model). Why memfd and not
 * POSIX shm: a memfd has no name, so there is nothing to unlink on any
 * path, and its descriptor can be handed to a peer of the same user with
 * pidfd_getfd (local.c) without a socket.
 */
#include "redist/part.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "morph/error.h"

size_t morph__part_page(void)
{
  long pg = sysconf(_SC_PAGESIZE);
  return pg > 0 ? (size_t)pg : 4096;
}

static size_t round_up(size_t n, size_t pg)
{
  return (n + pg - 1) / pg * pg;
}

int morph__part_new(morph__part **out, size_t bytes)
{
  *out = NULL;
  morph__part *p = calloc(1, sizeof *p);
  if (!p || bytes == 0) {
    free(p);
    return bytes == 0 ? MORPH_EINVAL : MORPH_ENOMEM;
  }
  p->bytes = bytes;
  p->mapped = round_up(bytes, morph__part_page());
  int fd = memfd_create("morph-part", MFD_CLOEXEC);
  void *m = MAP_FAILED;
  if (fd >= 0 && ftruncate(fd, (off_t)p->mapped) == 0)
    m = mmap(NULL, p->mapped, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (m == MAP_FAILED) {
    if (fd >= 0)
      close(fd);
    free(p);
    return MORPH_ENOMEM;
  }
  p->base = m;
  p->files[0] = (morph__part_file){0, p->mapped, 0, fd};
  p->nfiles = 1;
  *out = p;
  return MORPH_OK;
}

void morph__part_populate(morph__part *p, size_t off, size_t len)
{
  size_t pg = morph__part_page(), lo = off / pg * pg;
  /* A call per small slice (block-cyclic) costs more than its faults. */
  if (len < ((size_t)64 << 10) || off >= p->mapped)
    return;
  size_t hi = round_up(off + len, pg);
  madvise(p->base + lo, (hi < p->mapped ? hi : p->mapped) - lo, MADV_POPULATE_WRITE);
}

int morph__part_adopt(morph__part *p, size_t off, int fd, size_t foff, size_t len)
{
  size_t pg = morph__part_page();
  int fits = off % pg == 0 && foff % pg == 0 && len > 0 && off < p->bytes &&
             len <= p->bytes - off && (len % pg == 0 || off + len == p->bytes) &&
             p->nfiles < MORPH__PART_FILES;
  /* Populated now: the application's first touch of its new data would
   * otherwise fault page by page, a cost the window should show. */
  void *m = fits ? mmap(p->base + off, round_up(len, pg), PROT_READ | PROT_WRITE,
                        MAP_SHARED | MAP_FIXED | MAP_POPULATE, fd, (off_t)foff)
                 : MAP_FAILED;
  if (m == MAP_FAILED) {
    close(fd);
    return fits ? MORPH_EIO : MORPH_EINVAL;
  }
  /* Pages the base file may hold under the adopted range are unreachable
   * now: give them back. */
  fallocate(p->files[0].fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)off,
            (off_t)round_up(len, pg));
  p->files[p->nfiles++] = (morph__part_file){off, len, foff, fd};
  return MORPH_OK;
}

int morph__part_files(const morph__part *p, morph__part_file *out)
{
  if (p->nfiles == 1) {
    out[0] = p->files[0];
    out[0].len = p->bytes;
    return 1;
  }
  memcpy(out, p->files + 1, (size_t)(p->nfiles - 1) * sizeof *out);
  return p->nfiles - 1;
}

void morph__part_forget(morph__part *p)
{
  p->ngiven = 0;
  p->given_lost = 0;
}

void morph__part_give(morph__part *p, size_t off, size_t len)
{
  if (p->ngiven == p->given_cap) {
    int cap = p->given_cap ? 2 * p->given_cap : 8;
    morph__part_span *g = realloc(p->given, (size_t)cap * sizeof *g);
    if (!g) {
      p->given_lost = 1;
      return;
    }
    p->given = g, p->given_cap = cap;
  }
  p->given[p->ngiven++] = (morph__part_span){off, len};
}

/* Gives back the pages of every file behind [lo, hi) of the part (page
 * multiples): the base file's and those of ranges adopted over it. */
static void punch(const morph__part *p, size_t lo, size_t hi)
{
  size_t pg = morph__part_page();
  for (int k = 0; k < p->nfiles; k++) {
    const morph__part_file *f = &p->files[k];
    size_t a = lo > f->off ? lo : f->off, e = f->off + round_up(f->len, pg);
    size_t b = hi < e ? hi : e;
    if (a < b)
      fallocate(f->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)(f->foff + (a - f->off)),
                (off_t)(b - a));
  }
}

static int by_offset(const void *a, const void *b)
{
  size_t x = ((const morph__part_span *)a)->off, y = ((const morph__part_span *)b)->off;
  return x < y ? -1 : x > y;
}

void morph__part_trim(morph__part *p)
{
  if (!p || p->given_lost)
    return;
  size_t pg = morph__part_page(), at = 0;
  if (p->ngiven > 1)
    qsort(p->given, (size_t)p->ngiven, sizeof *p->given, by_offset);
  for (int k = 0; k <= p->ngiven; k++) {
    size_t lo = k < p->ngiven ? p->given[k].off / pg * pg : p->mapped;
    if (lo > at)
      punch(p, at, lo);
    if (k < p->ngiven && round_up(p->given[k].off + p->given[k].len, pg) > at)
      at = round_up(p->given[k].off + p->given[k].len, pg);
  }
  morph__part_forget(p);
}

void morph__part_free(morph__part *p, int keep_mapping)
{
  if (!p)
    return;
  if (!keep_mapping)
    munmap(p->base, p->mapped);
  for (int k = 0; k < p->nfiles; k++)
    close(p->files[k].fd);
  free(p->given);
  free(p);
}
