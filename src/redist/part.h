/*
 * A local part that other processes of the host can adopt without copying
 * (part.c): the memory of a large block or block-cyclic registration lives
 * in anonymous memory files (memfd) mapped shared, so that a receiver on the
 * same host can map a range of a sender's file into its new part instead of
 * copying its bytes (local.c). No name is created anywhere (nothing in
 * /dev/shm); the files live as long as a mapping or a descriptor of them
 * does, so a killed process leaves nothing behind.
 *
 * A part is one virtual range: a base file that covers it all, over which
 * page-aligned ranges of other parts' files may be mapped ("adopted").
 * Pages of a memory file live as long as the file does, not as long as
 * some mapping covers them, so a page nobody maps any more must be given
 * back explicitly. The rule that makes this safe: once a window is over,
 * every page of every file is mapped by at most one part. Inside a window
 * the old part and the new parts that adopted ranges of it overlap; the
 * old part records the ranges given away (morph__part_give, by itself and
 * by its receivers' answers), and at the commit, when no process needs the
 * old data any more, it gives back every other page it maps
 * (morph__part_trim). A rollback trims nothing: the adopters unmap.
 *
 * Only BLOCK and BLOCK_CYCLIC registrations use parts (morph owns their
 * memory); varcount buffers stay malloc'ed because the application
 * reallocates them.
 */
#ifndef MORPH_REDIST_PART_H
#define MORPH_REDIST_PART_H

#include <stddef.h>
#include <stdint.h>

/* Parts smaller than this stay plain malloc'ed memory: below it the copy
 * costs less than the handshake that would save it. */
#define MORPH__PART_MIN ((size_t)8 << 20)

/* Most files one part holds (the base file and adopted files); a part
 * that would need more copies instead. */
#define MORPH__PART_FILES 8

/* One file of a part: its bytes [foff, foff + len) mapped at [off, off +
 * len) of the part. */
typedef struct morph__part_file {
  size_t off, len; /* len: a multiple of the page size unless the range
                      ends the part */
  size_t foff;     /* page-aligned */
  int fd;
} morph__part_file;

/* Bytes [off, off + len) of a part. */
typedef struct morph__part_span {
  size_t off, len;
} morph__part_span;

typedef struct morph__part {
  char *base;
  size_t bytes;  /* the data's length */
  size_t mapped; /* bytes rounded up to the page size */
  int nfiles;    /* files[0] is the base file */
  morph__part_file files[MORPH__PART_FILES];
  /* Ranges new parts map in the current window (morph__part_give). */
  morph__part_span *given;
  int ngiven, given_cap;
  int given_lost; /* a range could not be recorded: trim nothing */
} morph__part;

/* The page size parts are aligned on. */
size_t morph__part_page(void);

/*
 * A new part of `bytes` bytes (> 0), zero-filled, not populated: its pages
 * appear as they are first written, or by morph__part_populate.
 * Errors: MORPH_ENOMEM (no memory file or mapping); *out is NULL then.
 */
int morph__part_new(morph__part **out, size_t bytes);

/* Writes the pages of [off, off + len) in one call (page-rounded), so that
 * a copy into them does not fault page by page. Best effort; ranges under
 * 64 KiB are left to fault. */
void morph__part_populate(morph__part *p, size_t off, size_t len);

/*
 * Maps bytes [foff, foff + len) of file `fd` at offset `off` of the part,
 * over what was there, with its page tables filled at once, and takes the
 * descriptor over (closed with the part; closed at once on failure). off
 * and foff must be page-aligned, and len a multiple of the page size
 * unless off + len == p->bytes (the file then has the page that follows).
 * Errors: MORPH_EINVAL (alignment, bounds, or MORPH__PART_FILES reached),
 * MORPH_EIO (the mapping failed); the part is unchanged then.
 */
int morph__part_adopt(morph__part *p, size_t off, int fd, size_t foff, size_t len);

/* The file ranges a receiver may adopt: the base file if nothing was
 * adopted over it, else the adopted ranges. Returns how many were written
 * to out (at most MORPH__PART_FILES). */
int morph__part_files(const morph__part *p, morph__part_file *out);

/* Forgets the ranges given in an earlier window: called as a window's
 * transfer of the part begins. */
void morph__part_forget(morph__part *p);

/* Records that a new part maps [off, off + len) of p (rounded out to
 * whole pages), so that morph__part_trim keeps it. If the record cannot
 * be made (no memory) the part remembers it and trims nothing. */
void morph__part_give(morph__part *p, size_t off, size_t len);

/*
 * At a commit, with p an old part: gives back to the kernel every page p
 * maps that no new part maps (the ranges given in this window kept), so
 * that no page outlives its last user. p's other bytes read as zero
 * afterwards. Best effort (a failed punch only keeps memory).
 */
void morph__part_trim(morph__part *p);

/* Unmaps the part and closes its files; NULL is ignored. keep_mapping: a
 * transfer into it was abandoned (MPI may still write), so only the
 * descriptors are closed and the memory stays mapped for good. */
void morph__part_free(morph__part *p, int keep_mapping);

#endif /* MORPH_REDIST_PART_H */
