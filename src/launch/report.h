/*
 * What a person and a script see of each reconfiguration: one line on
 * stderr ("morph run: job 3->5 live ok in 0.42 s (spawn 0.35, redist
 * 0.05)") and one CSV row in the --report file. Not the workload report
 * of src/report.
 */
#ifndef MORPH_LAUNCH_REPORT_H
#define MORPH_LAUNCH_REPORT_H

#include "launch.h"

/* Creates the --report file (if asked for) and writes its header.
 * Errors: MORPH_EIO, said on stderr; no file is open then. */
int morph__launch_report_open(struct morph__launch *r);

/* Reports the complete reconfiguration whose final ACK is *ack; t_settle:
 * seconds from the job's ACK to completion. */
void morph__launch_report_resize(struct morph__launch *r, const morph__msg *ack, double t_settle);

/* Closes the file (idempotent). */
void morph__launch_report_close(struct morph__launch *r);

#endif
