/* The simulator object and its event loop. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "internal.h"

void morph_sim_config_init(morph_sim_config *cfg)
{
  memset(cfg, 0, sizeof *cfg);
  cfg->nodes = 128;
  cfg->policy = "mdmr+easy";
  cfg->placement = "firstfit";
  morph_policy_params_default(&cfg->params);
  cfg->params.sizes = MORPH_POLICY_SIZES_FACTOR;
  cfg->interval = 10.0;
  cfg->expand_cost = 0.8;
  cfg->shrink_cost = 0.25;
  cfg->bandwidth = 1e10;
  cfg->impossible = MORPH_IMPOSSIBLE_SKIP;
  cfg->queue_depth = 500;
  cfg->estimates = MORPH_SIM_EST_REQUESTED;
  cfg->estimate_factor = 1.0;
}

int morph_sim_estimates_parse(const char *text, morph_sim_estimates *mode, double *factor)
{
  char *end;
  if (!text || !mode || !factor)
    return MORPH_EINVAL;
  if (!strcmp(text, "requested") || !strcmp(text, "exact")) {
    *mode = text[0] == 'r' ? MORPH_SIM_EST_REQUESTED : MORPH_SIM_EST_EXACT;
    *factor = 1.0;
    return MORPH_OK;
  }
  if (strncmp(text, "f=", 2) != 0)
    return MORPH_EINVAL;
  double k = strtod(text + 2, &end);
  if (end == text + 2 || *end || !(k >= 1) || k > 1e6)
    return MORPH_EINVAL;
  *mode = MORPH_SIM_EST_FACTOR;
  *factor = k;
  return MORPH_OK;
}

int morph_sim_config_check(const morph_sim_config *c, char *buf, size_t len)
{
  if (c->nodes < 1 || !(c->interval > 0) || c->expand_cost < 0 || c->shrink_cost < 0 ||
      !(c->bandwidth > 0) || c->queue_depth < 0 || (unsigned)c->estimates > MORPH_SIM_EST_FACTOR ||
      !(c->estimate_factor >= 1))
    return snprintf(buf, len, "simulator: need nodes >= 1, interval > 0, costs >= 0, "
                              "bandwidth > 0, queue depth >= 0, estimates requested, exact "
                              "or f=K with K >= 1"), MORPH_EINVAL;
  int rc = morph_policy_create_error(c->policy, &c->params, buf, len);
  return rc ? rc : morph_place_create_error(c->placement, c->place_params, c->nplace_params, buf, len);
}

int morph_sim_create(const morph_sim_config *cfg, morph_sim **out)
{
  if (!out || !cfg)
    return MORPH_EINVAL;
  *out = NULL;
  morph_sim *sim = calloc(1, sizeof *sim);
  if (!sim)
    return MORPH_ENOMEM;
  int rc = morph_sim_config_check(cfg, sim->errmsg, sizeof sim->errmsg);
  if (rc) {
    free(sim);
    return rc;
  }
  sim->cfg = *cfg;
  snprintf(sim->policy_name, sizeof sim->policy_name, "%s", cfg->policy ? cfg->policy : "");
  sim->cfg.policy = sim->policy_name;
  rc = morph_policy_create(sim->policy_name, &cfg->params, &sim->pol);
  if (rc == MORPH_OK)
    rc = morph_place_create(cfg->placement, cfg->place_params, cfg->nplace_params, &sim->place);
  if (rc) {
    morph_policy_destroy(sim->pol);
    free(sim);
    return rc;
  }
  sim->cfg.placement = morph_place_name(sim->place);
  morph_policy_actions_init(&sim->acts);
  *out = sim;
  return MORPH_OK;
}

static void free_run(morph_sim *sim)
{
  for (size_t i = 0; sim->jobs && i < sim->njobs; i++) {
    free(sim->jobs[i].nodes);
    free(sim->jobs[i].delta);
    free(sim->jobs[i].seg);
  }
  free(sim->jobs);
  free(sim->owner);
  free(sim->next_owner);
  free(sim->pending);
  free(sim->running);
  free(sim->pnodes);
  free(sim->prun);
  free(sim->ppend);
  free(sim->palloc);
  morph__heap_free(&sim->heap);
  sim->jobs = NULL;
  sim->owner = sim->next_owner = sim->pending = sim->running = NULL;
  sim->pnodes = NULL;
  sim->prun = sim->ppend = NULL;
  sim->palloc = NULL;
}

void morph_sim_destroy(morph_sim *sim)
{
  if (!sim)
    return;
  free_run(sim);
  morph_policy_actions_free(&sim->acts);
  morph_policy_destroy(sim->pol);
  morph_place_destroy(sim->place);
  free(sim);
}

static int clamp(int v, int hi)
{
  return v > hi ? hi : v;
}

/* Jobs asking for more than the cluster keep what fits: a moldable range or
 * malleable limits are cut at the cluster size; only a minimum above it
 * makes a job impossible. */
