/* The policy object: creation by name, parameters, and the decision driver
 * that runs the resize policy's hooks around the start policy. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct morph_policy {
  char name[64];
  const morph__start_entry *start;
  const morph__resize_entry *resize; /* NULL: start policy alone */
  morph_policy_params params;
  morph__scratch scratch;
  char errmsg[512];
};

void morph_policy_params_default(morph_policy_params *params)
{
  *params = (morph_policy_params){.mtct_lower = 0.2,
                                  .mtct_upper = 0.5,
                                  .max_failed_resizes = 3,
                                  .sched_period = 0,
                                  .sizes = MORPH_POLICY_SIZES_ANY,
                                  .default_walltime = 3600,
                                  .step_period = 60,
                                  .step_units = 1};
}

static int parse_double(const char *value, double *out)
{
  char *end;
  errno = 0;
  double d = strtod(value, &end);
  if (errno || end == value || *end)
    return MORPH_EINVAL;
  *out = d;
  return MORPH_OK;
}

static int parse_sizes(const char *value, morph_policy_sizes *out)
{
  static const char *names[] = {"any", "factor", "pow2"};
  for (int i = 0; i < 3; i++)
    if (strcmp(value, names[i]) == 0) {
      *out = (morph_policy_sizes)i;
      return MORPH_OK;
    }
  return MORPH_EINVAL;
}

int morph_policy_params_set(morph_policy_params *params, const char *key, const char *value)
{
  if (!params || !key || !value)
    return MORPH_EINVAL;
  morph_policy_params p = *params;
  double d = 0;
  int rc;
  if (strcmp(key, "sizes") == 0)
    rc = parse_sizes(value, &p.sizes);
  else if (strcmp(key, "shrink_floor") == 0)
    rc = !strcmp(value, "min") || !strcmp(value, "pref")
             ? (p.shrink_to_min = !strcmp(value, "min"), MORPH_OK)
             : MORPH_EINVAL;
  else if ((rc = parse_double(value, &d)) != MORPH_OK)
    return rc;
  else if (strcmp(key, "mtct_lower") == 0)
    p.mtct_lower = d;
  else if (strcmp(key, "mtct_upper") == 0)
    p.mtct_upper = d;
  else if (strcmp(key, "sched_period") == 0)
    p.sched_period = d;
  else if (strcmp(key, "default_walltime") == 0)
    p.default_walltime = d;
  else if (strcmp(key, "max_failed_resizes") == 0 && d == (int)d)
    p.max_failed_resizes = (int)d;
  else if (strcmp(key, "step_period") == 0)
    p.step_period = d;
  else if (strcmp(key, "step_units") == 0 && d == (int)d && d >= 1)
    p.step_units = (int)d;
  else if (strcmp(key, "shrink_jobs") == 0 && d == (int)d && d <= 1 << 30)
    p.shrink_jobs = (int)d;
  else
    rc = MORPH_EINVAL;
  if (rc == MORPH_OK && p.max_failed_resizes >= 0 && p.sched_period >= 0 && d >= 0)
    *params = p;
  else
    rc = MORPH_EINVAL;
  return rc;
}

static const morph__start_entry *find_start(const char *name, size_t len)
{
  for (int i = 0; i < morph__start_count; i++)
    if (strlen(morph__start_table[i].name) == len &&
        strncmp(morph__start_table[i].name, name, len) == 0)
      return &morph__start_table[i];
  return NULL;
}

static const morph__resize_entry *find_resize(const char *name, size_t len)
{
  for (int i = 0; i < morph__resize_count; i++)
    if (strlen(morph__resize_table[i].name) == len &&
        strncmp(morph__resize_table[i].name, name, len) == 0)
      return &morph__resize_table[i];
  return NULL;
}

/* Splits "<resize>+<start>", "<resize>" or "<start>" into table entries. */
static int lookup(const char *name, const morph__start_entry **start,
                  const morph__resize_entry **resize)
{
  const char *plus = strchr(name, '+');
  *resize = find_resize(name, plus ? (size_t)(plus - name) : strlen(name));
  if (plus)
    *start = *resize ? find_start(plus + 1, strlen(plus + 1)) : NULL;
  else
    *start = *resize ? &morph__start_table[0] : find_start(name, strlen(name));
  return *start ? MORPH_OK : MORPH_EINVAL;
}

static int check_params(const morph_policy_params *p, char *buf, size_t size)
{
  if (p->mtct_lower < 0 || p->mtct_lower > p->mtct_upper || p->max_failed_resizes < 0 ||
      p->sched_period < 0 || p->sizes < MORPH_POLICY_SIZES_ANY || p->sizes > MORPH_POLICY_SIZES_POW2 ||
      p->step_period < 0 || p->step_units < 1 || p->shrink_jobs < 0) {
    snprintf(buf, size, "bad policy parameters: need 0 <= mtct_lower <= mtct_upper, "
                        "max_failed_resizes >= 0, sched_period >= 0, sizes any|factor|pow2, "
                        "step_period >= 0, step_units >= 1, shrink_jobs >= 0");
    return MORPH_EINVAL;
  }
  return MORPH_OK;
}

