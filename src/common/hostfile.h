/*
 * One line of a hostfile, as morphd's pool, morph run's host watcher and
 * its MPICH command line read it. Two forms are accepted because users
 * bring both: Open MPI's "node1 slots=2 max_slots=4" and MPICH hydra's
 * "node1:2". '#' starts a comment; blank lines are allowed.
 */
#ifndef MORPH_COMMON_HOSTFILE_H
#define MORPH_COMMON_HOSTFILE_H

#include <stddef.h>

#define MORPH__HOSTLINE_MAX_SLOTS 100000

struct morph__hostline {
  char host[64]; /* 1..63 bytes, NUL-terminated */
  int slots;     /* from "slots=N" or ":N"; 0 when the line gives none */
};

/* Parses `line` (not modified) into *out. Returns 1 for a host, 0 for a
 * blank or comment-only line, MORPH_EPARSE for a host name of 64 bytes or
 * more or a count that is not a number from 1 to MORPH__HOSTLINE_MAX_SLOTS
 * (err says which, without file or line: the caller adds them). A
 * "max_slots=" word is not a count. *out is undefined unless 1 is
 * returned. */
int morph__hostline_parse(const char *line, struct morph__hostline *out, char *err,
                          size_t errsize);

#endif /* MORPH_COMMON_HOSTFILE_H */
