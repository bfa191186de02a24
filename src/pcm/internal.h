/*
 * Internals of the PCM front-end (include/morph/pcm.h).
 *
 * How it maps PCM onto morph. The PCMD's per-rank database is a table of
 * entries, each for one rank (pcm__store). MPI_PCM_Init registers one
 * morph callbacks entry that carries the whole table through every
 * adaptation window, live or relaunch: old rank r's table arrives at new
 * rank r mod N, and the front-end then routes every entry to the rank it
 * is for with one all-to-all over the new world (store.c). A split or
 * merge cuts the array's own columns into pieces at the new layout's
 * boundaries, stores each piece for the rank that will own it, lets the
 * window carry them, and assembles the pieces into the new part
 * (columns.c). So a process created by a split and a relaunched process
 * find their part where Figure 6 loads it, under "myArray".
 *
 * Files, each calling only files below it: init.c (MPI_PCM_Init, PCM_Init,
 * finalization) and reconfig.c (PCM_Status, splits and merges), window.c
 * (the adaptation window: refuse, carry, route, assemble), columns.c,
 * store.c (the table, its wire form, PCM_Store / PCM_Load), state.c (the
 * process-wide state and messages).
 */
#ifndef MORPH_PCM_INTERNAL_H
#define MORPH_PCM_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "morph/pcm.h"

#define PCM__KEY_MAX 48

/* One entry of the per-rank database. */
typedef struct pcm__entry {
  char key[PCM__KEY_MAX];
  int32_t rank;   /* the rank it is for */
  int32_t piece;  /* 1: a slice of the array on its way (internal) */
  int64_t offset; /* piece: its first global column */
  int64_t ncols;  /* piece: columns */
  int64_t rows;   /* piece: elements per column */
  int64_t elem;   /* piece: bytes per element */
  int64_t nbytes;
  char *bytes;
} pcm__entry;

typedef struct pcm__store {
  pcm__entry *v;
  int n, cap;
} pcm__store;

/* The process-wide state PCM's handle-less API needs. */
typedef struct pcm__state {
  morph_ctx *ctx;       /* NULL before MPI_PCM_Init and after finalization */
  int started;          /* PCM_STARTED, PCM_SPLITTED or PCM_MIGRATED */
  int announced;        /* PCM_SPLIT / PCM_MERGE / PCM_MIGRATE /
                           PCM_RECONFIGURE returned, not carried out */
  morph_change change;  /* and the change it announced */
  int stashed;          /* a new process's first PCM_Status returns what
                           MPI_PCM_Init's probe found, without asking */
  pcm__store store;
  char errmsg[512];
} pcm__state;

/* state.c */
pcm__state *pcm__get(void); /* never NULL */
int pcm__fail(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int pcm__morph_fail(int rc, const char *what); /* the context's message */
int pcm__ready(const char *what);              /* MORPH_ESTATE before init */

/* store.c. put copies the bytes and replaces an entry of the same rank,
 * key and piece offset: MORPH_ENOMEM (store unchanged). find: NULL if none.
 * drop_keys removes every piece and every entry under the split's keys. */
int pcm__store_put(pcm__store *s, const pcm__entry *e, const void *bytes);
pcm__entry *pcm__store_find(pcm__store *s, int rank, const char *key);
/* Removes an entry and hands its bytes (malloc'ed) to the caller; NULL if
 * none. */
char *pcm__store_take(pcm__store *s, int rank, const char *key);
void pcm__store_drop_pieces(pcm__store *s);
void pcm__store_drop_keys(pcm__store *s);
void pcm__store_clear(pcm__store *s);

/* The callbacks that carry the table through a window (store.c):
 * pack: MORPH_ENOMEM; unpack: MORPH_ENOMEM, MORPH_EPROTO (malformed). */
int pcm__pack(void *arg, void **blob, size_t *len);
int pcm__unpack(void *arg, int nblobs, void *const *blobs, const size_t *lens);

/* Sends every entry to the process of its rank over comm (entries for
 * ranks >= its size are dropped). Collective over comm. Errors:
 * MORPH_ENOMEM, MORPH_EMPI, MORPH_EPROTO; the table is then empty. */
int pcm__store_route(pcm__store *s, MPI_Comm comm);

/* columns.c. The column layout of the array after a change to new_size.
 * cut: stores this process's own columns (`first` is its first global
 * column) as pieces for their new owners; rank 0 of the old world
 * (old_rank 0) also stores every new rank's iterator and width. */
typedef struct pcm__array {
  char *data;          /* (xdim + 2) * rows elements */
  int64_t xdim, rows, elem, first, total;
  int iteration;
} pcm__array;
int64_t pcm__block_first(int64_t total, int p, int r);
int pcm__cut(pcm__store *s, const pcm__array *a, int old_rank, int new_size);
/* Joins the pieces for `rank` into its MORPH_PCM_KEY_ARRAY entry.
 * Errors: MORPH_ENOMEM, MORPH_EPROTO (pieces missing or overlapping). */
int pcm__assemble(pcm__store *s, int rank);

/* window.c */
typedef enum { PCM__SPLIT_ONE, PCM__SPLIT_ALL, PCM__MERGE_ONE, PCM__MERGE_ALL } pcm__form;
/* Checks the form against the announced change: MORPH_ESIZE, message set. */
int pcm__check_form(const pcm__state *s, pcm__form form, const char *what);
/* Agrees on rc over the world (the most negative wins); if it is an
 * error, refuses the announced change (rolled back) and returns it. */
int pcm__agree_or_refuse(pcm__state *s, int rc, const char *what);
/* Opens and commits the window of the announced change, then routes the
 * table and assembles this process's part. A process that leaves ends
 * here. Errors: MORPH_EABORTED (rolled back: pieces dropped), those of
 * routing and assembling (the change happened). */
int pcm__carry(pcm__state *s, const char *what);
/* Carries out an announced move (PCM_Reconfigure): its grow, then its
 * shrink, each window followed by the route of the table; a mover ends
 * inside. Errors: MORPH_EABORTED (rolled back: the grow, nothing moved;
 * the shrink, the job keeps the new processes as well), those of routing
 * (MORPH_ENOMEM, MORPH_EMPI, MORPH_EPROTO), MORPH_EPROTO (the shrink did
 * not follow). */
int pcm__migrate(pcm__state *s, const char *what);
/* A joiner's arrival (live; both halves of a move, then PCM_MIGRATED) or
 * a relaunched process's restore, inside MPI_PCM_Init. */
int pcm__arrive(pcm__state *s);

#endif /* MORPH_PCM_INTERNAL_H */
