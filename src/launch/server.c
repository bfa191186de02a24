#include "server.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "decision.h"
#include "morph/error.h"
#include "relaunch.h"
#include "relay.h"
#include "resize.h"
#include "state.h"

/* --listen: TCP, so that rank 0 may run on another host; clients then
 * authenticate with MUNGE (proto/transport.h). */
static int open_tcp(struct morph__launch *r)
{
  int rc = morph__listener_open(&r->listener, r->opt->listen, 0);
  if (rc == MORPH_OK)
    rc = morph__listen_name(r->listener.fd, r->sock, sizeof r->sock);
  if (rc != MORPH_OK)
    morph__say(&r->log, 0, "cannot listen on %s: %s", r->opt->listen, morph_strerror(rc));
  return rc;
}

int morph__launch_server_open(struct morph__launch *r)
{
  if (r->opt->listen)
    return open_tcp(r);
  const char *tmp = getenv("TMPDIR");
  /* The pid in the name lets a later morph run remove the folder if this
   * one is killed with SIGKILL (session.h). */
  snprintf(r->dir, sizeof r->dir, "%s/morph-run-%ld-XXXXXX", tmp && *tmp ? tmp : "/tmp",
           (long)getpid());
  /* mkdtemp makes the folder 0700: nobody else can even reach the socket. */
  if (!mkdtemp(r->dir)) {
    morph__say(&r->log, 0, "cannot create a temporary folder %s: %s", r->dir, strerror(errno));
    r->dir[0] = '\0';
    return MORPH_EIO;
  }
  int n = snprintf(r->sock, sizeof r->sock, "%s/job.sock", r->dir);
  int rc = n > 0 && (size_t)n < sizeof r->sock ? morph__listener_open(&r->listener, r->sock, 0)
                                               : MORPH_EINVAL;
  if (rc != MORPH_OK)
    morph__say(&r->log, 0, "cannot listen on %s: %s", r->sock, morph_strerror(rc));
  return rc;
}

void morph__launch_server_close(struct morph__launch *r)
{
  morph__conn_close(&r->job);
  morph__listener_close(&r->listener);
  if (r->sock[0] && !morph__addr_is_tcp(r->sock))
    unlink(r->sock);
  if (r->dir[0])
    rmdir(r->dir);
  r->sock[0] = r->dir[0] = '\0';
}

int morph__launch_job_send(struct morph__launch *r, const morph__msg *m)
{
  morph__say(&r->log, 2, "-> job: %s", morph__msg_kind_name(m->kind));
  int rc = morph__send(&r->job, m);
  if (rc != MORPH_OK)
    morph__say(&r->log, 1, "cannot send %s to the job: %s", morph__msg_kind_name(m->kind),
               morph_strerror(rc));
  return rc;
}

static void send_error(struct morph__conn *c, const char *text)
{
  morph__msg m;
  morph__msg_init(&m, MORPH__MSG_ERROR);
  snprintf(m.text, sizeof m.text, "%s", text);
  morph__send(c, &m);
}

/* Only the job's own user may connect (the socket's folder is private;
 * over TCP its MUNGE credential must be ours), and only rank 0 of the
 * job talks to the launcher: a second connection is refused. */
static void admit(struct morph__launch *r, morph__conn *c)
{
  if (r->job.fd >= 0) {
    send_error(c, "a job is already connected to this morph run");
    morph__conn_close(c);
    morph__say(&r->log, 1, "refused a second connection");
    return;
  }
  r->job = *c;
  r->job_hello = 0;
  morph__say(&r->log, 2, "job connected");
}

void morph__launch_server_accept(struct morph__launch *r)
{
  morph__conn c;
  int rc;
  while ((rc = morph__listener_take(&r->listener, &c)) != 0) {
    if (rc == 1)
      admit(r, &c);
    else
      morph__say(&r->log, 1, "refused a connection from %s: %s", c.peer, c.why);
  }
}

static void on_hello(struct morph__launch *r, const morph__msg *m)
{
  if (strcmp(m->job, r->opt->job_id) != 0 && m->job[0])
    morph__say(&r->log, 1, "job says it is '%s', known here as '%s'", m->job, r->opt->job_id);
  r->hello = *m;
  r->job_hello = 1;
  r->connected = 1;
  /* Now that its processes run, the job's session folders name it. */
  morph__launch_session_note_jobs(morph__launch_mpi_session_base(&r->opt->cmd), &r->shm);
  morph__say(&r->log, 1, "job started: %d processes, pid %ld, %s, limits [%d, %d]", m->size, m->pid,
             m->mpi, m->min, m->max);
  morph__msg w;
  morph__msg_init(&w, MORPH__MSG_WELCOME);
  snprintf(w.job, sizeof w.job, "%s", r->opt->job_id);
  morph__launch_job_send(r, &w);
  if (r->phase == MORPH__LAUNCH_PH_RESTART || r->phase == MORPH__LAUNCH_PH_ROLLBACK)
    morph__launch_relaunch_hello(r);
  else if (m->size > 0)
    r->size = m->size;
  morph__msg up = *m;
  morph__launch_relay_stamp(r, &up);
  morph__launch_relay_send(r, &up, 0);
}