static void init_job(morph__sjob *j, const morph_wjob *w, int nodes)
{
  memset(j, 0, sizeof *j);
  j->w = w;
  j->req_min = w->req_min;
  j->req_max = clamp(w->req_max, nodes);
  j->max = clamp(w->max, nodes);
  j->pref = clamp(w->pref, j->max);
  j->min = clamp(w->min, j->pref);
  if (!morph_job_kind_malleable(w->kind)) {
    j->min = j->req_min;
    j->pref = j->max = j->req_max;
  }
}

static int alloc_run(morph_sim *sim, const morph_workload *wl)
{
  size_t n = wl->njobs, nodes = (size_t)sim->cfg.nodes;
  sim->jobs = calloc(n + 1, sizeof *sim->jobs);
  sim->owner = malloc(nodes * sizeof(int));
  sim->next_owner = malloc(nodes * sizeof(int));
  sim->pending = malloc((n + 1) * sizeof(int));
  sim->running = malloc((nodes + 1) * sizeof(int));
  sim->pnodes = calloc(nodes, sizeof *sim->pnodes);
  sim->prun = malloc((nodes + 1) * sizeof *sim->prun);
  sim->ppend = malloc((n + 1) * sizeof *sim->ppend);
  sim->palloc = malloc((nodes + 1) * sizeof *sim->palloc);
  if (!sim->jobs || !sim->owner || !sim->next_owner || !sim->pending || !sim->running ||
      !sim->pnodes || !sim->prun || !sim->ppend || !sim->palloc)
    return morph__sim_fail(sim, MORPH_ENOMEM, "out of memory for %zu jobs", n);
  for (size_t i = 0; i < nodes; i++) {
    sim->owner[i] = sim->next_owner[i] = -1;
    /* A node the placement expects to fail drains from the start. */
    sim->pnodes[i] = (morph_policy_node){(int64_t)i, 1, 0,
                                         morph_place_failing(sim->place, (int)i)
                                             ? MORPH_POLICY_NODE_DRAINING : MORPH_POLICY_NODE_UP};
  }
  return MORPH_OK;
}

static int setup_run(morph_sim *sim, const morph_workload *wl)
{
  free_run(sim);
  sim->wl = wl;
  sim->njobs = wl->njobs;
  sim->npend = sim->nrun = sim->ndone = 0;
  sim->future = wl->njobs;
  sim->nfree = sim->cfg.nodes;
  sim->seq = 0;
  sim->now = 0;
  sim->dirty = 0;
  sim->next_tick = -1;
  sim->wake = INFINITY;
  memset(&sim->st, 0, sizeof sim->st);
  sim->errmsg[0] = '\0';
  int rc = alloc_run(sim, wl);
  for (size_t i = 0; i < wl->njobs && !rc; i++) {
    init_job(&sim->jobs[i], &wl->jobs[i], sim->cfg.nodes);
    rc = morph__sim_push(sim, wl->jobs[i].submit, EV_SUBMIT, (int)i);
  }
  if (!rc)
    morph__sim_limits_setup(sim);
  return rc;
}

