/*
 * Schedules of `morph run`: a list of resizes, each at an iteration of the
 * job ("4@it100") or at a time since the start ("2@t5.5"), optionally with
 * a forced mechanism ("3@it200:relaunch") and the hosts involved: a grow
 * "onto" the joiners' hosts ("4@it100 onto node3"), a shrink "off" the
 * hosts whose processes leave ("2@it300 off node2:1+node3:1"), a move of
 * processes at the same size "off" one host "onto" another
 * ("move@it50 off node1 onto node3"). Parsing and checking only; sending
 * them is dispatch.c's job.
 */
#ifndef MORPH_LAUNCH_SCHEDULE_H
#define MORPH_LAUNCH_SCHEDULE_H

#include <stddef.h>
#include <stdint.h>

/* Values of morph_mechanism (morph.h), which needs MPI; the tools do not. */
enum { MORPH__LAUNCH_MECH_AUTO = 0, MORPH__LAUNCH_MECH_LIVE = 1, MORPH__LAUNCH_MECH_RELAUNCH = 2 };

#define MORPH__LAUNCH_SCHED_HOSTS 192 /* bytes of a host clause's list */

struct morph__launch_sched_entry {
  int size;          /* target number of processes; 0 for a move */
  int move;          /* 1: "move@...": processes go off `off` onto `onto` */
  int by_time;       /* 1: at `at` seconds; 0: at iteration `iteration` */
  int64_t iteration;
  double at;
  int mechanism; /* MORPH__LAUNCH_MECH_*; -1: the run's default */
  /* The host clauses as written, hosts joined by '+' ("node2:2+node3");
   * "" when absent. A single host without a count takes every process of
   * the change. */
  char onto[MORPH__LAUNCH_SCHED_HOSTS]; /* joiners' hosts */
  char off[MORPH__LAUNCH_SCHED_HOSTS];  /* hosts whose processes leave */
};

struct morph__launch_sched {
  struct morph__launch_sched_entry *e;
  int n, cap;
};

/* Parses one entry such as "4@it100", "2@t5.5", "3@it7:live",
 * "4@it9 onto node3" or "move@it9 off node1 onto node3". On error returns
 * MORPH_EINVAL and err names the entry and what is wrong. */
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

/* Checks the host clauses against the sizes, starting from `np`
 * processes and assuming every entry is applied: "onto" only on a grow or
 * a move, "off" only on a shrink or a move, counts that add up to the
 * change. Errors: MORPH_EINVAL naming the first bad entry. */
int morph__launch_sched_check_clauses(const struct morph__launch_sched *s, int np, char *err,
                                      size_t errsize);

/* Checks that every host the clauses name is one of the job's `n` hosts
 * (`hosts`, morph__host_same); `from` says where they come from, for the
 * message ("--hostfile hf"). Errors: MORPH_ENOENT naming the entry, the
 * host and the job's hosts. */
int morph__launch_sched_check_known(const struct morph__launch_sched *s, const char *const *hosts,
                                    int n, const char *from, char *err, size_t errsize);

/* The wire host list (proto/hosts.h) of a clause for a change of `count`
 * processes. Errors: MORPH_EINVAL (the clause does not name `count`
 * processes; buf holds "" then). An empty clause gives "". */
int morph__launch_sched_hosts(const char *clause, int count, char *buf, size_t size);

/* The RESIZE's host lists (proto/hosts.h) of an entry for a job of
 * `size` processes: `hosts` the joiners' (grow, move) or the leavers'
 * hosts (shrink), `from` the movers' hosts of a move, else "" (both of
 * `n` bytes). Errors: MORPH_EINVAL (a clause does not name as many
 * processes as change; both "" then if it is the first). */
int morph__launch_sched_wire(const struct morph__launch_sched_entry *e, int size, char *hosts,
                             char *from, size_t n);

/* Writes an entry back in the command-line syntax. */
void morph__launch_sched_format(const struct morph__launch_sched_entry *e, char *buf, size_t size);

/* Frees the entries (idempotent). */
void morph__launch_sched_free(struct morph__launch_sched *s);

/* Mechanism from its name (auto, live, relaunch); -1 if unknown. */
int morph__launch_mech_parse(const char *name);
const char *morph__launch_mech_name(int mechanism);

#endif
