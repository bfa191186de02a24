/*
 * libmorph-prof: the per-process traffic file, written by the profiler
 * (traffic.c, under MPI) and read by `morph prof` (matrix.c, without MPI).
 *
 * Each process of a profiled run owns one file, <dir>/<tag>-<rank>.prof,
 * whose bytes ARE its counters: the file is mapped shared into memory and
 * every intercepted call adds to it in place. Nothing has to be flushed, so
 * a process that crashes or is killed (even by SIGKILL) leaves its counts up
 * to its last MPI call; only a crash of the machine itself loses what the
 * kernel had not yet written back. `finished` tells the two cases apart.
 *
 * Layout (native byte order, the reader checks `magic` and `version`):
 * the header below, then four arrays of `world_size` uint64_t each:
 * bytes sent to each world rank, messages sent to each, and bytes and
 * messages this process pulled from each with one-sided gets (data that
 * flows from the target to this process).
 */
#ifndef MORPH_PROF_RANKFILE_H
#define MORPH_PROF_RANKFILE_H

#include <stdint.h>

#define MORPH__RANKFILE_MAGIC "MPROF01"
#define MORPH__RANKFILE_VERSION 1

typedef struct morph__rankfile {
  char magic[8];           /* MORPH__RANKFILE_MAGIC, NUL-terminated */
  uint32_t version;        /* MORPH__RANKFILE_VERSION */
  uint32_t header_size;    /* sizeof(morph__rankfile): arrays start here */
  uint64_t tag;            /* same for every process of one MPI_COMM_WORLD */
  double start;            /* wall clock (s) at MPI_Init of world rank 0 */
  int32_t world_size;
  int32_t world_rank;
  int32_t spawned;         /* 1: this world was started by MPI_Comm_spawn */
  int32_t finished;        /* 1: the process reached MPI_Finalize; 2: it
                              called exit() without it; 0: it crashed, was
                              killed, or still runs */
  uint64_t external_bytes; /* sent to processes outside this world */
  uint64_t external_msgs;
  uint64_t uncounted;      /* calls whose traffic could not be attributed */
} morph__rankfile;

/* The four arrays that follow the header. */
static inline uint64_t *morph__rankfile_array(morph__rankfile *f, int which)
{
  return (uint64_t *)((char *)f + f->header_size) + (uint64_t)which * (uint64_t)f->world_size;
}

enum { MORPH__RF_BYTES, MORPH__RF_MSGS, MORPH__RF_PULLED_BYTES, MORPH__RF_PULLED_MSGS,
       MORPH__RF_ARRAYS };

#endif
