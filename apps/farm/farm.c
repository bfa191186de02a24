/*
 * farm - master-worker task farm (Elastic MPI thesis, section 4.4),
 * malleable with the native morph API.
 *
 * Rank 0 is the master: it hands out tasks one at a time to whichever
 * worker answers first and stores the results. Work proceeds in rounds of
 * --per-round tasks; between two rounds every process calls morph_point(),
 * where workers come and go (the thesis's master interrupts the work,
 * collects the active workers' results and adapts; a round end is that
 * moment). The master's state, the next task and the results, is
 * registered as replicated data: morph copies rank 0's version to joiners
 * and through a relaunch; the workers' copies are never read. On one
 * process the master works alone.
 *
 * Each result depends only on its task number, so the results are bitwise
 * equal to a serial run, which rank 0 repeats at the end.
 *
 * Lines that exist only for malleability end with a morph comment.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"

enum { TAG_WORK = 1, TAG_DONE, TAG_RESULT };

/* The work of task t: a partial Fourier-like sum, deterministic in t. */
static double task(int64_t t) {
  double s = 0;
  for (int k = 1; k <= 2000; k++)
    s += sin(0.001 * (double)(t * k)) / k;
  return s;
}

static void send_task(MPI_Comm comm, int worker, int64_t t, int64_t end) {
  MPI_Send(&t, 1, MPI_INT64_T, worker, t < end ? TAG_WORK : TAG_DONE, comm);
}

/* Master: tasks [first, end) to the workers, one at a time; the round ends
 * when every worker has been told it is done. */
static void master(MPI_Comm comm, double *results, int64_t first, int64_t end, const app_args *a) {
  int np;
  MPI_Comm_size(comm, &np);
  int64_t next = first;
  for (; np == 1 && next < end; next++, app_delay(a))
    results[next] = task(next);
  int active = 0;
  for (int w = 1; w < np; w++, next += next < end) {
    active += next < end;
    send_task(comm, w, next, end);
  }
  while (active > 0) {
    double msg[2];
    MPI_Status s;
    MPI_Recv(msg, 2, MPI_DOUBLE, MPI_ANY_SOURCE, TAG_RESULT, comm, &s);
    results[(int64_t)msg[0]] = msg[1];
    active -= next >= end;
    send_task(comm, s.MPI_SOURCE, next, end);
    next += next < end;
  }
}

/* Worker: computes tasks until the master says the round is done. */
static void worker(MPI_Comm comm, const app_args *a) {
  for (;;) {
    int64_t t;
    MPI_Status s;
    MPI_Recv(&t, 1, MPI_INT64_T, 0, MPI_ANY_TAG, comm, &s);
    if (s.MPI_TAG == TAG_DONE)
      return;
    double msg[2] = {(double)t, task(t)};
    app_delay(a);
    MPI_Send(msg, 2, MPI_DOUBLE, 0, TAG_RESULT, comm);
  }
}

/* Rank 0 recomputes every task and compares bitwise. */
static int check(MPI_Comm comm, const app_args *a, const double *results) {
  int rank, np;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &np);
  int64_t bad = -1;
  double sum = 0;
  for (int64_t t = a->size - 1; rank == 0 && t >= 0; t--) {
    double r = task(t);
    if (memcmp(&r, &results[t], sizeof r) != 0)
      bad = t;
  }
  for (int64_t t = 0; t < a->size; t++)
    sum += results[t];
  if (bad >= 0)
    return app_verdict(comm, 0, "farm tasks=%lld procs=%d: task %lld differs from the serial run",
                       (long long)a->size, np, (long long)bad);
  return app_verdict(comm, 1, "farm tasks=%lld procs=%d: bitwise equal to the serial run "
                     "(sum %.17g)", (long long)a->size, np, sum);
}

int main(int argc, char **argv) {
  int thread_level; /* MULTIPLE gives morph's spawns a time limit */    /* morph */
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &thread_level);  /* morph */
  app_args a = {.size = 400, .iters = 0, .check = 1};
  int64_t per_round = 20;
  const app_option extra[] = {
      {"per-round", 'l', &per_round, "tasks per round, between two morph points (20)"}, {0}};
  int rc = app_parse(argc, argv, "Master-worker task farm (native morph API); --size is the "
                     "number of tasks, --delay-ms applies per task, --work-ms and --serial-ms per round, "
                     "--iters is unused.", &a, extra);
  if (rc != 0 || a.size < 1 || a.size > 1 << 30 || per_round < 1) {
    MPI_Finalize();
    return rc > 0 ? 0 : 2;
  }
  double *results = calloc((size_t)a.size, sizeof(double));
  if (!results)
    MPI_Abort(MPI_COMM_WORLD, 2);
  morph_ctx *m;                                                       /* morph */
  app_try(NULL, morph_open(MPI_COMM_WORLD, NULL, &m), "morph_open");  /* morph */
  int64_t next = 0;                                                   /* morph */
  int seen = 0, size_seen = 0;                                        /* morph */
  app_try(m, morph_data_replicated(m, "next", &next, 1, MPI_INT64_T), "next"); /* morph */
  app_try(m, morph_data_replicated(m, "results", results, (int)a.size, MPI_DOUBLE), "results"); /* morph */
  while (next < a.size) {                                             /* morph */
    morph_status st;                                                  /* morph */
    app_try(m, morph_point(m, &st), "morph_point");                   /* morph */
    if (st == MORPH_LEAVING)                                          /* morph */
      return app_finish(m, 1);                                        /* morph */
    app_progress(m, &seen);                                           /* morph */
    app_hosts(&a, m, &size_seen);
    int64_t end = next + per_round < a.size ? next + per_round : a.size; /* morph */
    if (morph_rank(m) == 0)
      master(morph_comm(m), results, next, end, &a);
    else
      worker(morph_comm(m), &a);
    app_work(&a, morph_comm(m)); /* per round */
    next = end;                                                       /* morph */
  }                                                                   /* morph */
  int ok = !a.check || check(morph_comm(m), &a, results);
  free(results);
  return app_finish(m, ok);
}
