/*
 * Jobs from submission to their end: the table, saving to the journal,
 * ending (which frees the slots), cancelling, reaping our own morph-run
 * children and watching the ones we reattached to after a restart.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "morph/error.h"
#include "rms/morphd.h"

morph__job *morph__job_find(morph__daemon *d, int64_t id)
{
  int lo = 0, hi = d->njobs - 1;
  while (lo <= hi) {
    int mid = (lo + hi) / 2;
    if (d->jobs[mid]->id == id)
      return d->jobs[mid];
    if (d->jobs[mid]->id < id)
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return NULL;
}

int morph__job_add(morph__daemon *d, morph__job *job)
{
  if (d->njobs == d->capjobs) {
    int cap = d->capjobs ? 2 * d->capjobs : 64;
    morph__job **v = realloc(d->jobs, (size_t)cap * sizeof *v);
    if (!v)
      return MORPH_ENOMEM;
    d->jobs = v, d->capjobs = cap;
  }
  /* Ids only grow, so appending keeps the table sorted for the search. */
  d->jobs[d->njobs++] = job;
  if (job->id >= d->next_job)
    d->next_job = job->id + 1;
  return MORPH_OK;
}

void morph__job_save(morph__daemon *d, morph__job *job)
{
  if (morph__journal_job_save(d->journal, job) != MORPH_OK)
    morph__say(&d->log, 0, "cannot journal job %lld: %s", (long long)job->id,
                morph__journal_errmsg(d->journal));
}

static morph__jstate final_state(const morph__job *job, int status)
{
  if (job->cancel)
    return MORPH__J_CANCELLED;
  return status == 0 ? MORPH__J_COMPLETED : MORPH__J_FAILED;
}

void morph__job_end(morph__daemon *d, morph__job *job, int status, const char *text)
{
  if (morph__jstate_final(job->state))
    return;
  double now = morph__wall();
  morph__journal_begin(d->journal);
  if (job->rz_id && job->state == MORPH__J_RUNNING)
    morph__resize_abort(d, job, MORPH_ECONN, "the job ended");
  morph__pool_release(&d->pool, &job->alloc);
  morph__pool_release(&d->pool, &job->extra);
  morph__alloc_clear(&job->extra);
  morph__alloc_clear(&job->plan);
  job->state = final_state(job, status);
  job->exit_status = status;
  job->end = now;
  snprintf(job->note, sizeof job->note, "%s", text ? text : "");
  if (job->size > 0)
    morph__journal_size(d->journal, job->id, now, 0);
  morph__journal_event(d->journal, now, job->id, "end", "%s, status %d%s%s",
                       morph__jstate_name(job->state), status, text ? ": " : "",
                       text ? text : "");
  morph__job_save(d, job);
  morph__journal_commit(d->journal);
  morph__say(&d->log, 0, "job %lld %s (status %d)%s%s", (long long)job->id,
              morph__jstate_name(job->state), status, text ? ": " : "", text ? text : "");
  d->dirty = 1;
}

int morph__job_cancel(morph__daemon *d, morph__job *job)
{
  if (morph__jstate_final(job->state))
    return MORPH_ESTATE;
  job->cancel = 1;
  if (job->state == MORPH__J_RUNNING && job->pid > 0) {
    morph__job_save(d, job);
    /* morph run stops mpirun (SIGTERM, then SIGKILL after its grace) and
     * says BYE; the slots are freed then, not before. */
    kill(job->pid, SIGTERM);
    return MORPH_OK;
  }
  morph__job_end(d, job, -1, "cancelled before it started");
  return MORPH_OK;
}

static const char *exit_text(int ws, char *buf, size_t size, int *status)
{
  if (WIFSIGNALED(ws)) {
    *status = 128 + WTERMSIG(ws);
    snprintf(buf, size, "morph run killed by signal %d", WTERMSIG(ws));
  } else {
    *status = WEXITSTATUS(ws);
    snprintf(buf, size, "morph run exited with status %d", *status);
  }
  return buf;
}

