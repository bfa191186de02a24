/*
 * What the harnesses share: the fuzzer's bytes as a C string, or as a file
 * that a parser taking a path can open (an anonymous memory file, reached
 * as /proc/self/fd/N, so nothing is left on disk).
 */
#ifndef MORPH_FUZZ_INPUT_H
#define MORPH_FUZZ_INPUT_H

#include <stddef.h>
#include <stdint.h>

/* A NUL-terminated copy of data (malloc'ed; NULL when out of memory). */
char *morph__fuzz_text(const uint8_t *data, size_t size);

/* Replaces the contents of this process's input file with data and writes
 * its path to path. Returns 0, or -1 if the file cannot be made. */
int morph__fuzz_file(const uint8_t *data, size_t size, char *path, size_t pathsize);

#endif
