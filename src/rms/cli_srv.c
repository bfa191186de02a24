/*
 * The command protocol (docs/morphd.md): one JSON object per line with
 * "cmd", one JSON reply per request: {"ok": true, ...} or {"ok": false,
 * "error": text, "code": morph error}. Commands: ping, submit, status,
 * cancel, shutdown.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "morph/error.h"
#include "rms/morphd.h"

static void reply_error(morph__daemon *d, int i, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void reply_error(morph__daemon *d, int i, int code, const char *fmt, ...)
{
  char text[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  morph__wire_json(d, i, json_pack("{s:b, s:s, s:i}", "ok", 0, "error", text, "code", code));
}

static int get_int(json_t *req, const char *key, int dflt)
{
  json_t *v = json_object_get(req, key);
  return json_is_integer(v) ? (int)json_integer_value(v) : dflt;
}

static const char *get_str(json_t *req, const char *key)
{
  return json_string_value(json_object_get(req, key));
}

/* Checks request and limits; writes the reason to why. */
static int check_sizes(const morph__job *j, char *why, size_t size)
{
  if (j->req_min < 1 || j->req_max < j->req_min)
    snprintf(why, size, "the request needs 1 <= min <= max (got %d-%d)", j->req_min, j->req_max);
  else if (!morph_job_kind_moldable(j->kind) && j->req_min != j->req_max)
    snprintf(why, size, "a %s job asks for one size, not %d-%d", morph_job_kind_name(j->kind),
             j->req_min, j->req_max);
  else if (morph_job_kind_malleable(j->kind) &&
           !(j->min >= 1 && j->min <= j->pref && j->pref <= j->max))
    snprintf(why, size, "malleable limits need 1 <= min <= pref <= max (got %d, %d, %d)", j->min,
             j->pref, j->max);
  else if (morph_job_kind_malleable(j->kind) && (j->req_min < j->min || j->req_max > j->max))
    snprintf(why, size, "the request %d-%d is outside the limits [%d, %d]", j->req_min,
             j->req_max, j->min, j->max);
  else
    return MORPH_OK;
  return MORPH_EINVAL;
}

/* Fills a new job from a submit request. */
static int job_from_request(json_t *req, morph__job *j, char *why, size_t size)
{
  json_t *argv = json_object_get(req, "argv");
  const char *kind = get_str(req, "kind");
  size_t argc = json_array_size(argv);
  if (!argc || argc > 255)
    return snprintf(why, size, "no program to run"), MORPH_EINVAL;
  if (morph_job_kind_parse(kind ? kind : "fixed", &j->kind) != MORPH_OK)
    return snprintf(why, size, "unknown kind '%s'", kind), MORPH_EINVAL;
  const char **v = calloc(argc, sizeof *v);
  for (size_t k = 0; v && k < argc; k++)
    v[k] = json_string_value(json_array_get(argv, k)) ? json_string_value(json_array_get(argv, k)) : "";
  int rc = v ? morph__job_set_argv(j, (int)argc, v) : MORPH_ENOMEM;
  free(v);
  j->req_min = get_int(req, "req_min", 1);
  j->req_max = get_int(req, "req_max", j->req_min);
  j->min = get_int(req, "min", j->req_min);
  j->max = get_int(req, "max", j->req_max);
  j->pref = get_int(req, "pref", j->req_max);
  j->walltime = json_number_value(json_object_get(req, "walltime")); /* 0: none */
  if (rc == MORPH_OK && (!(j->walltime >= 0) || j->walltime > MORPH_WORKLOAD_TIME_MAX))
    rc = (snprintf(why, size, "walltime: a time limit in 0..%g s", MORPH_WORKLOAD_TIME_MAX),
          MORPH_EINVAL);
  snprintf(j->name, sizeof j->name, "%s", get_str(req, "name") ? get_str(req, "name") : "");
  j->cwd = strdup(get_str(req, "cwd") ? get_str(req, "cwd") : "/");
  j->out = get_str(req, "out") ? strdup(get_str(req, "out")) : NULL;
  j->err = get_str(req, "err") ? strdup(get_str(req, "err")) : NULL;
  if (rc == MORPH_OK)
    rc = check_sizes(j, why, size);
  if (rc == MORPH_OK)
    rc = morph__job_set_traffic(j, json_object_get(req, "traffic"), get_int(req, "traffic_n", 0),
                                why, size);
  return rc;
}

