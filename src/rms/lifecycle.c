/*
 * The job table and the steps the rest of morphd builds on: finding,
 * saving and forgetting jobs, the record of a start, taking on a job its
 * resource manager started, writing down that one is over, putting
 * waiting starts back in the queue, and checking that the backend's books
 * agree with the jobs'.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
  /* Sorted by id for the search. morphd's own ids only grow (an append);
   * a job Slurm started comes with Slurm's id, which may be lower. */
  int at = d->njobs;
  while (at > 0 && d->jobs[at - 1]->id > job->id)
    at--;
  memmove(d->jobs + at + 1, d->jobs + at, (size_t)(d->njobs - at) * sizeof *d->jobs);
  d->jobs[at] = job;
  d->njobs++;
  if (job->id >= d->next_job)
    d->next_job = job->id + 1;
  return MORPH_OK;
}

void morph__job_forget(morph__daemon *d, morph__job *job)
{
  int at = 0;
  while (at < d->njobs && d->jobs[at] != job)
    at++;
  if (at == d->njobs)
    return;
  memmove(d->jobs + at, d->jobs + at + 1, (size_t)(d->njobs - at - 1) * sizeof *d->jobs);
  d->njobs--;
  if (job->id == d->next_job - 1)
    d->next_job--; /* nobody was told the id */
  morph__job_clear(job);
  free(job);
}

void morph__job_save(morph__daemon *d, morph__job *job)
{
  /* A journal that cannot be written keeps the row and says so itself. */
  if (morph__journal_job_save(d->journal, job) != MORPH_OK)
    morph__say(&d->log, 1, "cannot journal job %lld: %s", (long long)job->id,
               morph__journal_errmsg(d->journal));
}

int morph__job_journal_start(morph__daemon *d, const morph__job *job, double now)
{
  int id = d->next_resize++;
  morph__journal_resize_begin(d->journal, id, job->id, MORPH__R_START, 0, job->size, &job->alloc,
                              -1, now);
  morph__journal_resize_end(d->journal, id, now, MORPH_OK, job->size, NULL);
  return id;
}

/* The record of a job its resource manager started, from its HELLO:
 * sizes in processes; rigid when its limits leave it one size. */
static morph__job *claimed_job(int64_t id, const morph__msg *m)
{
  morph__job *job = calloc(1, sizeof *job);
  if (!job)
    return NULL;
  morph__job_init(job);
  job->id = id;
  job->size = m->size;
  job->min = m->min > 0 ? m->min : m->size;
  job->max = m->max > 0 ? m->max : m->size;
  job->pref = m->pref > 0 ? m->pref : m->size;
  job->req_min = job->req_max = m->size;
  job->kind = job->min < job->max ? MORPH_KIND_MALLEABLE : MORPH_KIND_FIXED;
  job->state = MORPH__J_RUNNING;
  return job;
}

/* Only the job's own user may make it morphd's: its relay runs as that
 * user. */
static int owned_by(morph__job *job, uid_t uid, char *err, size_t errsize)
{
  if (job->uid == uid)
    return MORPH_OK;
  snprintf(err, errsize, "job %lld belongs to uid %ld, not to uid %ld", (long long)job->id,
           (long)job->uid, (long)uid);
  return MORPH_EPERM;
}

int morph__job_claim(morph__daemon *d, int64_t id, const morph__msg *m, uid_t uid, char *err,
                     size_t errsize)
{
  morph__job *job = claimed_job(id, m);
  if (!job)
    return snprintf(err, errsize, "out of memory"), MORPH_ENOMEM;
  int rc = morph__backend_claim(d->be, job, err, errsize);
  if (rc == MORPH_OK && (rc = owned_by(job, uid, err, errsize)) != MORPH_OK)
    morph__backend_drop(d->be, job);
  else if (rc == MORPH_OK && (rc = morph__job_new_secret(job)) != MORPH_OK)
    morph__backend_drop(d->be, job);
  else if (rc == MORPH_OK && (rc = morph__job_add(d, job)) != MORPH_OK)
    morph__backend_drop(d->be, job);
  if (rc != MORPH_OK) {
    morph__job_clear(job);
    free(job);
    return rc;
  }
  double now = morph__wall();
  morph__journal_begin(d->journal);
  morph__journal_event(d->journal, now, id, "submit", "%s %d-%d, started by %s",
                       morph_job_kind_name(job->kind), job->min, job->max,
                       morph__backend_name(d->be));
  morph__job_journal_start(d, job, now);
  morph__journal_size(d->journal, id, now, job->size);
  morph__journal_event(d->journal, now, id, "start", "%d processes on %d nodes (claimed)",
                       job->size, job->alloc.n);
  morph__job_save(d, job);
  morph__journal_commit(d->journal);
  morph__say(&d->log, 0, "job %lld claimed: %d processes on %d nodes, limits %d-%d",
             (long long)id, job->size, job->alloc.n, job->min, job->max);
  d->dirty = 1;
  return MORPH_OK;
}

