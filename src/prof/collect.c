/*
 * The per-process traffic files of a profiled run (rankfile.h) gathered
 * into one communication matrix per MPI_COMM_WORLD. Runs without MPI, after
 * the program ended (or crashed): the files are read, never mapped.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "morph/prof.h"
#include "prof/rankfile.h"

typedef struct collector {
  const char *dir;
  morph_comm_matrix **w;
  int count, cap;
  char *err;
  size_t errlen;
} collector;

static int cerr(collector *c, int rc, const char *fmt, ...)
{
  if (c->err && c->errlen) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->err, c->errlen, fmt, ap);
    va_end(ap);
  }
  return rc;
}

/* Reads a whole file; *len is its size. */
static int slurp(collector *c, const char *path, char **data, size_t *len)
{
  FILE *f = fopen(path, "rb");
  if (!f)
    return cerr(c, MORPH_EIO, "%s: cannot read: %s", path, strerror(errno));
  size_t cap = 1 << 16, n = 0, got;
  char *buf = malloc(cap);
  while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
    n += got;
    char *b = n == cap ? realloc(buf, cap *= 2) : buf;
    if (!b)
      free(buf);
    buf = b;
  }
  int bad = ferror(f);
  fclose(f);
  if (!buf)
    return cerr(c, MORPH_ENOMEM, "%s: out of memory", path);
  if (bad) {
    free(buf);
    return cerr(c, MORPH_EIO, "%s: read error", path);
  }
  *data = buf;
  *len = n;
  return MORPH_OK;
}

static int check(collector *c, const char *path, const morph__rankfile *h, size_t len)
{
  if (len < sizeof *h || memcmp(h->magic, MORPH__RANKFILE_MAGIC, sizeof h->magic))
    return cerr(c, MORPH_EPARSE, "%s: not a morph-prof traffic file (bad magic)", path);
  if (h->version != MORPH__RANKFILE_VERSION || h->header_size != sizeof *h)
    return cerr(c, MORPH_EPARSE, "%s: version %u of the traffic file, this morph reads %d", path,
                h->version, MORPH__RANKFILE_VERSION);
  if (h->world_size < 1 || h->world_rank < 0 || h->world_rank >= h->world_size)
    return cerr(c, MORPH_EPARSE, "%s: rank %d of a world of %d processes", path, h->world_rank,
                h->world_size);
  size_t want = sizeof *h + sizeof(uint64_t) * MORPH__RF_ARRAYS * (size_t)h->world_size;
  if (len < want)
    return cerr(c, MORPH_EPARSE, "%s: truncated (%zu bytes, expected %zu)", path, len, want);
  return MORPH_OK;
}

/* The matrix of the world with this tag, created on first sight. */
static int world_of(collector *c, const char *path, const morph__rankfile *h, int *idx)
{
  for (int i = 0; i < c->count; i++) {
    if (c->w[i]->origin.tag != h->tag)
      continue;
    if (c->w[i]->n != h->world_size)
      return cerr(c, MORPH_EPARSE, "%s: world of %d processes, other files of it say %d", path,
                  h->world_size, c->w[i]->n);
    *idx = i;
    return MORPH_OK;
  }
  if (c->count == c->cap) {
    int cap = c->cap ? 2 * c->cap : 4;
    morph_comm_matrix **w = realloc(c->w, sizeof *w * (size_t)cap);
    if (!w)
      return cerr(c, MORPH_ENOMEM, "out of memory");
    c->w = w, c->cap = cap;
  }
  if (morph_comm_matrix_create(h->world_size, &c->w[c->count]) != MORPH_OK)
    return cerr(c, MORPH_ENOMEM, "out of memory for a world of %d", h->world_size);
  morph_cm_origin *o = &c->w[c->count]->origin;
  o->tag = h->tag, o->start = h->start, o->spawned = h->spawned, o->missing = h->world_size;
  *idx = c->count++;
  return MORPH_OK;
}

/* Row of the sender; one-sided gets land in the target's row. */
static void add_rank(morph_comm_matrix *m, morph__rankfile *h)
{
  int n = m->n, r = h->world_rank;
  const uint64_t *b = morph__rankfile_array(h, MORPH__RF_BYTES);
  const uint64_t *k = morph__rankfile_array(h, MORPH__RF_MSGS);
  const uint64_t *pb = morph__rankfile_array(h, MORPH__RF_PULLED_BYTES);
  const uint64_t *pk = morph__rankfile_array(h, MORPH__RF_PULLED_MSGS);
  for (int j = 0; j < n; j++) {
    m->bytes[(size_t)r * n + j] += b[j];
    m->msgs[(size_t)r * n + j] += k[j];
    m->bytes[(size_t)j * n + r] += pb[j];
    m->msgs[(size_t)j * n + r] += pk[j];
  }
  morph_cm_origin *o = &m->origin;
  o->missing--;
  o->finished += h->finished == 1;
  o->exited += h->finished == 2;
  o->crashed += h->finished != 1 && h->finished != 2;
  o->external_bytes += h->external_bytes;
  o->external_msgs += h->external_msgs;
  o->uncounted += h->uncounted;
}

static int add_file(collector *c, const char *name)
{
  char path[PATH_MAX];
  snprintf(path, sizeof path, "%s/%s", c->dir, name);
  char *data = NULL;
  size_t len = 0;
  int idx = 0, rc = slurp(c, path, &data, &len);
  if (rc)
    return rc;
  morph__rankfile *h = (morph__rankfile *)data;
  rc = check(c, path, h, len);
  if (!rc)
    rc = world_of(c, path, h, &idx);
  if (!rc)
    add_rank(c->w[idx], h);
  free(data);
  return rc;
}

static int by_start(const void *a, const void *b)
{
  double x = (*(morph_comm_matrix *const *)a)->origin.start;
  double y = (*(morph_comm_matrix *const *)b)->origin.start;
  return (x > y) - (x < y);
}

static int has_suffix(const char *s, const char *suf)
{
  size_t a = strlen(s), b = strlen(suf);
  return a > b && !strcmp(s + a - b, suf);
}

int morph_prof_collect(const char *dir, morph_comm_matrix ***worlds, int *count, char *err,
                       size_t errlen)
{
  collector c = {.dir = dir, .err = err, .errlen = errlen};
  if (!dir || !worlds || !count)
    return cerr(&c, MORPH_EINVAL, "collect: missing argument");
  *worlds = NULL;
  *count = 0;
  DIR *d = opendir(dir);
  if (!d)
    return cerr(&c, MORPH_EIO, "%s: cannot open the folder: %s", dir, strerror(errno));
  struct dirent *e;
  int rc = MORPH_OK;
  while (!rc && (e = readdir(d)))
    if (has_suffix(e->d_name, ".prof"))
      rc = add_file(&c, e->d_name);
  closedir(d);
  if (!rc && c.count == 0)
    rc = cerr(&c, MORPH_ENOENT, "%s: no traffic files (*.prof): was the program profiled?", dir);
  if (rc) {
    morph_prof_collect_free(c.w, c.count);
    return rc;
  }
  qsort(c.w, (size_t)c.count, sizeof *c.w, by_start);
  *worlds = c.w;
  *count = c.count;
  return MORPH_OK;
}

void morph_prof_collect_free(morph_comm_matrix **worlds, int count)
{
  for (int i = 0; worlds && i < count; i++)
    morph_comm_matrix_destroy(worlds[i]);
  free(worlds);
}