void morph__jobs_reap(morph__daemon *d)
{
  int ws;
  pid_t pid;
  while ((pid = waitpid(-1, &ws, WNOHANG)) > 0) {
    for (int i = 0; i < d->njobs; i++) {
      morph__job *job = d->jobs[i];
      if (job->pid != pid || !job->child)
        continue;
      job->child = 0;
      char text[128];
      int status;
      exit_text(ws, text, sizeof text, &status);
      /* Usually BYE came first and the job has ended already. */
      morph__job_end(d, job, status, text);
    }
  }
}

/* True if pid still is a morph run (not a recycled pid). */
static int is_morph_run(pid_t pid)
{
  if (pid <= 0 || (kill(pid, 0) != 0 && errno == ESRCH))
    return 0;
  char path[64], cmd[256] = "";
  snprintf(path, sizeof path, "/proc/%ld/cmdline", (long)pid);
  FILE *f = fopen(path, "r");
  if (!f)
    return 0;
  size_t n = fread(cmd, 1, sizeof cmd - 1, f);
  fclose(f);
  cmd[n] = '\0';
  return strstr(cmd, "morph-run") != NULL;
}

void morph__jobs_check_orphans(morph__daemon *d)
{
  for (int i = 0; i < d->njobs; i++) {
    morph__job *job = d->jobs[i];
    if (job->state != MORPH__J_RUNNING || job->child || job->conn >= 0)
      continue;
    if (!is_morph_run(job->pid))
      morph__job_end(d, job, -1, "ended while morphd could not hear from it (status unknown)");
  }
}

int morph__jobs_rebook(morph__daemon *d)
{
  for (int i = 0; i < d->njobs; i++) {
    morph__job *job = d->jobs[i];
    if (job->state != MORPH__J_RUNNING && job->state != MORPH__J_STARTING)
      continue;
    if (morph__pool_book(&d->pool, &job->alloc) != MORPH_OK ||
        morph__pool_book(&d->pool, &job->extra) != MORPH_OK) {
      snprintf(d->errmsg, sizeof d->errmsg,
               "job %lld holds slots this pool does not have (was morphd restarted with a"
               " smaller pool?)", (long long)job->id);
      return MORPH_EINVAL;
    }
  }
  return MORPH_OK;
}

int morph__jobs_check_books(morph__daemon *d)
{
  int ok = 1;
  for (int n = 0; n < d->pool.n; n++) {
    int held = 0;
    for (int i = 0; i < d->njobs; i++) {
      const morph__job *job = d->jobs[i];
      if (job->state != MORPH__J_RUNNING && job->state != MORPH__J_STARTING)
        continue;
      for (int k = 0; k < job->alloc.n; k++)
        held += job->alloc.v[k].node == n ? job->alloc.v[k].slots : 0;
      for (int k = 0; k < job->extra.n; k++)
        held += job->extra.v[k].node == n ? job->extra.v[k].slots : 0;
    }
    if (held != d->pool.nodes[n].used || held > d->pool.nodes[n].slots) {
      ok = 0;
      morph__journal_event(d->journal, morph__wall(), 0, "invariant",
                           "node %d: jobs hold %d slots, pool counts %d of %d", n, held,
                           d->pool.nodes[n].used, d->pool.nodes[n].slots);
      morph__say(&d->log, 0, "BUG: node %d: jobs hold %d slots, pool counts %d of %d", n, held,
                  d->pool.nodes[n].used, d->pool.nodes[n].slots);
    }
  }
  return ok ? MORPH_OK : MORPH_EINVAL;
}

void morph__jobs_kill_all(morph__daemon *d)
{
  for (int i = 0; i < d->njobs; i++) {
    morph__job *job = d->jobs[i];
    if (job->state == MORPH__J_RUNNING && job->pid > 0) {
      job->cancel = 1;
      morph__job_save(d, job);
      kill(job->pid, SIGTERM);
    }
  }
}