void morph__job_record_end(morph__daemon *d, morph__job *job, morph__jstate state, int status,
                           const char *text)
{
  double now = morph__wall();
  morph__journal_begin(d->journal);
  morph__alloc_clear(&job->extra);
  morph__alloc_clear(&job->plan);
  job->state = state;
  job->exit_status = status;
  job->end = now;
  snprintf(job->note, sizeof job->note, "%s", text ? text : "");
  if (job->size > 0)
    morph__journal_size(d->journal, job->id, now, 0);
  morph__journal_event(d->journal, now, job->id, "end", "%s, status %d%s%s",
                       morph__jstate_name(state), status, text ? ": " : "", text ? text : "");
  morph__job_save(d, job);
  morph__journal_commit(d->journal);
  morph__say(&d->log, 0, "job %lld %s (status %d)%s%s", (long long)job->id,
             morph__jstate_name(state), status, text ? ": " : "", text ? text : "");
  d->dirty = 1;
}

void morph__jobs_requeue(morph__daemon *d, int rz_id, const char *why)
{
  for (int i = 0; i < d->njobs; i++) {
    morph__job *job = d->jobs[i];
    if (job->state != MORPH__J_STARTING || job->rz_id != rz_id)
      continue;
    morph__backend_drop(d->be, job);
    morph__alloc_clear(&job->extra);
    morph__alloc_clear(&job->plan);
    job->state = MORPH__J_PENDING;
    job->rz_id = 0, job->rz_to = 0;
    morph__journal_event(d->journal, morph__wall(), job->id, "requeue",
                         "resize %d %s: back in the queue", rz_id, why);
    morph__job_save(d, job);
    d->dirty = 1;
  }
}

/* Slots on node n held by morphd's jobs (processes and held pieces) and by
 * the jobs the backend says are not morphd's. */
static int held_on(const morph__daemon *d, const morph__backend_view *v, int n)
{
  int held = 0;
  for (int i = 0; i < d->njobs; i++) {
    const morph__job *job = d->jobs[i];
    if (job->state == MORPH__J_RUNNING || job->state == MORPH__J_STARTING)
      held += morph__alloc_on(&job->alloc, n) + morph__alloc_on(&job->extra, n);
  }
  for (int j = 0; j < v->nrunning; j++)
    for (int k = 0; k < v->running[j].nalloc; k++)
      held += v->running[j].alloc[k].node == n ? v->running[j].alloc[k].slots : 0;
  return held;
}

int morph__jobs_check_books(morph__daemon *d)
{
  morph__backend_view v;
  if (morph__backend_read(d->be, &v) != MORPH_OK)
    return MORPH_OK; /* nothing to compare with now */
  int ok = 1;
  for (int n = 0; n < v.nnodes; n++) {
    int held = held_on(d, &v, n) + v.nodes[n].settling;
    if (held == v.nodes[n].used && held <= v.nodes[n].slots)
      continue;
    ok = 0;
    morph__journal_event(d->journal, morph__wall(), 0, "invariant",
                         "node %d: jobs hold %d slots, %s backend counts %d of %d", n, held,
                         morph__backend_name(d->be), v.nodes[n].used, v.nodes[n].slots);
    morph__say(&d->log, 0, "BUG: node %d: jobs hold %d slots, backend counts %d of %d", n, held,
               v.nodes[n].used, v.nodes[n].slots);
  }
  return ok ? MORPH_OK : MORPH_EINVAL;
}
