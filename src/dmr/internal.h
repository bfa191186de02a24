/*
 * Internals of the DMRlib-compatible front-end (include/morph/dmr.h).
 *
 * How it maps DMRlib onto morph. DMR_Init registers three things with
 * morph: a replicated block of shared state (step counter, size at the
 * last point, limits, inhibitors), so that joiners receive it; and one
 * callbacks entry that carries the data named by the Send functions. At a
 * reconfiguration every old process packs its noted arrays into one blob,
 * morph delivers the blob of old rank r to new rank r mod N, and the Recv
 * functions then rebalance each array among the new processes in one
 * all-to-all (redist.c). Nothing here touches morph's internals.
 */
#ifndef MORPH_DMR_INTERNAL_H
#define MORPH_DMR_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "morph/dmr.h"

#define DMR__MAX_SLOTS 16

/* One array named by a Send function at the last point. */
typedef struct dmr__slot {
  const void *data;
  MPI_Datatype type;
  int cyclic;    /* 0: default (block), 1: block-cyclic */
  int64_t units; /* elements (default) or blocks (block-cyclic) */
  int64_t block; /* elements per unit: 1 (default) or the block size */
} dmr__slot;

/* Blob layout, one per old process: a dmr__blob_head, then one
 * dmr__blob_slot per noted array, then the arrays' bytes in slot order. */
typedef struct dmr__blob_head {
  int32_t old_rank, old_size, nslots, unused;
} dmr__blob_head;

typedef struct dmr__blob_slot {
  int32_t cyclic, unused;
  int64_t units, block, unit_bytes;
} dmr__blob_slot;

/* The replicated shared state, indexed by these names. */
enum {
  DMR__SH_CALLS, /* DMR_RECONFIG points so far */
  DMR__SH_SIZE,  /* number of processes at the last point */
  DMR__SH_MIN,   /* limits last applied (-1: never) */
  DMR__SH_MAX,
  DMR__SH_PREF,
  DMR__SH_ITERS, /* iteration inhibitor last applied (-1: never) */
  DMR__SH_COUNT
};

typedef struct dmr__ctx {
  morph_ctx *m;
  int is_new;                    /* started with the job */
  int64_t shared[DMR__SH_COUNT]; /* registered replicated */
  double period;                 /* registered replicated (-1: never set) */
  int capturing;                 /* inside the Send expression */
  dmr__slot slots[DMR__MAX_SLOTS];
  int nslots;
  int old_rank, old_size;        /* this process at the last point */
  void **blobs;                  /* received at the last reconfiguration */
  size_t *lens;
  int nblobs;
  int unpacked;                  /* unpack ran during the last point */
  int cursor;                    /* slot of the next Recv function */
  int resume;                    /* joiner: kind of its creating point, returned by its first
                                    DMR_RECONFIG (0: none) */
} dmr__ctx;

/* The process-wide context (NULL before DMR_Init). */
dmr__ctx *dmr__get(void);

/* The morph callbacks carrying the noted arrays (reconfig.c); arg is the
 * context. */
int dmr__pack(void *arg, void **blob, size_t *len);
int dmr__unpack(void *arg, int nblobs, void *const *blobs, const size_t *lens);
void dmr__drop_blobs(dmr__ctx *c);

/* After a point: DMR__EXPAND or DMR__SHRINK if data arrived, else
 * DMR__NONE (reconfig.c). */
int dmr__kind(dmr__ctx *c);

/* Ends the job with a message: a Table 1 function cannot report failure. */
_Noreturn void dmr__fatal(dmr__ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Rebalances slot c->cursor among the current processes (redist.c): frees
 * *data, stores the new local part, returns its number of units. */
int64_t dmr__redistribute(dmr__ctx *c, void **data, MPI_Datatype type, int cyclic,
                          int64_t *block);

#endif /* MORPH_DMR_INTERNAL_H */
