/*
 * The relay to morphd (--server). morph run is morphd's client for one job:
 * it forwards the job's HELLO, PROGRESS and LIMITS as they come, its ACKs
 * once a reconfiguration is complete (decision.c) and one BYE when mpirun has
 * ended for good; it takes RESIZEs from morphd and queues them for the job.
 *
 * morphd may go away (restart, crash): the job keeps running at its size,
 * morph run tries to reconnect every RETRY seconds, and on success says
 * HELLO again with the same job id, its last ACK again (one sent to a
 * morphd killed before it read it was lost; morphd ignores an ACK of a
 * resize it has closed), then the ACKs and BYE that could not be sent
 * meanwhile. PROGRESS is not kept: it is stale by then.
 */
#include "relay.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "morph/error.h"
#include "state.h"

#define RETRY 2.0 /* seconds between two attempts to reach morphd */

void morph__launch_relay_stamp(const struct morph__launch *r, morph__msg *m)
{
  const char *ck = getenv("MORPH_CHECKPOINT_DIR"); /* export_env has set it by now */
  snprintf(m->job, sizeof m->job, "%s", r->opt->job_id);
  snprintf(m->checkpoint, sizeof m->checkpoint, "%s", ck ? ck : "");
  snprintf(m->secret, sizeof m->secret, "%s", r->relay.secret);
}

/* HELLO for morphd: the job's own if it has said one, with the size it has
 * now; else what morph run knows (mechanisms 0: not yet malleable). */
static void make_hello(struct morph__launch *r, morph__msg *m)
{
  if (r->job_hello) {
    *m = r->hello;
  } else {
    morph__msg_init(m, MORPH__MSG_HELLO);
    m->pid = (long)getpid();
    m->min = r->opt->min ? r->opt->min : 1;
    m->max = r->opt->max;
    m->pref = r->opt->pref;
    snprintf(m->mpi, sizeof m->mpi, "%s", morph__launch_mpi_name(r->opt->cmd.mpi));
  }
  m->size = r->size;
  morph__launch_relay_stamp(r, m);
}

static void lost(struct morph__launch *r, const char *why)
{
  morph__conn_close(&r->relay.conn);
  r->relay.next_try = morph__launch_clock(r) + RETRY;
  morph__say(&r->log, 0, "lost morphd (%s); the job keeps running with %d processes; reconnecting",
             why, r->size);
}

static void keep(struct morph__launch *r, const morph__msg *m)
{
  struct morph__launch_relay *y = &r->relay;
  if (y->n_backlog == (int)(sizeof y->backlog / sizeof y->backlog[0])) {
    memmove(y->backlog, y->backlog + 1, (size_t)(y->n_backlog - 1) * sizeof *y->backlog);
    y->n_backlog--;
  }
  y->backlog[y->n_backlog++] = *m;
}

/* Sends the HELLO, the last ACK again (morphd ignores one it has had), then
 * the backlog; on failure what is left stays. */
static int greet(struct morph__launch *r)
{
  struct morph__launch_relay *y = &r->relay;
  morph__msg h;
  make_hello(r, &h);
  if (morph__send(&y->conn, &h) != MORPH_OK)
    return MORPH_ECONN;
  if (y->last_ack.kind == MORPH__MSG_ACK && morph__send(&y->conn, &y->last_ack) != MORPH_OK)
    return MORPH_ECONN;
  int sent = 0;
  for (; sent < y->n_backlog && morph__send(&y->conn, &y->backlog[sent]) == MORPH_OK; sent++)
    if (y->backlog[sent].kind == MORPH__MSG_ACK && y->backlog[sent].id > 0)
      y->last_ack = y->backlog[sent];
  memmove(y->backlog, y->backlog + sent, (size_t)(y->n_backlog - sent) * sizeof *y->backlog);
  y->n_backlog -= sent;
  return y->n_backlog ? MORPH_ECONN : MORPH_OK;
}

static int try_connect(struct morph__launch *r, double timeout)
{
  struct morph__launch_relay *y = &r->relay;
  y->next_try = morph__launch_clock(r) + RETRY;
  if (morph__connect(r->opt->server, timeout, &y->conn) != MORPH_OK) {
    y->conn.fd = -1;
    return MORPH_ECONN;
  }
  if (greet(r) != MORPH_OK) {
    morph__conn_close(&y->conn);
    return MORPH_ECONN;
  }
  return MORPH_OK;
}

