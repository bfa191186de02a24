/*
 * Before a relaunch's checkpoint is written (checkpoint.h): the folder is
 * one every process can write into, and the file gets the space the
 * registered data needs. A folder that cannot take it is found while the
 * job can still roll back without loss (PREPARE), not halfway through the
 * write, after a front-end has given its data up.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/safedir.h"
#include "runtime/checkpoint.h"
#include "runtime/wait.h"

/* The bytes this process adds to the checkpoint, as far as known before
 * the write (a callbacks entry packs then: counted as nothing). */
static int64_t my_bytes(const morph_ctx *ctx)
{
  int64_t b = 0;
  for (int i = 0; i < ctx->ndata; i++) {
    const morph__data *d = &ctx->data[i];
    int64_t sz = (int64_t)d->elem_size;
    if (d->kind == MORPH__DATA_BLOCK || d->kind == MORPH__DATA_BLOCK_CYCLIC)
      b += d->local * sz;
    else if (d->kind == MORPH__DATA_VARCOUNT)
      b += *d->ucount * sz + 8;
    else if (d->kind == MORPH__DATA_REPLICATED && ctx->rank == 0)
      b += (int64_t)d->count * sz;
  }
  return b + 4096; /* head and entries, generously */
}

/* Rank 0: the file, at `total` bytes. "" if done, else why not. Created
 * new, never through a link: a file of that name left by an earlier job
 * of ours is removed first; one of another user (in a sticky folder) stays
 * and the relaunch is refused. */
static void reserve_file(const char *path, const char *dir, int64_t total, char *why, size_t size)
{
  why[0] = '\0';
  unlink(path);
  int fd = open(path, O_CREAT | O_EXCL | O_NOFOLLOW | O_WRONLY | O_CLOEXEC, 0600);
  if (fd < 0) {
    snprintf(why, size, "cannot create the checkpoint there (%s)", strerror(errno));
    return;
  }
  int e = fallocate(fd, 0, 0, (off_t)total) == 0 ? 0 : errno;
  struct statvfs fs;
  /* A file system without fallocate: its free space has to do. */
  if ((e == EOPNOTSUPP || e == ENOSYS) && statvfs(dir, &fs) == 0)
    e = (int64_t)fs.f_bavail * (int64_t)fs.f_frsize >= total ? 0 : ENOSPC;
  if (e)
    snprintf(why, size, "holds less than the checkpoint needs (%lld bytes): %s",
             (long long)total, strerror(e));
  close(fd);
  if (e)
    unlink(path);
}

/* Buffers of the agreements: heap, leaked after a timeout (wait.h). */
typedef struct reserve_buf {
  int64_t mine, total;
} reserve_buf;

int morph__ckpt_reserve(morph_ctx *ctx, morph__window *w)
{
  char why[256];
  double deadline = morph__now() + w->step_timeout;
  morph__dir_usable(ctx->checkpoint_dir, why, sizeof why);
  int rc = morph__agree(ctx, ctx->comm, why[0] ? MORPH_EIO : MORPH_OK, deadline);
  if (rc == MORPH_EIO)
    snprintf(w->why, sizeof w->why, "the checkpoint folder %.110s %.110s", ctx->checkpoint_dir,
             why[0] ? why : "is not usable by another process of the job (not the same "
                            "folder on every host?)");
  reserve_buf *b = rc == MORPH_OK ? malloc(sizeof *b) : NULL;
  if (rc == MORPH_OK && !b)
    rc = MORPH_ENOMEM;
  MPI_Request req;
  if (rc == MORPH_OK) {
    b->mine = my_bytes(ctx);
    rc = MPI_Iallreduce(&b->mine, &b->total, 1, MPI_INT64_T, MPI_SUM, ctx->comm, &req) ==
                 MPI_SUCCESS
             ? morph__wait_all(1, &req, deadline)
             : MORPH_EMPI;
  }
  why[0] = '\0';
  if (rc == MORPH_OK && ctx->rank == 0)
    reserve_file(w->checkpoint, ctx->checkpoint_dir, b->total, why, sizeof why);
  if (rc == MORPH_OK)
    rc = morph__agree(ctx, ctx->comm, why[0] ? MORPH_EIO : MORPH_OK, deadline);
  if (rc == MORPH_EIO && !w->why[0])
    snprintf(w->why, sizeof w->why, "the checkpoint folder %.110s %.110s", ctx->checkpoint_dir,
             why[0] ? why : "has too little space (rank 0 says why)");
  if (rc != MORPH_ETIMEDOUT)
    free(b);
  return rc;
}