static int has_malleable_running(const morph_sim *sim)
{
  for (size_t i = 0; i < sim->nrun; i++)
    if (morph_job_kind_malleable(sim->jobs[sim->running[i]].w->kind))
      return 1;
  return 0;
}

/* A periodic decision can change something only while jobs wait or
 * malleable jobs run (they may grow, or shrink on what they measure). */
static int tick_useful(const morph_sim *sim)
{
  return sim->npend || has_malleable_running(sim);
}

/* Periodic decisions fall on multiples of the interval, but only where one
 * would decide: at the next multiple if something changed since the last
 * decision, else at the first multiple after the earliest inhibitor ends
 * (sim->wake). Ticks in between would decide the same, so an idle stretch
 * of simulated time costs no events however long it is. */
static int schedule_tick(morph_sim *sim)
{
  if (sim->ndone == sim->njobs || !tick_useful(sim) || (!sim->dirty && !isfinite(sim->wake)))
    return MORPH_OK;
  double from = sim->dirty || sim->wake <= sim->now ? sim->now : sim->wake;
  double k = floor(from / sim->cfg.interval) + 1.0;
  if (!sim->dirty && (k - 1.0) * sim->cfg.interval >= sim->wake && (k - 1.0) * sim->cfg.interval > sim->now)
    k -= 1.0;
  double t = k * sim->cfg.interval;
  if (!(t > sim->now) || (sim->next_tick >= 0 && sim->next_tick <= t))
    return MORPH_OK; /* t > now fails only past 2^53 intervals: time has stopped */
  sim->next_tick = t;
  return morph__sim_push(sim, t, EV_TICK, -1);
}

static void progress(morph_sim *sim, double t0, double *last)
{
  double w = morph__now();
  if (!sim->cfg.progress || w - *last < 1.0)
    return;
  *last = w;
  fprintf(stderr, "morph-sim: t=%.0f s, %zu/%zu jobs ended, %zu running, %zu pending (%.1f s)\n",
          sim->now, sim->ndone, sim->njobs, sim->nrun, sim->npend, w - t0);
}

/* Processes every event of one instant, then decides once: a burst of
 * submissions at the same time gets one decision, as with Slurm's queue. */
static int step(morph_sim *sim, int *tick)
{
  morph__ev ev = morph__heap_pop(&sim->heap);
  sim->now = ev.t;
  sim->st.events++;
  if (ev.type == EV_TICK) {
    if (ev.t >= sim->next_tick)
      sim->next_tick = -1; /* an earlier tick may have been pushed after it */
    *tick = 1;
  }
  int rc = morph__sim_handle(sim, &ev);
  if (rc || (sim->heap.n && sim->heap.v[0].t == sim->now))
    return rc;
  if (sim->dirty || (*tick && sim->now >= sim->wake && tick_useful(sim)))
    rc = morph__sim_decide(sim);
  *tick = 0;
  if (!rc && sim->npend && !sim->nrun && !sim->future && sim->acts.n == 0 && !sim->dirty)
    return morph__sim_fail(sim, MORPH_ESTATE, "policy %s starts none of %zu pending jobs on an "
                           "idle cluster", sim->policy_name, sim->npend);
  return rc ? rc : schedule_tick(sim);
}

static morph_job_state record_state(const morph__sjob *j)
{
  if (j->state == J_DONE)
    return j->killed ? MORPH_JOB_FAILED : MORPH_JOB_COMPLETED;
  return j->state == J_SKIPPED ? MORPH_JOB_SKIPPED : MORPH_JOB_UNFINISHED;
}

/* One record per job, and one per input record the loader skipped (SWF:
 * cancelled jobs), so that the report counts everything it was given. */
