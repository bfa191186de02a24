/* Test harness of the policy engine; see harness.h for the description
 * language. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "harness.h"

static morph_policy_kind parse_kind(const char *w)
{
  static const char *names[] = {"rigid", "moldable", "malleable", "flexible"};
  for (int i = 0; i < 4; i++)
    if (strcmp(w, names[i]) == 0)
      return (morph_policy_kind)i;
  fail_msg("unknown kind '%s'", w);
  return MORPH_POLICY_JOB_RIGID;
}

static void parse_key(morph_policy_job *j, const char *w)
{
  double a, b;
  if (sscanf(w, "mtct=%lf/%lf", &a, &b) == 2) {
    j->mtct_avg = a;
    j->mtct_trend = b;
  } else if (sscanf(w, "eff=%lf", &a) == 1)
    j->efficiency = a;
  else if (sscanf(w, "wall=%lf", &a) == 1)
    j->walltime = a;
  else if (sscanf(w, "start=%lf", &a) == 1)
    j->start_time = a;
  else if (sscanf(w, "last=%lf", &a) == 1)
    j->last_change = a;
  else if (sscanf(w, "period=%lf", &a) == 1)
    j->sched_period = a;
  else if (sscanf(w, "resizing=%lf", &a) == 1)
    j->resizing = (int)a;
  else if (sscanf(w, "to=%lf", &a) == 1)
    j->resize_to = (int)a;
  else if (sscanf(w, "failed=%lf", &a) == 1)
    j->failed_resizes = (int)a;
  else if (sscanf(w, "submit=%lf", &a) == 1)
    j->submit_time = a;
  else if (sscanf(w, "from=%lf", &a) == 1)
    j->expand_from = (int)a;
  else
    fail_msg("unknown key '%s'", w);
}

/* Parses "ID KIND SIZE-or-REQ [MIN PREF MAX] key=value..." into j; returns
 * the number of words used. */
static int parse_job(morph_policy_job *j, char **w, int n)
{
  memset(j, 0, sizeof(*j));
  j->mtct_avg = j->mtct_trend = j->efficiency = -1;
  assert_true(n >= 3);
  j->id = atol(w[0]);
  j->kind = parse_kind(w[1]);
  if (sscanf(w[2], "%d-%d", &j->req_min, &j->req_max) != 2)
    j->req_min = j->req_max = atoi(w[2]);
  int i = 3;
  if (n >= 6 && strchr(w[3], '=') == NULL && strcmp(w[3], "@") != 0) {
    j->min = atoi(w[3]);
    j->pref = atoi(w[4]);
    j->max = atoi(w[5]);
    i = 6;
  }
  for (; i < n && strcmp(w[i], "@") != 0; i++)
    parse_key(j, w[i]);
  return i;
}

