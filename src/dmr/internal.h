/*
 * Internals of the DMRlib-compatible front-end (include/morph/dmr.h).
 *
 * How it maps DMRlib onto morph. DMR_Init registers with morph a replicated
 * block of shared state (step counter, size at the last point, limits,
 * inhibitors), so that joiners receive it, and one callbacks entry that
 * carries the arrays named by the Send functions. At a reconfiguration
 * every old process packs its noted arrays into one blob, morph delivers
 * the blob of old rank r to new rank r mod N (blob.c), and each Recv
 * function then rebalances its array among the new processes with the
 * redistribution engine, src/redist (rebalance.c).
 *
 * Files, each calling only files below it: reconfig.c (DMR_RECONFIG and
 * Table 1), context.c (DMR_Init, DMR_Finalize, settings), blob.c and
 * rebalance.c (the arrays' two steps), fatal.c.
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

/* One noted array as this process received it: the parts of the old
 * processes whose blobs it holds, concatenated in increasing old rank. */
typedef struct dmr__held {
  int cyclic;         /* as sent; -1 if the held parts disagree */
  int64_t block, unit_bytes;
  int64_t *units;     /* per held blob: the units of its part */
  char *bytes;
} dmr__held;

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
  int *held_ranks;               /* old ranks of the blobs received at the
                                    last reconfiguration, increasing */
  int nblobs;
  dmr__held *held;               /* per noted array, from those blobs */
  int nheld;
  int unpacked;                  /* unpack ran during the last point */
  int unpack_rc;                 /* and failed with this (MORPH_OK: did not) */
  int cursor;                    /* slot of the next Recv function */
  int resume;                    /* joiner: kind of its creating point, returned by its first
                                    DMR_RECONFIG (0: none) */
  int pending;                   /* a probe found a change: its kind (0: none) */
  int live;                      /* and it is carried out live */
  int in_window;                 /* the adaptation window is open (morph_begin) */
  int rolled_back;               /* the live window of this point was rolled back
                                    before the Send expression: skip the point */
  int exchanging;                /* live window: the arrays travel by dmr__exchange,
                                    morph's callbacks carry empty blobs */
  morph_window_info win;         /* and what it is */
} dmr__ctx;

/* The communicator the arrays move on, its rank and size: the processes
 * after the change while a window is open, else the current ones. */
MPI_Comm dmr__comm(const dmr__ctx *c);
int dmr__rank(const dmr__ctx *c);
int dmr__size(const dmr__ctx *c);

/* Opens the window of the pending change (morph_begin) and hands the
 * shared state to the joiners over it (context.c). Collective over the
 * processes of the window; ends the job on failure. */
void dmr__open_window(dmr__ctx *c);

/* The process-wide context (NULL before DMR_Init; context.c). */
dmr__ctx *dmr__get(void);

/* The morph callbacks carrying the noted arrays (blob.c); arg is the
 * context. dmr__pack: MORPH_ENOMEM. dmr__unpack: MORPH_ENOMEM, MORPH_EPROTO
 * (a malformed blob); nothing is kept on failure. */
int dmr__pack(void *arg, void **blob, size_t *len);
int dmr__unpack(void *arg, int nblobs, void *const *blobs, const size_t *lens);

/* Inside a live window: every parent sends its noted arrays to new rank
 * (old rank mod new size), every process of the new size receives and
 * unpacks them, as morph's callbacks would at the commit, but before the
 * Recv expression (blob.c). Collective over the window; ends the job on
 * failure. */
void dmr__exchange(dmr__ctx *c);

/* Frees what arrived at the last reconfiguration (blob.c). */
void dmr__drop_received(dmr__ctx *c);

/* After a point: DMR__EXPAND or DMR__SHRINK if data arrived, else
 * DMR__NONE (blob.c). Ends the job if the data arrived unreadable: the
 * size has changed, there is no way back. */
int dmr__kind(dmr__ctx *c);

/* Ends the job with a message: a Table 1 function cannot report failure
 * (fatal.c). */
_Noreturn void dmr__fatal(dmr__ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Rebalances array c->cursor among the current processes (rebalance.c):
 * frees *data, stores the new local part, returns its number of units and
 * sets *block. Collective over the new processes; ends the job on failure. */
int64_t dmr__rebalance(dmr__ctx *c, void **data, MPI_Datatype type, int cyclic, int64_t *block);

#endif /* MORPH_DMR_INTERNAL_H */