static void on_ack(struct morph__launch *r, const morph__msg *m)
{
  if (r->early.active && !r->early_acked && m->id == r->early.id) {
    r->early_ack = *m, r->early_acked = 1; /* after the current one is done */
    return;
  }
  if (!r->dec.active || r->dec.acked > 0 || m->id != r->dec.id) {
    morph__say(&r->log, 0, "ignored an ACK for decision %d (expected %d)", m->id,
               r->dec.active ? r->dec.id : -1);
    return;
  }
  morph__launch_resize_ack(r, m);
}

/* New limits are kept in the HELLO that a reattach to morphd sends again. */
static void on_limits(struct morph__launch *r, const morph__msg *m)
{
  r->hello.min = m->min, r->hello.max = m->max, r->hello.pref = m->pref;
  morph__say(&r->log, 1, "job limits now [%d, %d], preferred %d", m->min, m->max, m->pref);
  morph__launch_relay_send(r, m, 1);
}

static void on_bye(struct morph__launch *r, const morph__msg *m)
{
  r->job_bye = 1;
  /* An exit status is 0-255; anything else still means failure. */
  r->bye_status = m->exit_status >= 0 && m->exit_status <= 255 ? m->exit_status : 1;
  snprintf(r->bye_text, sizeof r->bye_text, "%s", m->text);
  morph__say(&r->log, 1, "job says goodbye: status %d %s", m->exit_status, m->text);
  if (r->phase == MORPH__LAUNCH_PH_RUNNING) {
    morph__launch_phase_set(r, MORPH__LAUNCH_PH_ENDING, r->opt->exit_timeout);
  } else if (r->phase == MORPH__LAUNCH_PH_RELAUNCH_EXIT && r->spawn_failed) {
    /* The checkpoint is acknowledged and, after a failed spawn, this mpirun
     * will not end by itself (relaunch.c): waiting longer for it only
     * delays the relaunch (issue 23: at most twice a normal one). */
    double now = morph__launch_clock(r);
    if (r->phase_deadline > now)
      r->phase_deadline = now;
  }
}

static void on_message(struct morph__launch *r, const morph__msg *m)
{
  morph__say(&r->log, 2, "<- job: %s", morph__msg_kind_name(m->kind));
  switch (m->kind) {
  case MORPH__MSG_HELLO: on_hello(r, m); return;
  case MORPH__MSG_PROGRESS: morph__launch_relay_send(r, m, 0); return;
  case MORPH__MSG_LIMITS: on_limits(r, m); return;
  case MORPH__MSG_ACK: on_ack(r, m); return;
  case MORPH__MSG_BYE: on_bye(r, m); return;
  case MORPH__MSG_ERROR: morph__say(&r->log, 0, "the job reports an error: %s", m->text); return;
  default: send_error(&r->job, "morph run does not take this message from a job");
  }
}

/* The job's connection is gone: the job is ending. */
static void job_drop(struct morph__launch *r, const char *why)
{
  morph__conn_close(&r->job);
  r->job_hello = 0;
  if (r->dec.active && r->dec.acked == 0)
    morph__launch_decision_lost(r, why);
  if (r->early.active && !r->early_acked) {
    r->early.active = 0, r->next_sched--; /* counted as not applied */
  }
  if (r->phase != MORPH__LAUNCH_PH_RUNNING)
    return;
  if (!r->job_bye)
    morph__say(&r->log, 0, "the job's connection dropped without BYE (%s); waiting for mpirun",
               why);
  morph__launch_phase_set(r, MORPH__LAUNCH_PH_ENDING, r->opt->exit_timeout);
}

void morph__launch_server_read(struct morph__launch *r)
{
  for (;;) {
    morph__msg m;
    char err[256] = "";
    int rc = morph__recv(&r->job, &m, 0, err, sizeof err);
    if (rc == 0)
      return;
    if (rc == 1) {
      on_message(r, &m);
      if (r->job.fd < 0)
        return;
      continue;
    }
    /* A bad line is skipped; a full buffer without a line end can never
     * become a message, so that connection is given up. */
    if (rc == MORPH_EPROTO && r->job.len < sizeof r->job.buf) {
      morph__say(&r->log, 0, "bad message from the job: %s", err);
      send_error(&r->job, err);
      continue;
    }
    job_drop(r, "connection closed");
    return;
  }
}
