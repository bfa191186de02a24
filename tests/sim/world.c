/* The simulator tests' world (world.h). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "world.h"

void add(world *w, const char *name, morph_job_kind kind, double submit, int rmin, int rmax,
         int min, int pref, int max, double t1)
{
  morph_wjob j;
  memset(&j, 0, sizeof j);
  j.name = (char *)name;
  j.app = "generic";
  j.kind = kind;
  j.submit = submit;
  j.req_min = rmin;
  j.req_max = rmax;
  j.min = min;
  j.pref = pref;
  j.max = max;
  j.model.type = MORPH_MODEL_AMDAHL;
  j.model.t1 = t1;
  j.model.scale = 1;
  assert_int_equal(morph_workload_add(w->wl, &j), MORPH_OK);
}

void world_init(world *w, int nodes, const char *policy)
{
  memset(w, 0, sizeof *w);
  assert_int_equal(morph_workload_create(&w->wl), MORPH_OK);
  morph_sim_config_init(&w->cfg);
  w->cfg.nodes = nodes;
  w->cfg.policy = policy;
  w->cfg.expand_cost = w->cfg.shrink_cost = 0;
}

void world_run(world *w, int expect)
{
  morph_report_config rc;
  morph_report_config_init(&rc);
  rc.units = w->cfg.nodes;
  morph_workload_sort(w->wl);
  assert_int_equal(morph_report_create(&rc, &w->rep), MORPH_OK);
  assert_int_equal(morph_sim_create(&w->cfg, &w->sim), MORPH_OK);
  int rc2 = morph_sim_run(w->sim, w->wl, w->rep, &w->st);
  if (rc2 != expect)
    fprintf(stderr, "run: %s\n", morph_sim_errmsg(w->sim));
  assert_int_equal(rc2, expect);
}

void world_free(world *w)
{
  morph_sim_destroy(w->sim);
  morph_report_destroy(w->rep);
  morph_workload_destroy(w->wl);
}

/* Start and end of job i, from the report's per-job CSV. */
void times(world *w, size_t i, double *start, double *end, int *resizes)
{
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  assert_int_equal(morph_report_write_jobs_csv(w->rep, f), MORPH_OK);
  fclose(f);
  char *line = buf;
  for (size_t k = 0; k <= i; k++)
    line = strchr(line, '\n') + 1;
  double sub;
  char name[64], app[64], kind[64], state[64];
  int r = sscanf(line, "%63[^,],%63[^,],%63[^,],%63[^,],%lf,%lf,%lf", name, app, kind, state, &sub,
                 start, end);
  assert_int_equal(r, 7);
  const char *p = line;
  for (int c = 0; c < 13; c++)
    p = strchr(p, ',') + 1;
  *resizes = atoi(p);
  free(buf);
}

void expect_job(world *w, size_t i, double start, double end, int resizes)
{
  double s, e;
  int r;
  times(w, i, &s, &e, &r);
  if (fabs(s - start) > 1e-6 || fabs(e - end) > 1e-6 || r != resizes)
    fprintf(stderr, "job %zu: start %.4f end %.4f resizes %d; expected %.4f %.4f %d\n", i, s, e,
            r, start, end, resizes);
  assert_true(fabs(s - start) < 1e-6);
  assert_true(fabs(e - end) < 1e-6);
  assert_int_equal(r, resizes);
}
