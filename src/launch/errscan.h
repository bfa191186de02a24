/*
 * mpirun's standard error, relayed to morph run's and read on the way for
 * the report of an MPI_Abort. Under --enable-recovery (monitor.c) Open MPI
 * 4.1's mpirun does not end a job one of whose processes called
 * MPI_Abort: errmgr_default_hnp.c skips its CALLED_ABORT case for a
 * recoverable job, and only the aborting process ends, while the others
 * often wait for it for good. mpirun still prints "MPI_ABORT was invoked
 * on rank N ... with errorcode E", which is what this looks for.
 */
#ifndef MORPH_LAUNCH_ERRSCAN_H
#define MORPH_LAUNCH_ERRSCAN_H

#include <pthread.h>
#include <stddef.h>

struct morph__launch_errscan {
  int rfd, wfd;       /* the pipe: mpirun writes wfd, the relay reads rfd */
  pthread_t thread;
  int running;
  volatile int stop;
  pthread_mutex_t lock;
  char line[512];     /* the line being read */
  size_t len;
  char before[256];   /* the last line that was not part of a report box */
  int rank;           /* "MPI_ABORT was invoked on rank N": N, else -1 */
  char found[512];    /* the abort as said to the user; "": none */
};

/* Opens the pipe and starts the relay thread. Errors: MORPH_EIO (no pipe
 * or thread; nothing is left open, and mpirun then writes to morph run's
 * own standard error as before). */
int morph__launch_errscan_open(struct morph__launch_errscan *s);

/* The descriptor mpirun's standard error goes to, -1 when not open. */
int morph__launch_errscan_fd(const struct morph__launch_errscan *s);

/* Forgets any abort seen (a new mpirun starts). */
void morph__launch_errscan_reset(struct morph__launch_errscan *s);

/* 1 and the abort's description in buf if one was seen since the last
 * reset, else 0. */
int morph__launch_errscan_abort(struct morph__launch_errscan *s, char *buf, size_t size);

/* Stops the relay (what is left in the pipe is relayed first, up to
 * 0.2 s) and closes the pipe. Safe on a closed or never opened scanner. */
void morph__launch_errscan_close(struct morph__launch_errscan *s);

/* The scan of one line, without the relay (unit tests): updates s->before,
 * s->rank and s->found as the thread does. */
void morph__launch_errscan_line(struct morph__launch_errscan *s, const char *line);

#endif
