/* Internal helpers of the workload library, shared by its files. */
#ifndef MORPH_WORKLOAD_INTERNAL_H
#define MORPH_WORKLOAD_INTERNAL_H

#include "morph/workload.h"

/* Formats the workload's message and returns err. */
int morph__wl_fail(morph_workload *wl, int err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Validates a job (limits, request, model); writes the field and reason. */
int morph__wjob_validate(const morph_wjob *job, char *why, size_t len);

/* Fills a job with an application's catalog defaults for a kind: limits of
 * Table 5, request of Table 6 (rigid: the rigid size; moldable: min-max),
 * sizes capped at max_size when > 0. */
int morph__wjob_from_app(morph_wjob *job, const char *app, morph_job_kind kind, int max_size);

/* Frees the strings a job owns. */
void morph__wjob_free(morph_wjob *job);

#endif