static void parse_alloc(test_snap *t, morph_policy_job *j, int idx, const char *spec)
{
  char buf[512];
  snprintf(buf, sizeof(buf), "%s", spec);
  for (char *save, *p = strtok_r(buf, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
    int node, slots = -1;
    if (sscanf(p, "%d:%d", &node, &slots) < 1)
      fail_msg("bad piece '%s'", p);
    assert_true(node >= 0 && node < t->s.nnodes);
    if (slots < 0)
      slots = t->nodes[node].slots;
    t->allocs[idx][j->nalloc++] = (morph_policy_alloc){node, slots};
    t->nodes[node].used += slots;
  }
  j->alloc = t->allocs[idx];
}

static void parse_run(test_snap *t, char **w, int n)
{
  int idx = t->s.nrunning++;
  morph_policy_job *j = &t->running[idx];
  int i = parse_job(j, w, n);
  j->size = j->req_min;
  j->req_max = j->req_min;
  assert_true(i + 1 < n);
  parse_alloc(t, j, idx, w[i + 1]);
}

static void parse_stmt(test_snap *t, char **w, int n)
{
  if (strcmp(w[0], "unit") == 0)
    t->s.unit = strcmp(w[1], "slot") == 0 ? MORPH_POLICY_UNIT_SLOT : MORPH_POLICY_UNIT_NODE;
  else if (strcmp(w[0], "now") == 0)
    t->s.now = atof(w[1]);
  else if (strcmp(w[0], "nodes") == 0) {
    for (int i = 0; i < atoi(w[1]); i++)
      t->nodes[t->s.nnodes++] = (morph_policy_node){.id = t->s.nnodes, .slots = atoi(w[2])};
  } else if (strcmp(w[0], "down") == 0)
    t->nodes[atoi(w[1])].state = MORPH_POLICY_NODE_DOWN;
  else if (strcmp(w[0], "drain") == 0)
    t->nodes[atoi(w[1])].state = MORPH_POLICY_NODE_DRAINING;
  else if (strcmp(w[0], "run") == 0)
    parse_run(t, w + 1, n - 1);
  else if (strcmp(w[0], "pend") == 0)
    parse_job(&t->pending[t->s.npending++], w + 1, n - 1);
  else
    fail_msg("unknown statement '%s'", w[0]);
}

void test_snap_parse(test_snap *t, const char *desc)
{
  memset(t, 0, sizeof(*t));
  t->s.unit = MORPH_POLICY_UNIT_NODE;
  t->s.now = 100;
  t->s.nodes = t->nodes;
  t->s.running = t->running;
  t->s.pending = t->pending;
  char *copy = strdup(desc), *save;
  for (char *st = strtok_r(copy, ";", &save); st; st = strtok_r(NULL, ";", &save)) {
    char *w[64], *s2;
    int n = 0;
    for (char *x = strtok_r(st, " \t\n", &s2); x && n < 64; x = strtok_r(NULL, " \t\n", &s2))
      w[n++] = x;
    if (n)
      parse_stmt(t, w, n);
  }
  free(copy);
}

/* Appends " @node[:slots],..." (slots only in slot units). */
static size_t format_pieces(const morph_policy_actions *a, const morph_policy_action *x,
                            int slots, char *buf, size_t size)
{
  size_t len = 0;
  for (int k = 0; k < x->alloc_count && len < size; k++) {
    const morph_policy_alloc *p = &a->allocs[x->alloc_first + k];
    len += snprintf(buf + len, size - len, k ? ",%d" : " @%d", p->node);
    if (slots && len < size)
      len += snprintf(buf + len, size - len, ":%d", p->slots);
  }
  return len;
}

void test_actions_format(const morph_policy_actions *a, int pieces, int slots, char *buf,
                         size_t size)
{
  size_t len = 0;
  buf[0] = '\0';
  for (int i = 0; i < a->n && len < size; i++) {
    const morph_policy_action *x = &a->v[i];
    const char *sep = i ? "; " : "";
    if (x->op == MORPH_POLICY_START && x->depends >= 0)
      len += snprintf(buf + len, size - len, "%sstart %ld %d dep=%d", sep, (long)x->job, x->to,
                      x->depends);
    else if (x->op == MORPH_POLICY_START)
      len += snprintf(buf + len, size - len, "%sstart %ld %d", sep, (long)x->job, x->to);
    else
      len += snprintf(buf + len, size - len, "%s%s %ld %d->%d", sep,
                      x->op == MORPH_POLICY_EXPAND ? "expand" : "shrink", (long)x->job, x->from,
                      x->to);
    if (pieces && len < size)
      len += format_pieces(a, x, slots, buf + len, size - len);
  }
}

static void set_params(morph_policy_params *p, const char *text)
{
  morph_policy_params_default(p);
  if (!text)
    return;
  char *copy = strdup(text), *save;
  for (char *kv = strtok_r(copy, " ", &save); kv; kv = strtok_r(NULL, " ", &save)) {
    char *eq = strchr(kv, '=');
    assert_non_null(eq);
    *eq = '\0';
    assert_int_equal(morph_policy_params_set(p, kv, eq + 1), MORPH_OK);
  }
  free(copy);
}

void test_place(const morph_policy_snapshot *snap, morph_policy_actions *a)
{
  morph_place *place;
  assert_int_equal(a->nallocs, 0); /* the policy counts; placement chooses */
  assert_int_equal(morph_place_create("firstfit", NULL, 0, &place), MORPH_OK);
  int rc = morph_place_actions(place, snap, a);
  if (rc != MORPH_OK)
    fail_msg("place: %s: %s", morph_strerror(rc), morph_place_errmsg(place));
  morph_place_destroy(place);
}

/* The actions must pass the independent check and apply to a clone. */
static void check_feasible(const test_snap *t, const morph_policy_actions *a)
{
  char msg[256];
  morph_policy_snapshot *clone;
  if (morph_policy_actions_check(&t->s, a, msg, sizeof(msg)) != MORPH_OK)
    fail_msg("infeasible actions: %s", msg);
  assert_int_equal(morph_policy_snapshot_clone(&t->s, &clone), MORPH_OK);
  if (morph_policy_snapshot_apply(clone, a, msg, sizeof(msg)) != MORPH_OK)
    fail_msg("apply failed: %s", msg);
  for (int i = 0; i < clone->nnodes; i++)
    assert_true(clone->nodes[i].used >= 0 && clone->nodes[i].used <= clone->nodes[i].slots);
  morph_policy_snapshot_free(clone);
}

void test_run_case(const policy_case *c)
{
  test_snap *t = calloc(1, sizeof(*t));
  morph_policy_params params;
  morph_policy *p;
  morph_policy_actions a;
  char got[2048];
  assert_non_null(t);
  test_snap_parse(t, c->snapshot);
  set_params(&params, c->params);
  assert_int_equal(morph_policy_create(c->policy, &params, &p), MORPH_OK);
  morph_policy_actions_init(&a);
  int rc = morph_policy_decide(p, &t->s, &a);
  if (rc != MORPH_OK)
    fail_msg("decide: %s: %s", morph_strerror(rc), morph_policy_errmsg(p));
  test_place(&t->s, &a);
  check_feasible(t, &a);
  test_actions_format(&a, strchr(c->expect, '@') != NULL, t->s.unit == MORPH_POLICY_UNIT_SLOT, got,
                      sizeof(got));
  if (strcmp(got, c->expect) != 0)
    fail_msg("%s: expected \"%s\", got \"%s\"", c->name, c->expect, got);
  morph_policy_actions_free(&a);
  morph_policy_destroy(p);
  free(t);
}

static void run_one(void **state)
{
  test_run_case((const policy_case *)*state);
}

int test_run_named(const char *group, const void *cases, size_t elem, int n,
                   void (*fn)(void **state), int argc, char **argv)
{
  struct CMUnitTest *tests = calloc((size_t)n, sizeof(*tests));
  int k = 0;
  for (int i = 0; i < n; i++) {
    const void *c = (const char *)cases + (size_t)i * elem;
    const char *name = *(const char *const *)c;
    if (argc > 1 && strcmp(argv[1], name) != 0)
      continue;
    tests[k++] = (struct CMUnitTest){.name = name, .test_func = fn, .initial_state = (void *)c};
  }
  if (k == 0) {
    fprintf(stderr, "no case named '%s' in %s\n", argc > 1 ? argv[1] : "", group);
    free(tests);
    return 1;
  }
  int rc = _cmocka_run_group_tests(group, tests, (size_t)k, NULL, NULL);
  free(tests);
  return rc;
}

int test_run_table(const char *group, const policy_case *cases, int n, int argc, char **argv)
{
  return test_run_named(group, cases, sizeof(*cases), n, run_one, argc, argv);
}
