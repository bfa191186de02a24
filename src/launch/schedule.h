/*
 * Schedules of `morph run`: a list of resizes, each at an iteration of the
 * job ("4@it100") or at a time since the start ("2@t5.5"), optionally with
 * a forced mechanism ("3@it200:relaunch"). Parsing only; sending them is
 * dispatch.c's job.
 */
#ifndef MORPH_LAUNCH_SCHEDULE_H
#define MORPH_LAUNCH_SCHEDULE_H

#include <stddef.h>
#include <stdint.h>

/* Values of morph_mechanism (morph.h), which needs MPI; the tools do not. */
enum { MORPH__LAUNCH_MECH_AUTO = 0, MORPH__LAUNCH_MECH_LIVE = 1, MORPH__LAUNCH_MECH_RELAUNCH = 2 };

struct morph__launch_sched_entry {
  int size;          /* target number of processes */
  int by_time;       /* 1: at `at` seconds; 0: at iteration `iteration` */
  int64_t iteration;
  double at;
  int mechanism; /* MORPH__LAUNCH_MECH_*; -1: the run's default */
};

struct morph__launch_sched {
  struct morph__launch_sched_entry *e;
  int n, cap;
};

/* Parses one entry such as "4@it100", "2@t5.5" or "3@it7:live". On error
 * returns MORPH_EINVAL and err names the entry and what is wrong. */
int morph__launch_sched_parse_entry(const char *text, struct morph__launch_sched_entry *e,
                                    char *err, size_t errsize);

/* Appends the entries of a comma-separated list to *s. On error *s keeps the
 * entries before the bad one. Errors: MORPH_EINVAL, MORPH_ENOMEM. */
int morph__launch_sched_parse_list(struct morph__launch_sched *s, const char *list, char *err,
                                   size_t errsize);

/* Appends the entries of a file: one or more (comma-separated) per line,
 * '#' starts a comment. Errors name the file and line. Errors: MORPH_EIO
 * (cannot read), MORPH_EINVAL, MORPH_ENOMEM. */
int morph__launch_sched_parse_file(struct morph__launch_sched *s, const char *path, char *err,
                                   size_t errsize);

/* Checks every entry against the job's limits (max 0: none).
 * Errors: MORPH_EINVAL naming the first entry outside [min, max]. */
int morph__launch_sched_check(const struct morph__launch_sched *s, int min, int max, char *err,
                              size_t errsize);

/* Writes an entry back in the command-line syntax. */
void morph__launch_sched_format(const struct morph__launch_sched_entry *e, char *buf, size_t size);

/* Frees the entries (idempotent). */
void morph__launch_sched_free(struct morph__launch_sched *s);

/* Mechanism from its name (auto, live, relaunch); -1 if unknown. */
int morph__launch_mech_parse(const char *name);
const char *morph__launch_mech_name(int mechanism);

#endif
