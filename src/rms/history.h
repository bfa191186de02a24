/*
 * The journal as a report: every job of a morphd journal becomes a
 * morph_report record (times relative to the first submission, the size
 * history as segments, resizes counted), for `morph report` and the tests
 * that check its numbers.
 */
#ifndef MORPH_RMS_HISTORY_H
#define MORPH_RMS_HISTORY_H

#include <stddef.h>
#include <stdio.h>

#include "morph/report.h"
#include "rms/journal.h"

/* The pool size the daemon recorded (meta "slots", in the backend's
 * units); 0 if unknown. */
int morph__history_units(morph__journal *j);

/* True for a journal written by the Slurm backend (meta "backend"): its
 * sizes are processes, but the report counts whole nodes. */
int morph__history_is_slurm(morph__journal *j);

/* The backend's unit: "nodes" for a journal of the Slurm backend (pool and
 * job sizes in whole nodes), else "slots". */
const char *morph__history_unit_name(morph__journal *j);

/* Adds one record per job to rep; *t0 gets the first submission time
 * (wall clock) that the records' times are relative to. Sizes are in
 * morph__history_unit_name's units: under Slurm a job's processes over its
 * processes per node (the journal's sizes are processes).
 * Errors: MORPH_EIO (journal, message in err), MORPH_EINVAL (a record the
 * report refused, or a Slurm job journaled before morphd recorded its
 * processes per node; message in err), MORPH_ENOMEM. */
int morph__history_report(morph__journal *j, morph_report *rep, double *t0, char *err,
                          size_t errsize);

/* Size over time of every job: to `human` (may be NULL) one line per job,
 * "ID NAME size@t size@t ..." (t in seconds from t0; the last size 0 is the
 * job's end), to `csv` (may be NULL) job,name,time,size rows.
 * Errors: MORPH_EIO. */
int morph__history_sizes(morph__journal *j, double t0, FILE *human, FILE *csv);

/* Every resize that failed, one line each to `out`: "ID NAME op from -> to
 * at t: ERROR_NAME: text" (t from t0); a note when there were none.
 * Errors: MORPH_EIO. */
int morph__history_failures(morph__journal *j, double t0, FILE *out);

#endif
