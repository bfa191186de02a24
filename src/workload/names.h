/* Name index of a workload (names.c). */
#ifndef MORPH_WORKLOAD_NAMES_H
#define MORPH_WORKLOAD_NAMES_H

#include "morph/workload.h"

void morph__names_free(morph_workload *wl);
int morph__names_rebuild(morph_workload *wl);
/* Indexes job `job` (already in wl->jobs). */
int morph__names_add(morph_workload *wl, size_t job);
/* Index of the job, -1 if absent, -2 if there is no index. */
long morph__names_find(const morph_workload *wl, const char *name);

#endif
