/*
 * The relaunch checkpoint folder, checked before the job starts: a folder
 * that is missing, not writable, or not the same folder on every host of
 * the job makes every relaunch fail late, when the job has already given
 * its data to the checkpoint writer. So it is refused at start.
 */
#ifndef MORPH_LAUNCH_CKPTDIR_H
#define MORPH_LAUNCH_CKPTDIR_H

#include "common/log.h"
#include "watch.h"

/* Checks the folder `dir` (NULL or "": nothing to check): a folder this
 * user can write, and, when the job runs on other hosts (w watches them),
 * one where a file written here is seen on each of them (asked through
 * the agent Open MPI uses, 15 s at most; a host that does not answer is
 * only warned about). Errors: MORPH_EINVAL, said on log with the folder
 * and why. */
int morph__launch_ckptdir_check(const char *dir, const struct morph__launch_watch *w,
                                morph__sayer *log);

#endif