/* Default output files: <dir>/jobs/<id>.out and .err. */
static int default_outputs(morph__daemon *d, morph__job *j)
{
  char path[PATH_MAX + 64];
  snprintf(path, sizeof path, "%s/%lld.out", d->outdir, (long long)j->id);
  if (!j->out && !(j->out = strdup(path)))
    return MORPH_ENOMEM;
  snprintf(path, sizeof path, "%s/%lld.err", d->outdir, (long long)j->id);
  if (!j->err && !(j->err = strdup(path)))
    return MORPH_ENOMEM;
  return j->cwd ? MORPH_OK : MORPH_ENOMEM;
}

/* Journals the submission; the client is answered only if this
 * succeeds (journal first). Errors: the journal's, the job not written. */
static int record(morph__daemon *d, morph__job *j)
{
  double now = morph__wall();
  morph__journal_begin(d->journal);
  morph__journal_event(d->journal, now, j->id, "submit", "%s %d-%d", morph_job_kind_name(j->kind),
                       j->req_min, j->req_max);
  if (j->state == MORPH__J_REJECTED)
    morph__journal_event(d->journal, now, j->id, "reject", "%s", j->note);
  morph__job_save(d, j);
  return morph__journal_commit_first(d->journal);
}

/* The journal did not take the submission: the job is forgotten and the
 * client told why. */
static void not_recorded(morph__daemon *d, int i, morph__job *j)
{
  morph__say(&d->log, 1, "submission refused: %s", morph__journal_errmsg(d->journal));
  morph__job_forget(d, j);
  reply_error(d, i, MORPH_EIO, "%s; the job is not submitted", morph__journal_errmsg(d->journal));
}

/* True (with the reason in j->note) if no state of the backend's nodes
 * will ever hold the job. */
static int never_fits(morph__daemon *d, morph__job *j)
{
  morph__backend_view v;
  int total = morph__backend_read(d->be, &v) == MORPH_OK ? morph__backend_view_units(&v) : 0;
  if (total <= 0 || j->req_min <= total)
    return 0;
  snprintf(j->note, sizeof j->note, "needs at least %d %s; the pool has %d in all", j->req_min,
           v.unit == MORPH_POLICY_UNIT_NODE ? "nodes" : "slots", total);
  return 1;
}

/* The job runs as the user who submitted it: a morphd that is not root
 * cannot start another user's processes, so it takes only its own
 * user's jobs. */
static int may_submit(morph__daemon *d, int i)
{
  const morph__client *c = &d->clients[i];
  if (geteuid() == 0 || c->uid == geteuid())
    return 1;
  reply_error(d, i, MORPH_EPERM, "this morphd runs as uid %ld and starts jobs as that user only; "
              "yours (uid %ld) need a morphd run by root (docs/security.md)", (long)geteuid(),
              (long)c->uid);
  return 0;
}

/* Owner and relay secret of a new job. */
static int own(morph__daemon *d, int i, morph__job *j)
{
  j->uid = d->clients[i].uid, j->gid = d->clients[i].gid;
  return morph__job_new_secret(j);
}

