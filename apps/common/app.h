/*
 * app.h - what the example applications share: command-line options, the
 * progress line printed when the job changes size, and the final check.
 *
 * Every example ends by comparing its result with the same computation run
 * statically and prints one line, "CHECK PASSED ..." or "CHECK FAILED ...",
 * on rank 0. Helpers here never hide the malleability: the lines an
 * application needs to become malleable stay in the application, marked
 * with a trailing morph comment.
 */
#ifndef APP_H
#define APP_H

#include <stddef.h>
#include <stdint.h>

#include "morph.h"

/* Options every example understands. Set the defaults, then app_parse(). */
typedef struct app_args {
  int64_t size;    /* --size N: problem size, meaning given by each app */
  int iters;       /* --iters N: iterations (or rounds) */
  int check;       /* --check (default) / --no-check */
  double delay_ms; /* --delay-ms X: sleep X ms per iteration, so that an
                      iteration lasts long enough for demos and benchmarks */
  double work_ms;   /* --work-ms X: emulated parallel work, X / P ms per
                       iteration on each of the P processes (strong scaling) */
  double serial_ms; /* --serial-ms Y: emulated serial work, Y ms per
                       iteration whatever P (Amdahl's serial part) */
  int hosts;        /* --hosts: app_hosts() prints where each rank runs */
} app_args;

/* An option of one application only: --name VALUE stored in *ptr. */
typedef struct app_option {
  const char *name;
  char kind; /* 'i' int, 'l' int64_t, 'd' double */
  void *ptr;
  const char *help;
} app_option;

/*
 * Parses argv into *a and the application's own options `extra` (an array
 * ended by an entry with name NULL; NULL for none). Call after MPI_Init;
 * only world rank 0 prints help or errors. Returns 0 to go on, 1 after
 * --help (exit with 0), -1 on a bad option (exit with 2).
 */
int app_parse(int argc, char **argv, const char *about, app_args *a, const app_option *extra);

/* Sleeps for --delay-ms (no-op when 0). */
void app_delay(const app_args *a);

/* Sleeps --work-ms / P ms on each process, P the size of comm, and
 * --serial-ms on the last one while the others wait in a barrier (no-op
 * when both are 0). Called once per iteration, it makes the iteration's
 * time follow Amdahl's law in the process count, as compute-bound work
 * would on enough cores: sleeping processes share two oversubscribed cores
 * without slowing each other, so a job that grows really runs faster. The
 * wait for the serial part is MPI time, so libmorph's MPI-to-loop ratio
 * (MTCT) is Y / (Y + X / P) on rank 0: it rises as the job grows. */
void app_work(const app_args *a, MPI_Comm comm);

/* Aborts the job with morph's message if rc is an error. Examples stop at
 * the first failure; a production code would decide per call. */
void app_try(const morph_ctx *m, int rc, const char *what);

/* Prints "it 120: 2 -> 4 procs (live, 0.41 s)" on rank 0 when the last
 * morph_point() completed a reconfiguration not yet shown, or "it 120:
 * restarted at 4 procs (relaunch)" after a relaunch; *seen keeps the
 * sequence number of the last one shown (start with 0). */
void app_progress(const morph_ctx *m, int *seen);

/* With --hosts, each rank prints "it 120: rank 2 of 4 on node1" when the
 * job's size differs from *size_seen (start with 0: at the first call),
 * so the job's output shows where its processes run after every resize. */
void app_hosts(const app_args *a, const morph_ctx *m, int *size_seen);

/* Element counts and displacements of a block distribution of n elements
 * over p processes (the rule of morph_data_block). */
void app_block_counts(int64_t n, int p, int *counts, int *displs);

/* First element and length of rank r's block of n elements over p, and
 * the rank that owns element i. */
int64_t app_block_first(int64_t n, int p, int r);
int64_t app_block_len(int64_t n, int p, int r);
int app_block_owner(int64_t n, int p, int64_t i);

/* Gathers the local parts of a distributed array, in rank order, on rank 0
 * of comm. Returns a malloc'ed array of *total elements on rank 0, NULL on
 * the other ranks. Aborts if memory runs out. */
void *app_gather(const void *local, int64_t count, MPI_Datatype type, MPI_Comm comm,
                 int64_t *total);

/* ||a - b||_2 / ||b||_2 (0 when both are zero). */
double app_rel_diff(const double *a, const double *b, int64_t n);

/* Index of the first of n elements of `size` bytes where a and b differ
 * bit for bit, or -1 if they are equal: the bitwise checks. */
int64_t app_first_difference(const void *a, const void *b, int64_t n, size_t size);

/*
 * Makes rank 0's verdict everybody's: rank 0 prints "CHECK PASSED <text>"
 * or "CHECK FAILED <text>" and broadcasts `ok`. Returns the verdict on every
 * rank. Collective over comm.
 */
int app_verdict(MPI_Comm comm, int ok, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Closes morph (which finalizes MPI) and returns main's exit status:
 * non-zero if morph failed or the check did not pass. */
int app_finish(morph_ctx *m, int ok);

/*
 * The reconfiguration point of an example's loop (overlap.c): morph_point
 * when limit is 0; otherwise a resize opens a window with
 * morph_begin_overlap (the data declared constant moves in the
 * background), the loop keeps computing at the old size while
 * morph_progress moves it, and the window commits once the transfers are
 * done everywhere or `limit` iterations have run in it. `open` says a
 * window is open (the loop still runs at the old size). Returns what
 * morph_point / morph_commit return (MORPH_EABORTED, a rolled-back resize,
 * as MORPH_OK: it is in the report); *st is the caller's status after it.
 */
typedef struct app_point_state {
  int limit, open, k;
} app_point_state;
int app_point(morph_ctx *m, app_point_state *p, morph_status *st);
/* Commits a window still open when the loop ends (else only sets *st). */
int app_point_close(morph_ctx *m, app_point_state *p, morph_status *st);

/*
 * What a resize cost the loop, printed by rank 0 after each resize:
 *   RESIZE M->N lost_s=.. window_s=.. overlapped=K iter_s=.. prepare_s=..
 *     redist_s=.. commit_s=..
 * lost = window - overlapped * iter, with window the time from the start
 * of the iteration that opened the window to the end of the commit and
 * iter the median of the 8 iterations before it; prepare, redist and
 * commit the phases of morph_last_report (redist: only what the loop
 * waited for). app_loss_tick is called after each iteration with its start
 * time and whether a window is open at its end.
 */
typedef struct app_loss_clock {
  double last[8];  /* durations of the last iterations outside windows */
  int n;
  double start;    /* start of the iteration that opened the window (0: none open) */
  int overlapped;  /* iterations computed inside it */
  int seq;         /* last reconfiguration reported */
} app_loss_clock;
void app_loss_tick(app_loss_clock *c, const morph_ctx *m, double t_start, int open);

#endif /* APP_H */