int morph_policy_create_error(const char *name, const morph_policy_params *params, char *buf,
                              size_t size)
{
  char dummy[1];
  if (!buf || size == 0) {
    buf = dummy;
    size = sizeof(dummy);
  }
  buf[0] = '\0';
  const morph__start_entry *start;
  const morph__resize_entry *resize;
  if (!name || strlen(name) >= sizeof(((morph_policy *)0)->name) ||
      lookup(name, &start, &resize) != MORPH_OK) {
    int n = snprintf(buf, size, "unknown policy '%s'; valid names: ", name ? name : "(null)");
    if (n >= 0 && (size_t)n < size)
      morph_policy_names(buf + n, size - (size_t)n);
    return MORPH_EINVAL;
  }
  morph_policy_params def;
  morph_policy_params_default(&def);
  return check_params(params ? params : &def, buf, size);
}

int morph_policy_create(const char *name, const morph_policy_params *params, morph_policy **out)
{
  if (!out)
    return MORPH_EINVAL;
  *out = NULL;
  char msg[8];
  int rc = morph_policy_create_error(name, params, msg, sizeof(msg));
  if (rc)
    return rc;
  morph_policy *p = calloc(1, sizeof(*p));
  if (!p)
    return MORPH_ENOMEM;
  lookup(name, &p->start, &p->resize);
  if (p->resize)
    snprintf(p->name, sizeof(p->name), "%s+%s", p->resize->name, p->start->name);
  else
    snprintf(p->name, sizeof(p->name), "%s", p->start->name);
  if (params)
    p->params = *params;
  else
    morph_policy_params_default(&p->params);
  *out = p;
  return MORPH_OK;
}

void morph_policy_destroy(morph_policy *policy)
{
  if (!policy)
    return;
  morph__scratch_free(&policy->scratch);
  free(policy);
}

const char *morph_policy_name(const morph_policy *policy)
{
  return policy ? policy->name : "";
}

const char *morph_policy_errmsg(const morph_policy *policy)
{
  return policy ? policy->errmsg : "";
}

static size_t append(char *buf, size_t size, size_t len, const char *s)
{
  if (len < size)
    snprintf(buf + len, size - len, "%s", s);
  return len + strlen(s);
}

size_t morph_policy_names(char *buf, size_t size)
{
  size_t len = 0;
  if (buf && size)
    buf[0] = '\0';
  else
    size = 0;
  for (int i = 0; i < morph__start_count; i++)
    len = append(buf, size, append(buf, size, len, i ? ", " : ""), morph__start_table[i].name);
  for (int r = 0; r < morph__resize_count; r++) {
    len = append(buf, size, append(buf, size, len, ", "), morph__resize_table[r].name);
    for (int i = 0; i < morph__start_count; i++) {
      len = append(buf, size, append(buf, size, len, ", "), morph__resize_table[r].name);
      len = append(buf, size, append(buf, size, len, "+"), morph__start_table[i].name);
    }
  }
  return len;
}

int morph_policy_count(void)
{
  return morph__start_count + morph__resize_count;
}

const char *morph_policy_table_name(int i)
{
  if (i >= 0 && i < morph__start_count)
    return morph__start_table[i].name;
  i -= morph__start_count;
  return i >= 0 && i < morph__resize_count ? morph__resize_table[i].name : NULL;
}

const char *morph_policy_table_description(int i)
{
  if (i >= 0 && i < morph__start_count)
    return morph__start_table[i].description;
  i -= morph__start_count;
  return i >= 0 && i < morph__resize_count ? morph__resize_table[i].description : NULL;
}

static int run_phases(morph_policy *policy, morph__pass *run)
{
  int rc = MORPH_OK;
  if (policy->resize && policy->resize->before)
    rc = policy->resize->before(run);
  if (rc == MORPH_OK)
    rc = policy->start->start(run);
  if (rc == MORPH_OK && policy->resize && policy->resize->after)
    rc = policy->resize->after(run);
  return rc;
}

int morph_policy_decide(morph_policy *policy, const morph_policy_snapshot *snap,
                        morph_policy_actions *actions)
{
  if (!policy || !snap || !actions) {
    if (actions)
      actions->n = actions->nallocs = 0;
    if (policy)
      snprintf(policy->errmsg, sizeof(policy->errmsg), "NULL snapshot or actions");
    return MORPH_EINVAL;
  }
  actions->n = actions->nallocs = 0;
  policy->errmsg[0] = '\0';
  morph__pass run = {.snap = snap, .params = &policy->params, .out = actions,
                    .s = &policy->scratch, .msg = policy->errmsg,
                    .msgsize = sizeof(policy->errmsg), .backfills = policy->start->backfills};
  int rc = MORPH_OK;
  if (snap->nnodes >= 0 && snap->nrunning >= 0 && snap->npending >= 0 &&
      morph__scratch_reserve(&policy->scratch, snap))
    rc = morph__pass_fail(&run, MORPH_ENOMEM, "out of memory for %d nodes and %d jobs", snap->nnodes,
                     snap->nrunning + snap->npending);
  if (rc == MORPH_OK)
    rc = morph__validate(snap, policy->scratch.node_booked, policy->errmsg,
                         sizeof(policy->errmsg));
  if (rc == MORPH_OK) {
    morph__pass_count_free(&run);
    if (morph__tree_build(&policy->scratch.tree, snap, policy->scratch.started))
      rc = morph__pass_fail(&run, MORPH_ENOMEM, "out of memory for the queue index");
  }
  if (rc == MORPH_OK)
    rc = run_phases(policy, &run);
  if (rc)
    actions->n = actions->nallocs = 0;
  return rc;
}
