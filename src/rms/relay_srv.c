/*
 * The job protocol as morphd serves it: one morph run relay per job. HELLO
 * names the job (first start or reattach after a restart of either side),
 * PROGRESS feeds the measures policies read, LIMITS changes the job's
 * limits, ACK closes a resize, BYE ends the job (mpirun has ended: its
 * slots are really free).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

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

/* A HELLO refused: the relay is told why, the log says who tried, and
 * the connection is closed once the answer is out. */
static void refuse(morph__daemon *d, int i, const char *text)
{
  const morph__client *c = &d->clients[i];
  send_error(d, i, text);
  morph__say(&d->log, 0, "refused a relay (uid %ld, %s): %s", (long)c->uid, c->peer, text);
  d->clients[i].dead = 1;
}

/* The job a HELLO names; under a resource manager that starts the jobs, a
 * new id is a job it started asking to be morphd's (claimed: *fresh). */
static morph__job *hello_job(morph__daemon *d, int i, const morph__msg *m, int *fresh,
                             char *text, size_t size)
{
  char *end;
  long long id = strtoll(m->job, &end, 10);
  int valid = *m->job && !*end;
  morph__job *job = valid ? morph__job_find(d, id) : NULL;
  *fresh = 0;
  if (!job && valid && !morph__backend_starts_jobs(d->be) &&
      morph__job_claim(d, id, m, d->clients[i].uid, text, size) == MORPH_OK)
    job = morph__job_find(d, id), *fresh = 1;
  if ((!job || job->state != MORPH__J_RUNNING) && !*text)
    snprintf(text, size, "unknown job id '%.64s' (or not running)", m->job);
  return job && job->state == MORPH__J_RUNNING ? job : NULL;
}

/* True if client k's peer has gone (its end of the connection is closed)
 * though the loop has not read that yet. */
static int gone(const morph__daemon *d, int k)
{
  char b;
  ssize_t n = recv(d->clients[k].fd, &b, 1, MSG_PEEK | MSG_DONTWAIT);
  return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR);
}

/* Why client i may not be the job's relay, or NULL: only the job's owner,
 * holding the job's secret, and only one relay at a time (a second HELLO
 * from elsewhere would lock the real morph run out). */
static const char *not_its_relay(const morph__daemon *d, int i, const morph__job *job,
                                 const morph__msg *m, char *text, size_t size)
{
  const morph__client *c = &d->clients[i];
  if (job->uid != c->uid)
    snprintf(text, size, "job %lld belongs to uid %ld, not to uid %ld", (long long)job->id,
             (long)job->uid, (long)c->uid);
  else if (job->secret[0] && !morph__job_secret_ok(job, m->secret))
    snprintf(text, size, "job %lld: wrong or missing job secret", (long long)job->id);
  else if (job->conn >= 0 && job->conn != i && !gone(d, job->conn))
    snprintf(text, size, "job %lld has a relay connected already", (long long)job->id);
  else
    return NULL;
  return text;
}

/* The relay is the job's: it speaks for it from now on. */
static void bind_relay(morph__daemon *d, int i, morph__job *job, const morph__msg *m)
{
  if (job->conn >= 0 && job->conn != i)
    morph__wire_close(d, job->conn); /* its peer has gone: see not_its_relay */
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
  /* A job of an older journal gets its secret now. */
  if (!job->secret[0] && morph__job_new_secret(job) == MORPH_OK)
    morph__job_save(d, job);
}

static void on_hello(morph__daemon *d, int i, const morph__msg *m)
{
  char text[320] = "";
  int fresh;
  morph__job *job = hello_job(d, i, m, &fresh, text, sizeof text);
  if (!job || (!fresh && not_its_relay(d, i, job, m, text, sizeof text))) {
    refuse(d, i, text);
    return;
  }
  int again = job->conn >= 0 || job->ready || job->nprogress > 0 || job->adopted;
  bind_relay(d, i, job, m);
  morph__msg w;
  morph__msg_init(&w, MORPH__MSG_WELCOME);
  snprintf(w.job, sizeof w.job, "%lld", (long long)job->id);
  snprintf(w.secret, sizeof w.secret, "%s", job->secret);
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
