/* From a workload job to a morphd submission. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "morph/error.h"
#include "workload_tool.h"

static void program(const wl_opts *o, const morph_wjob *j, char *buf, size_t size)
{
  if (strchr(j->app, '/'))
    snprintf(buf, size, "%s", j->app);
  else
    snprintf(buf, size, "%s/%s%s", o->app_dir, j->app, o->suffix);
}

int wl_check_programs(const wl_opts *o, const morph_workload *wl, const char *file)
{
  char prog[PATH_MAX * 2];
  for (size_t i = 0; i < wl->njobs; i++) {
    program(o, &wl->jobs[i], prog, sizeof prog);
    if (access(prog, X_OK) != 0) {
      fprintf(stderr, "morph workload: %s:%d: jobs[%zu].app: no program %s (see --app-dir)\n",
              file, wl->jobs[i].line, i, prog);
      return 1;
    }
  }
  return 0;
}

/* The fixed baseline: a rigid request at the preferred size (malleable
 * jobs) or at the top of the request (the others). */
static void sizes(const wl_opts *o, const morph_wjob *j, json_t *req)
{
  morph_job_kind kind = j->kind;
  int lo = j->req_min, hi = j->req_max;
  if (o->fixed) {
    hi = lo = morph_job_kind_malleable(kind) ? j->pref : j->req_max;
    kind = MORPH_KIND_FIXED;
  }
  json_object_set_new(req, "kind", json_string(morph_job_kind_name(kind)));
  json_object_set_new(req, "req_min", json_integer(lo));
  json_object_set_new(req, "req_max", json_integer(hi));
  json_object_set_new(req, "min", json_integer(j->min));
  json_object_set_new(req, "max", json_integer(j->max));
  json_object_set_new(req, "pref", json_integer(j->pref));
}

int wl_submit(const wl_opts *o, morph__cli *cli, const morph_workload *wl, size_t i,
              long long *id)
{
  const morph_wjob *j = &wl->jobs[i];
  char prog[PATH_MAX * 2], cwd[PATH_MAX];
  program(o, j, prog, sizeof prog);
  json_t *argv = json_array();
  json_array_append_new(argv, json_string(prog));
  for (int k = 0; k < j->argc; k++)
    json_array_append_new(argv, json_string(j->argv[k]));
  json_t *req = json_pack("{s:s, s:s, s:o, s:s}", "cmd", "submit", "name", j->name, "argv", argv,
                          "cwd", getcwd(cwd, sizeof cwd) ? cwd : "/");
  sizes(o, j, req);
  if (j->walltime > 0)
    json_object_set_new(req, "walltime", json_real(j->walltime));
  json_t *reply;
  *id = 0;
  char err[600];
  /* Read again since the load: a file changed meanwhile is this job's
   * refusal, not the run's end. */
  if (j->matrix && morph__cli_add_matrix(req, j->matrix, err, sizeof err) != MORPH_OK) {
    fprintf(stderr, "morph workload: %s: matrix: %s\n", j->name, err);
    json_decref(req);
    return MORPH_OK;
  }
  int rc = morph__cli_call(cli, req, &reply, 10);
  int answered = reply != NULL;
  if (rc == MORPH_OK)
    *id = (long long)json_integer_value(json_object_get(reply, "id"));
  else if (answered)
    fprintf(stderr, "morph workload: %s: %s\n", j->name, cli->errmsg);
  json_decref(reply);
  /* A refusal (impossible request) is the job's fate, not the run's. */
  return rc == MORPH_OK || answered ? MORPH_OK : rc;
}