static void cmd_submit(morph__daemon *d, int i, json_t *req)
{
  char why[256] = "";
  morph__crash_point(d, "submit", "received");
  /* Under Slurm a job morphd queued could never start: Slurm starts jobs. */
  if (!morph__backend_starts_jobs(d->be))
    return reply_error(d, i, MORPH_ENOSYS, "the %s backend starts no jobs: submit to %s "
                       "(morph submit --slurm), the job's morph run registers with morphd",
                       morph__backend_name(d->be), morph__backend_name(d->be));
  if (!may_submit(d, i))
    return;
  /* New work only while the journal can hold it. */
  if (!morph__journal_writable(d->journal))
    return reply_error(d, i, MORPH_EIO, "%s; the job is not submitted",
                       morph__journal_errmsg(d->journal));
  morph__job *j = calloc(1, sizeof *j);
  if (!j)
    return reply_error(d, i, MORPH_ENOMEM, "out of memory");
  morph__job_init(j);
  int rc = job_from_request(req, j, why, sizeof why);
  if (rc == MORPH_OK) {
    j->id = d->next_job;
    rc = default_outputs(d, j);
  }
  if (rc == MORPH_OK)
    rc = own(d, i, j);
  if (rc != MORPH_OK || (rc = morph__job_add(d, j)) != MORPH_OK) {
    morph__job_clear(j);
    free(j);
    return reply_error(d, i, rc, "%s", why[0] ? why : morph_strerror(rc));
  }
  j->submit = morph__wall();
  if (never_fits(d, j)) {
    /* Say so now, keep the record. */
    j->state = MORPH__J_REJECTED;
    j->end = j->submit;
    if (record(d, j) != MORPH_OK)
      return not_recorded(d, i, j);
    return reply_error(d, i, MORPH_ESIZE, "job %lld rejected: %s", (long long)j->id, j->note);
  }
  if (record(d, j) != MORPH_OK)
    return not_recorded(d, i, j);
  morph__crash_point(d, "submit", "journaled");
  d->dirty = 1;
  morph__say(&d->log, 0, "job %lld submitted (%s %d-%d)", (long long)j->id, morph_job_kind_name(j->kind),
              j->req_min, j->req_max);
  morph__wire_json(d, i, json_pack("{s:b, s:I}", "ok", 1, "id", (json_int_t)j->id));
  morph__crash_point(d, "submit", "answered");
}

static void cmd_cancel(morph__daemon *d, int i, json_t *req)
{
  json_t *v = json_object_get(req, "id");
  morph__job *j = json_is_integer(v) ? morph__job_find(d, json_integer_value(v)) : NULL;
  if (!j)
    return reply_error(d, i, MORPH_ENOENT, "no job with id %lld",
                       json_is_integer(v) ? (long long)json_integer_value(v) : -1LL);
  if (!morph__access_job(d, i, j))
    return reply_error(d, i, MORPH_EPERM, "job %lld belongs to another user", (long long)j->id);
  if (morph__job_cancel(d, j) != MORPH_OK)
    return reply_error(d, i, MORPH_ESTATE, "job %lld has already ended (%s)", (long long)j->id,
                       morph__jstate_name(j->state));
  morph__wire_json(d, i, json_pack("{s:b, s:I, s:s}", "ok", 1, "id", (json_int_t)j->id,
                                        "state", morph__jstate_name(j->state)));
}

static void cmd_shutdown(morph__daemon *d, int i, json_t *req)
{
  const morph__client *c = &d->clients[i];
  if (!morph__access_admin(d, c->uid, c->gid))
    return reply_error(d, i, MORPH_EPERM, "only an administrator may stop morphd (root, uid %ld"
                       "%s%s)", (long)geteuid(), d->opt.admin_group ? " or group " : "",
                       d->opt.admin_group ? d->opt.admin_group : "");
  int kill_jobs = json_is_true(json_object_get(req, "kill_jobs"));
  if (kill_jobs)
    morph__jobs_kill_all(d);
  morph__say(&d->log, 0, "shutdown requested%s", kill_jobs ? " (jobs stopped)" : "; jobs keep running");
  morph__wire_json(d, i, json_pack("{s:b}", "ok", 1));
  d->stop = kill_jobs ? 2 : 1;
}


void morph__cli_request(morph__daemon *d, int i, json_t *req)
{
  const char *cmd = get_str(req, "cmd");
  if (!cmd)
    reply_error(d, i, MORPH_EPROTO, "\"cmd\" must be a string");
  else if (!strcmp(cmd, "ping"))
    morph__wire_json(d, i, json_pack("{s:b, s:i, s:I}", "ok", 1, "version",
                                          MORPH__JOURNAL_VERSION, "pid", (json_int_t)getpid()));
  else if (!strcmp(cmd, "submit"))
    cmd_submit(d, i, req);
  else if (!strcmp(cmd, "status"))
    morph__wire_json(d, i, morph__cli_status(d, i, req));
  else if (!strcmp(cmd, "cancel"))
    cmd_cancel(d, i, req);
  else if (!strcmp(cmd, "shutdown"))
    cmd_shutdown(d, i, req);
  else
    reply_error(d, i, MORPH_EPROTO, "unknown command '%s' (ping, submit, status, cancel, shutdown)",
                cmd);
}
