/*
 * A local part that other processes of the host can adopt without copying
 * (part.c): the memory of a large block or block-cyclic registration lives
 * in anonymous memory files (memfd) mapped shared, so that a receiver on the
 * same host can map a sender's file into its new part instead of copying
 * its bytes (local.c). No name is created anywhere (nothing in /dev/shm);
 * the files live as long as a mapping or a descriptor of them does, so a
 * killed process leaves nothing behind.
 *
 * A part is one virtual range: a base file that covers it all, over which
 * whole files of other parts may be mapped at page-aligned offsets
 * ("adopted" files). Every file is only ever mapped whole, by one part at
 * a time once a window is over, so no page outlives its last user.
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

/* One file of a part: mapped whole at [off, off + len) of the part. */
typedef struct morph__part_file {
  size_t off, len; /* len: the file's size, a multiple of the page size
                      unless the file ends the part */
  int fd;
} morph__part_file;

typedef struct morph__part {
  char *base;
  size_t bytes;  /* the data's length */
  size_t mapped; /* bytes rounded up to the page size */
  int nfiles;    /* files[0] is the base file */
  morph__part_file files[MORPH__PART_FILES];
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
 * Maps file `fd` (of `len` bytes, whole) at offset `off` of the part, over
 * what was there, and takes the descriptor over (closed with the part;
 * closed at once on failure). off must be page-aligned, and len a
 * multiple of the page size unless off + len == p->bytes.
 * Errors: MORPH_EINVAL (alignment, bounds, or MORPH__PART_FILES reached),
 * MORPH_EIO (the mapping failed); the part is unchanged then.
 */
int morph__part_adopt(morph__part *p, size_t off, int fd, size_t len);

/* The files a receiver may adopt whole: the base file if nothing was
 * adopted over it, else the adopted files. Returns how many were written
 * to out (at most MORPH__PART_FILES). */
int morph__part_whole_files(const morph__part *p, morph__part_file *out);

/* Unmaps the part and closes its files; NULL is ignored. keep_mapping: a
 * transfer into it was abandoned (MPI may still write), so only the
 * descriptors are closed and the memory stays mapped for good. */
void morph__part_free(morph__part *p, int keep_mapping);

#endif /* MORPH_REDIST_PART_H */
