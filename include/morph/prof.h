/*
 * morph/prof.h - communication matrices: who sends how much to whom.
 *
 * libmorph-prof (a PMPI library, linked into morph programs or loaded with
 * LD_PRELOAD into any MPI program) counts, at every sender, the bytes and
 * messages it sends to each rank of its MPI_COMM_WORLD, collectives
 * decomposed into the messages of the algorithm assumed for each. With
 * MORPH_PROF_DIR set, each process keeps its counters in a file of that
 * folder; morph_prof_collect() turns the files of a run into one matrix
 * per world, and `morph prof` does all of it for a command line.
 * docs/prof.md describes what is counted and the file formats.
 *
 * A matrix is n x n, row = sending rank, column = receiving rank (world
 * ranks, 0-based in memory; Matrix Market files are 1-based). It is
 * directed; placement uses the symmetric sum, as paper 004's Gv does.
 *
 * Error contract. Every int function returns MORPH_OK or a negative code of
 * morph/error.h. Functions that take a matrix keep a message of their last
 * failure in it (morph_comm_matrix_errmsg); parse errors name the file,
 * the line and the field. A failed load leaves the matrix as it was.
 * This header needs no MPI. A matrix is used by one thread at a time.
 */
#ifndef MORPH_PROF_H
#define MORPH_PROF_H

#include <stddef.h>
#include <stdint.h>

#include "morph/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Which of the two counts a file holds or a function reads. */
typedef enum morph_cm_weight { MORPH_CM_BYTES = 0, MORPH_CM_MSGS = 1 } morph_cm_weight;

/* The largest matrix a file may declare: matrices are dense (two n x n
 * arrays of 8-byte counts, 2 x 512 MiB at this size); a header beyond it
 * is a parse error rather than an allocation of up to 2^43 bytes (found
 * by fuzz-matrix, tests/fuzz/corpus/matrix/crash-huge-size.mtx). */
#define MORPH_CM_MAX_RANKS 8192

/* Where a profiled matrix comes from: how its processes ended and what
 * could not be put in a pair. All zero for a matrix loaded from a file. */
typedef struct morph_cm_origin {
  uint64_t tag;            /* the world's identity in the per-process files */
  double start;            /* wall clock of its MPI_Init (rank 0) */
  int spawned;             /* the world was started by MPI_Comm_spawn */
  int finished;            /* processes that reached MPI_Finalize */
  int exited;              /* processes that called exit() without it */
  int crashed;             /* processes with no end mark: crashed or killed */
  int missing;             /* ranks without a file */
  uint64_t external_bytes; /* sent to processes of other worlds */
  uint64_t external_msgs;
  uint64_t uncounted;      /* calls whose traffic could not be attributed */
} morph_cm_origin;

typedef struct morph_comm_matrix {
  int n;
  uint64_t *bytes; /* n * n, bytes[i * n + j]: bytes from i to j */
  uint64_t *msgs;  /* n * n, messages from i to j */
  morph_cm_origin origin;
  char errmsg[512];
} morph_comm_matrix;

/* A zero matrix of n >= 0 ranks. Errors: MORPH_EINVAL (n < 0 or out NULL),
 * MORPH_ENOMEM (*out NULL). */
int morph_comm_matrix_create(int n, morph_comm_matrix **out);

/* Frees a matrix; NULL is fine. */
void morph_comm_matrix_destroy(morph_comm_matrix *m);

/* Message of the last failure ("" after success). Never NULL. */
const char *morph_comm_matrix_errmsg(const morph_comm_matrix *m);

/* Sum of all entries of one weight. Never fails (m a loaded matrix). */
uint64_t morph_comm_matrix_total(const morph_comm_matrix *m, morph_cm_weight w);

/* Writes one weight as a Matrix Market file ("coordinate integer general",
 * non-zero entries only, 1-based, the origin in % comment lines).
 * Errors: MORPH_EINVAL, MORPH_EIO (message names the path). */
int morph_comm_matrix_save(morph_comm_matrix *m, const char *path, morph_cm_weight w);

/* Reads a Matrix Market file into weight w (the other weight becomes
 * zero; the size becomes the file's). Accepts coordinate matrices, square,
 * integer, real (rounded) or pattern (1 per entry), general or symmetric,
 * of at most MORPH_CM_MAX_RANKS rows.
 * Errors: MORPH_EIO (cannot read), MORPH_EPARSE (malformed: the message
 * names file, line and field), MORPH_ENOMEM; the matrix is unchanged. */
int morph_comm_matrix_load(morph_comm_matrix *m, const char *path, morph_cm_weight w);

/* A heatmap of weight w as a PNG with gnuplot: png_path, and the gnuplot
 * script next to it (png_path with .gp instead of .png) for restyling.
 * Errors: MORPH_EINVAL, MORPH_EIO, MORPH_ENOSYS (gnuplot failed or is
 * missing; the script is kept). */
int morph_comm_matrix_plot(morph_comm_matrix *m, const char *png_path, morph_cm_weight w,
                           const char *title);

/* The per-process files of a profiled run in folder dir, one matrix per
 * MPI_COMM_WORLD found (a static run has one; spawned groups and relaunches
 * add worlds), in start order. *worlds is an array of *count matrices, to
 * be freed with morph_prof_collect_free. Files of processes that crashed
 * are read like the others: their counts stop at their last MPI call.
 * Errors: MORPH_EIO (cannot read the folder or a file), MORPH_EPARSE (a
 * file that is not a morph-prof file, is truncated, or disagrees with the
 * others of its world), MORPH_ENOENT (no file at all), MORPH_ENOMEM; the
 * message goes to err (errlen bytes, may be NULL) and names the file. */
int morph_prof_collect(const char *dir, morph_comm_matrix ***worlds, int *count, char *err,
                       size_t errlen);

/* Frees what morph_prof_collect returned; NULL is fine. */
void morph_prof_collect_free(morph_comm_matrix **worlds, int count);

#ifdef __cplusplus
}
#endif
#endif /* MORPH_PROF_H */