static int add_records(morph_sim *sim, morph_report *rep)
{
  int rc = MORPH_OK;
  for (size_t i = 0; i < sim->njobs && !rc; i++) {
    const morph__sjob *j = &sim->jobs[i];
    morph_job_record r = {j->w->name, j->w->app, j->w->kind, record_state(j),
                          j->w->submit, j->start, j->end, j->nseg, j->seg, j->resizes};
    rc = morph_report_add(rep, &r);
  }
  for (size_t i = 0; i < sim->wl->skipped && !rc; i++) {
    const morph_wskip *k = &sim->wl->skips[i];
    morph_job_record r = {k->name, NULL, MORPH_KIND_FIXED, MORPH_JOB_SKIPPED, k->submit, 0, 0,
                          0, NULL, 0};
    rc = morph_report_add(rep, &r);
  }
  return rc ? morph__sim_fail(sim, rc, "report: %s", morph_report_errmsg(rep)) : MORPH_OK;
}

/* Every job that neither completed nor was skipped is an error, named: a
 * run that silently loses jobs would report wrong averages. */
static int check_unfinished(morph_sim *sim)
{
  char names[256] = "";
  size_t n = 0, len = 0;
  for (size_t i = 0; i < sim->njobs; i++) {
    const morph__sjob *j = &sim->jobs[i];
    if (j->state == J_DONE || j->state == J_SKIPPED || n++ >= 5)
      continue;
    len += (size_t)snprintf(names + len, len < sizeof names ? sizeof names - len : 0, "%s%s (line %d)",
                            n > 1 ? ", " : "", j->w->name, j->w->line);
  }
  if (n == 0)
    return MORPH_OK;
  return morph__sim_fail(sim, MORPH_ESTATE, "%zu job(s) did not complete at t=%.0f s: %s%s", n,
                         sim->now, names, n > 5 ? ", ..." : "");
}

static int reject_impossible(morph_sim *sim, const morph_workload *wl)
{
  for (size_t i = 0; i < wl->njobs; i++)
    if (wl->jobs[i].req_min > sim->cfg.nodes)
      return morph__sim_fail(sim, MORPH_ESIZE, "job %s (line %d) needs %d nodes, the cluster "
                             "has %d", wl->jobs[i].name, wl->jobs[i].line, wl->jobs[i].req_min,
                             sim->cfg.nodes);
  return MORPH_OK;
}

static void finish_stats(morph_sim *sim, morph_sim_stats *stats, double t0)
{
  sim->st.jobs = sim->njobs + sim->wl->skipped;
  sim->st.skipped = sim->wl->skipped;
  sim->st.completed = 0;
  for (size_t i = 0; i < sim->njobs; i++) {
    sim->st.completed += sim->jobs[i].state == J_DONE;
    sim->st.skipped += sim->jobs[i].state == J_SKIPPED;
  }
  sim->st.unfinished = sim->st.jobs - sim->st.completed - sim->st.skipped;
  sim->st.sim_end = sim->now;
  sim->st.wall_s = morph__now() - t0;
  if (stats)
    *stats = sim->st;
}

int morph_sim_run(morph_sim *sim, const morph_workload *wl, morph_report *rep,
                  morph_sim_stats *stats)
{
  if (!sim || !wl || !rep)
    return MORPH_EINVAL;
  double t0 = morph__now(), last = t0;
  if (sim->cfg.impossible == MORPH_IMPOSSIBLE_REJECT && reject_impossible(sim, wl))
    return MORPH_ESIZE;
  int rc = setup_run(sim, wl), tick = 0;
  while (!rc && sim->heap.n && sim->ndone < sim->njobs) {
    rc = step(sim, &tick);
    if ((sim->st.events & 16383) == 0)
      progress(sim, t0, &last);
  }
  if (!rc)
    rc = check_unfinished(sim);
  finish_stats(sim, stats, t0);
  int rc2 = add_records(sim, rep);
  return rc ? rc : rc2;
}
