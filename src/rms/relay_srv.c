/*
 * The job protocol as morphd serves it: one morph run relay per job. HELLO
 * names the job (first start or reattach after a restart of either side),
 * PROGRESS feeds the measures policies read, LIMITS changes the job's
 * limits, ACK closes a resize, BYE ends the job (mpirun has ended: its
 * slots are really free).
 */
#include <stdlib.h>
#include <string.h>

#include "morph/error.h"
#include "rms/morphd.h"

static void send_error(morph__daemon *d, int i, const char *text)
{
  morph__msg e;
  morph__msg_init(&e, MORPH__MSG_ERROR);
  snprintf(e.text, sizeof e.text, "%s", text);
  morph__wire_msg(d, i, &e);
}

static morph__job *job_of(morph__daemon *d, int i)
{
  morph__job *job = d->clients[i].job ? morph__job_find(d, d->clients[i].job) : NULL;
  return job && job->conn == i ? job : NULL;
}

static void on_hello(morph__daemon *d, int i, const morph__msg *m)
{
  char *end;
  long long id = strtoll(m->job, &end, 10);
  morph__job *job = *m->job && !*end ? morph__job_find(d, id) : NULL;
  char text[320] = "";
  /* Under a resource manager that starts the jobs, a new id is a job it
   * started asking to be morphd's. */
  if (!job && *m->job && !*end && !morph__backend_starts_jobs(d->be) &&
      morph__job_claim(d, id, m, text, sizeof text) == MORPH_OK)
    job = morph__job_find(d, id);
  if (!job || job->state != MORPH__J_RUNNING) {
    if (!*text)
      snprintf(text, sizeof text, "unknown job id '%s' (or not running)", m->job);
    send_error(d, i, text);
    morph__say(&d->log, 0, "refused a relay: %s", text);
    return;
  }
  int again = job->conn >= 0 || job->ready || job->nprogress > 0 || job->adopted;
  if (job->conn >= 0 && job->conn != i)
    morph__wire_close(d, job->conn); /* a stale connection of the same job */
  job->conn = i;
  d->clients[i].job = job->id;
  if (m->mechanisms && !job->ready) {
    job->ready = 1;
    d->dirty = 1; /* it may be resized from now on */
  }
  if (m->mechanisms)
    job->mechanisms = m->mechanisms;
  job->shared_checkpoints = m->checkpoint[0] != '\0';
  if (m->pid > 0 && !job->pid)
    job->pid = (pid_t)m->pid;
  morph__msg w;
  morph__msg_init(&w, MORPH__MSG_WELCOME);
  snprintf(w.job, sizeof w.job, "%lld", (long long)job->id);
  morph__wire_msg(d, i, &w);
  morph__say(&d->log, 1, "job %lld %s (size %d, mechanisms %#x, checkpoints in %s)",
             (long long)job->id, again ? "reattached" : "connected", m->size, m->mechanisms,
             m->checkpoint[0] ? m->checkpoint : "each host's own folder");
  if (again && job->adopted)
    morph__journal_event(d->journal, morph__wall(), job->id, "reattach", "size %d", m->size);
}

/* MPI time / loop time (paper 002 3.3.4): the trend is the last value, the
 * average a running mean; unknown (-1) until the job measures MPI time. */
static void on_progress(morph__job *job, const morph__msg *m)
{
  job->iteration = m->iteration;
  job->iter_time = m->iter_time;
  job->mpi_time = m->mpi_time;
  if (m->iter_time <= 0 || m->mpi_time <= 0)
    return;
  double r = m->mpi_time / m->iter_time;
  job->nprogress++;
  job->mtct_trend = r;
  job->mtct_avg = job->mtct_avg < 0 ? r : job->mtct_avg + (r - job->mtct_avg) / job->nprogress;
}

static void on_limits(morph__daemon *d, morph__job *job, const morph__msg *m)
{
  if (!morph_job_kind_malleable(job->kind) || m->min < 1 || m->min > m->max || m->pref < m->min ||
      m->pref > m->max)
    return;
  job->min = m->min, job->max = m->max, job->pref = m->pref;
  morph__journal_event(d->journal, morph__wall(), job->id, "limits", "min %d max %d pref %d",
                       m->min, m->max, m->pref);
  morph__job_save(d, job);
  d->dirty = 1;
}

/* The job's own end. One ended by a signal may have been ended by the
 * resource manager (a time limit: Slurm signals the batch script, whose
 * morph run says BYE before morphd sees Slurm's TIMEOUT): the record then
 * names the resource manager's cause. */
static void on_bye(morph__daemon *d, morph__job *job, const morph__msg *m)
{
  char rm[160], text[sizeof m->text + sizeof rm + 2];
  int cancelled;
  const char *t = m->text[0] ? m->text : NULL;
  if (m->exit_status > 128 &&
      morph__backend_ended_by(d->be, job, rm, sizeof rm, &cancelled) == MORPH_OK) {
    snprintf(text, sizeof text, "%s; %s", t ? t : "ended", rm);
    t = text;
    job->cancel |= cancelled;
  }
  morph__job_end(d, job, m->exit_status, t);
}

void morph__relay_message(morph__daemon *d, int i, const morph__msg *m)
{
  if (m->kind == MORPH__MSG_HELLO) {
    on_hello(d, i, m);
    return;
  }
  morph__job *job = job_of(d, i);
  if (!job) {
    send_error(d, i, "say HELLO with your job id first");
    return;
  }
  switch (m->kind) {
  case MORPH__MSG_PROGRESS: on_progress(job, m); break;
  case MORPH__MSG_LIMITS: on_limits(d, job, m); break;
  case MORPH__MSG_ACK: morph__resize_ack(d, job, m); break;
  case MORPH__MSG_BYE: on_bye(d, job, m); break;
  case MORPH__MSG_ERROR: morph__say(&d->log, 0, "job %lld reports: %s", (long long)job->id, m->text); break;
  default: send_error(d, i, "morphd does not take this message from a job");
  }
}

void morph__relay_lost(morph__daemon *d, int i)
{
  morph__job *job = job_of(d, i);
  if (!job)
    return;
  job->conn = -1;
  if (job->state == MORPH__J_RUNNING)
    morph__say(&d->log, 1, "job %lld: relay connection closed; the job keeps running",
                (long long)job->id);
}