void morph__launch_relay_init(struct morph__launch *r)
{
  r->relay.conn.fd = -1;
  morph__msg_init(&r->relay.last_ack, MORPH__MSG_ERROR);
  /* The secret morphd gave at start is for morphd alone: the job's
   * processes do not inherit it. */
  const char *secret = getenv("MORPH_JOB_SECRET");
  snprintf(r->relay.secret, sizeof r->relay.secret, "%s", secret ? secret : "");
  unsetenv("MORPH_JOB_SECRET");
  if (!r->opt->server)
    return;
  if (try_connect(r, 1.0) == MORPH_OK)
    morph__say(&r->log, 1, "connected to morphd at %s as job %s", r->opt->server, r->opt->job_id);
  else
    morph__say(&r->log, 0, "cannot reach morphd at %s; the job runs anyway, retrying every %g s",
               r->opt->server, RETRY);
}

void morph__launch_relay_tick(struct morph__launch *r)
{
  if (!r->opt->server || r->relay.conn.fd >= 0 || morph__launch_clock(r) < r->relay.next_try)
    return;
  if (try_connect(r, 0) == MORPH_OK)
    morph__say(&r->log, 0, "reattached to morphd at %s as job %s", r->opt->server, r->opt->job_id);
}

void morph__launch_relay_send(struct morph__launch *r, const morph__msg *m, int keep_it)
{
  if (!r->opt->server)
    return;
  if (r->relay.conn.fd >= 0 && morph__send(&r->relay.conn, m) == MORPH_OK) {
    if (m->kind == MORPH__MSG_ACK && m->id > 0)
      r->relay.last_ack = *m;
    return;
  }
  if (r->relay.conn.fd >= 0)
    lost(r, "cannot send");
  if (keep_it)
    keep(r, m);
}

/* A RESIZE from morphd waits in a queue until the job can take it. */
static void on_resize(struct morph__launch *r, const morph__msg *m)
{
  struct morph__launch_relay *y = &r->relay;
  if (y->n_queue < (int)(sizeof y->queue / sizeof y->queue[0])) {
    y->queue[y->n_queue++] = *m;
    return;
  }
  morph__msg a;
  morph__msg_init(&a, MORPH__MSG_ACK);
  a.id = m->id, a.outcome = MORPH_EBUSY, a.old_size = a.new_size = r->size;
  snprintf(a.text, sizeof a.text, "too many decisions waiting; this one is dropped");
  morph__launch_relay_send(r, &a, 1);
}

static void on_message(struct morph__launch *r, const morph__msg *m)
{
  morph__say(&r->log, 2, "<- morphd: %s", morph__msg_kind_name(m->kind));
  if (m->kind == MORPH__MSG_RESIZE)
    on_resize(r, m);
  else if (m->kind == MORPH__MSG_ERROR)
    morph__say(&r->log, 0, "morphd reports an error: %s", m->text);
  else if (m->kind == MORPH__MSG_WELCOME && m->secret[0])
    snprintf(r->relay.secret, sizeof r->relay.secret, "%s", m->secret);
  else if (m->kind != MORPH__MSG_WELCOME)
    morph__say(&r->log, 1, "ignored a %s message from morphd", morph__msg_kind_name(m->kind));
}

void morph__launch_relay_read(struct morph__launch *r)
{
  for (;;) {
    morph__msg m;
    char err[256] = "";
    int rc = morph__recv(&r->relay.conn, &m, 0, err, sizeof err);
    if (rc == 0)
      return;
    if (rc == 1)
      on_message(r, &m);
    else if (rc == MORPH_EPROTO && r->relay.conn.len < sizeof r->relay.conn.buf)
      morph__say(&r->log, 0, "bad message from morphd: %s", err);
    else {
      lost(r, "connection closed");
      return;
    }
  }
}

int morph__launch_relay_pop(struct morph__launch *r, morph__msg *resize)
{
  struct morph__launch_relay *y = &r->relay;
  if (y->n_queue == 0)
    return 0;
  *resize = y->queue[0];
  memmove(y->queue, y->queue + 1, (size_t)(y->n_queue - 1) * sizeof *y->queue);
  y->n_queue--;
  return 1;
}

void morph__launch_relay_bye(struct morph__launch *r)
{
  if (!r->opt->server)
    return;
  morph__msg b;
  morph__msg_init(&b, MORPH__MSG_BYE);
  b.exit_status = r->exit_code;
  snprintf(b.text, sizeof b.text, "%s", r->bye_text[0] ? r->bye_text : "mpirun ended");
  /* One more chance for a morphd that is restarting right now. */
  if (r->relay.conn.fd < 0)
    try_connect(r, 1.0);
  morph__launch_relay_send(r, &b, 0);
  if (r->relay.n_backlog > 0 || r->relay.conn.fd < 0)
    morph__say(&r->log, 0, "morphd could not be told how the job ended");
}

void morph__launch_relay_close(struct morph__launch *r)
{
  morph__conn_close(&r->relay.conn);
}
