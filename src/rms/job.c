/* Job records: names of states, construction and destruction. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "morph/error.h"
#include "rms/job.h"

static const char *const state_names[MORPH__J_STATE_COUNT] = {
  "pending", "starting", "running", "completed", "failed", "cancelled", "rejected",
};

const char *morph__jstate_name(morph__jstate s)
{
  return s >= 0 && s < MORPH__J_STATE_COUNT ? state_names[s] : "?";
}

int morph__jstate_parse(const char *name, morph__jstate *s)
{
  for (int i = 0; name && i < MORPH__J_STATE_COUNT; i++)
    if (!strcmp(name, state_names[i])) {
      *s = (morph__jstate)i;
      return MORPH_OK;
    }
  return MORPH_EINVAL;
}

int morph__jstate_final(morph__jstate s)
{
  return s >= MORPH__J_COMPLETED;
}

const char *morph__rop_name(morph__rop op)
{
  static const char *const names[] = {"none", "start", "expand", "shrink"};
  return op >= 0 && op <= MORPH__R_SHRINK ? names[op] : "?";
}

static const char *const phase_names[] = {"", "grow", "sent", "release"};

const char *morph__rphase_name(morph__rphase p)
{
  return p >= MORPH__P_NONE && p <= MORPH__P_RELEASE ? phase_names[p] : "?";
}

morph__rphase morph__rphase_parse(const char *name)
{
  for (int i = MORPH__P_GROW; name && i <= MORPH__P_RELEASE; i++)
    if (!strcmp(name, phase_names[i]))
      return (morph__rphase)i;
  return MORPH__P_NONE;
}

void morph__job_init(morph__job *j)
{
  memset(j, 0, sizeof *j);
  j->uid = (uid_t)-1, j->gid = (gid_t)-1;
  j->conn = -1;
  j->ppu = 1;
  j->exit_status = -1;
  j->mtct_avg = j->mtct_trend = -1;
}

int morph__job_new_secret(morph__job *j)
{
  unsigned char raw[MORPH__SECRET_HEX / 2];
  if (getrandom(raw, sizeof raw, 0) != (ssize_t)sizeof raw)
    return MORPH_EIO;
  for (size_t i = 0; i < sizeof raw; i++)
    snprintf(j->secret + 2 * i, 3, "%02x", raw[i]);
  return MORPH_OK;
}

int morph__job_secret_ok(const morph__job *j, const char *given)
{
  if (!j->secret[0] || strlen(given) != MORPH__SECRET_HEX)
    return 0;
  /* Compared in constant time: how long a wrong guess took says nothing. */
  unsigned char diff = 0;
  for (size_t i = 0; i < MORPH__SECRET_HEX; i++)
    diff |= (unsigned char)(j->secret[i] ^ given[i]);
  return diff == 0;
}

void morph__job_clear(morph__job *j)
{
  for (int i = 0; j->argv && i < j->argc; i++)
    free(j->argv[i]);
  free(j->argv);
  free(j->cwd);
  free(j->out);
  free(j->err);
  morph__alloc_free(&j->alloc);
  morph__alloc_free(&j->extra);
  morph__alloc_free(&j->plan);
  free(j->traffic);
  morph__job_init(j);
}

int morph__job_set_traffic(morph__job *j, const json_t *a, int n, char *why, size_t size)
{
  if (!a || json_is_null(a))
    return MORPH_OK;
  if (n < 1 || n > MORPH__TRAFFIC_MAX || !json_is_array(a) ||
      json_array_size(a) != (size_t)n * (size_t)n)
    return snprintf(why, size, "matrix: %d ranks and %zu entries (want 1..%d ranks, n * n "
                    "entries)", n, json_array_size(a), MORPH__TRAFFIC_MAX), MORPH_EINVAL;
  uint64_t *t = malloc(sizeof *t * (size_t)n * (size_t)n);
  if (!t)
    return MORPH_ENOMEM;
  for (size_t k = 0; k < (size_t)n * (size_t)n; k++) {
    json_t *v = json_array_get(a, k);
    if (!json_is_integer(v) || json_integer_value(v) < 0) {
      free(t);
      return snprintf(why, size, "matrix: entry %zu (row %zu, column %zu) is not a count >= 0",
                      k, k / (size_t)n + 1, k % (size_t)n + 1), MORPH_EINVAL;
    }
    t[k] = (uint64_t)json_integer_value(v);
  }
  free(j->traffic);
  j->traffic = t, j->traffic_n = n;
  return MORPH_OK;
}

json_t *morph__job_traffic_json(const morph__job *j)
{
  if (!j->traffic)
    return json_null();
  json_t *a = json_array();
  for (size_t k = 0; a && k < (size_t)j->traffic_n * (size_t)j->traffic_n; k++)
    json_array_append_new(a, json_integer((json_int_t)j->traffic[k]));
  return a;
}

int morph__job_unit_limits(const morph__job *j, int *min, int *pref, int *max)
{
  int u = j->ppu > 1 ? j->ppu : 1;
  *min = (j->min + u - 1) / u;
  *max = j->max / u;
  *pref = (j->pref + u / 2) / u;
  if (*pref < *min)
    *pref = *min;
  if (*pref > *max)
    *pref = *max;
  return *min >= 1 && *min <= *max;
}

int morph__job_set_argv(morph__job *j, int argc, const char *const *argv)
{
  char **v = calloc((size_t)argc + 1, sizeof *v);
  if (!v)
    return MORPH_ENOMEM;
  for (int i = 0; i < argc; i++)
    if (!(v[i] = strdup(argv[i]))) {
      while (i-- > 0)
        free(v[i]);
      free(v);
      return MORPH_ENOMEM;
    }
  for (int i = 0; j->argv && i < j->argc; i++)
    free(j->argv[i]);
  free(j->argv);
  j->argv = v;
  j->argc = argc;
  return MORPH_OK;
}

int morph__job_mark_take(morph__job_mark *m, const morph__job *j)
{
  *m = (morph__job_mark){.state = j->state, .size = j->size, .rz_id = j->rz_id,
                         .rz_to = j->rz_to, .rz_op = j->rz_op, .rz_phase = j->rz_phase,
                         .start = j->start, .last_change = j->last_change,
                         .rz_deadline = j->rz_deadline, .pid = j->pid};
  morph__alloc_init(&m->alloc);
  morph__alloc_init(&m->extra);
  morph__alloc_init(&m->plan);
  if (morph__alloc_copy(&m->alloc, &j->alloc) == MORPH_OK &&
      morph__alloc_copy(&m->extra, &j->extra) == MORPH_OK &&
      morph__alloc_copy(&m->plan, &j->plan) == MORPH_OK)
    return MORPH_OK;
  morph__job_mark_free(m);
  return MORPH_ENOMEM;
}

void morph__job_mark_restore(const morph__job_mark *m, morph__job *j)
{
  j->state = m->state, j->size = m->size, j->rz_id = m->rz_id, j->rz_to = m->rz_to;
  j->rz_op = m->rz_op, j->rz_phase = m->rz_phase;
  j->start = m->start, j->last_change = m->last_change, j->rz_deadline = m->rz_deadline;
  j->pid = m->pid;
  /* Only a lack of memory fails these; the books check would say so. */
  morph__alloc_copy(&j->alloc, &m->alloc);
  morph__alloc_copy(&j->extra, &m->extra);
  morph__alloc_copy(&j->plan, &m->plan);
}

void morph__job_mark_free(morph__job_mark *m)
{
  morph__alloc_free(&m->alloc);
  morph__alloc_free(&m->extra);
  morph__alloc_free(&m->plan);
}
