/*
 * Where things are in a JSON text. jansson gives positions only for syntax
 * errors, so to name the line of a bad field this scanner finds the span of
 * each element of the top-level "jobs" array and the line of a key in it.
 */
#ifndef MORPH_WORKLOAD_JSONPOS_H
#define MORPH_WORKLOAD_JSONPOS_H

#include <stddef.h>

typedef struct morph__span {
  size_t begin, end; /* offsets of '{' and just past '}' */
  int line;          /* line of '{', from 1 */
} morph__span;

/* Finds the objects of the top-level "jobs" array. *spans is malloc'ed
 * (free it); returns their number, or -1 when out of memory. */
long morph__json_job_spans(const char *text, size_t len, morph__span **spans);

/* Line of the key `key` directly inside the object of span, or the span's
 * line when the key is not there. */
int morph__json_key_line(const char *text, const morph__span *span, const char *key);

#endif
