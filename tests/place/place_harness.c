/* Test harness of the placement stage; see place_harness.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "place_harness.h"

static int index_of(const morph_policy_job *v, int n, long id)
{
  for (int i = 0; i < n; i++)
    if (v[i].id == id)
      return i;
  return n; /* out of range: the placement must reject it */
}

static void push(morph_policy_actions *a, morph_policy_action act)
{
  if (a->n == a->cap) {
    a->cap = a->cap ? 2 * a->cap : 16;
    a->v = realloc(a->v, sizeof(*a->v) * (size_t)a->cap);
    assert_non_null(a->v);
  }
  a->v[a->n++] = act;
}

/* One "op J ..." statement. */
static void parse_one(const test_snap *t, char *st, morph_policy_actions *a)
{
  char op[16], rest[64] = "";
  long id;
  int x = 0, y = 0;
  assert_true(sscanf(st, " %15s %ld %63[^\n]", op, &id, rest) >= 2);
  morph_policy_action act = {.job = id, .depends = -1};
  if (strcmp(op, "start") == 0) {
    act.op = MORPH_POLICY_START;
    act.job_index = index_of(t->s.pending, t->s.npending, id);
    assert_int_equal(sscanf(rest, "%d dep=%d", &act.to, &act.depends) >= 1, 1);
  } else if (strcmp(op, "migrate") == 0) {
    act.op = MORPH_POLICY_MIGRATE;
    act.job_index = index_of(t->s.running, t->s.nrunning, id);
  } else {
    act.op = strcmp(op, "expand") == 0 ? MORPH_POLICY_EXPAND : MORPH_POLICY_SHRINK;
    assert_true(act.op == MORPH_POLICY_EXPAND || strcmp(op, "shrink") == 0);
    act.job_index = index_of(t->s.running, t->s.nrunning, id);
    assert_int_equal(sscanf(rest, "%d->%d", &x, &y), 2);
    act.from = x;
    act.to = y;
    act.release = strstr(rest, " up") ? MORPH_POLICY_RELEASE_UP : MORPH_POLICY_RELEASE_ANY;
  }
  push(a, act);
}

void place_actions_parse(const test_snap *t, const char *text, morph_policy_actions *a)
{
  a->n = a->nallocs = 0;
  char *copy = strdup(text), *save;
  for (char *st = strtok_r(copy, ";", &save); st; st = strtok_r(NULL, ";", &save))
    parse_one(t, st, a);
  free(copy);
}

/* "ECODE: words": the error and words of its message. */
static void expect_error(const place_case *c, int rc, const morph_place *p,
                         const morph_policy_actions *a)
{
  char want[32];
  assert_int_equal(sscanf(c->expect, "%31[A-Z]:", want), 1);
  if (rc == MORPH_OK || strcmp(morph_err_name(rc) + strlen("MORPH_"), want) != 0)
    fail_msg("%s: expected %s, got %s (%s)", c->name, want, morph_err_name(rc),
             morph_place_errmsg(p));
  const char *words = strchr(c->expect, ':') + 2;
  if (!strstr(morph_place_errmsg(p), words))
    fail_msg("%s: message \"%s\" lacks \"%s\"", c->name, morph_place_errmsg(p), words);
  assert_int_equal(a->nallocs, 0);
  for (int i = 0; i < a->n; i++)
    assert_int_equal(a->v[i].alloc_count, 0);
}

static void expect_placed(const place_case *c, int rc, const morph_place *p, const test_snap *t,
                          const morph_policy_actions *a)
{
  char got[2048], msg[256];
  if (rc != MORPH_OK)
    fail_msg("%s: place: %s: %s", c->name, morph_strerror(rc), morph_place_errmsg(p));
  if (morph_policy_actions_check(&t->s, a, msg, sizeof(msg)) != MORPH_OK)
    fail_msg("%s: the referee rejects the placement: %s", c->name, msg);
  test_actions_format(a, 1, t->s.unit == MORPH_POLICY_UNIT_SLOT, got, sizeof(got));
  if (strcmp(got, c->expect) != 0)
    fail_msg("%s: expected \"%s\", got \"%s\"", c->name, c->expect, got);
}

/* "k=v k=v" into params (pointing into text); returns their number. */
static int split_params(const char *s, char *text, size_t size, morph_place_param *params, int max)
{
  int n = 0;
  snprintf(text, size, "%s", s ? s : "");
  for (char *save, *tok = strtok_r(text, " ", &save); tok && n < max;
       tok = strtok_r(NULL, " ", &save)) {
    char *eq = strchr(tok, '=');
    assert_non_null(eq);
    *eq = '\0';
    params[n++] = (morph_place_param){tok, eq + 1};
  }
  return n;
}

void place_run_case(const place_case *c)
{
  test_snap *t = calloc(1, sizeof(*t));
  assert_non_null(t);
  test_snap_parse(t, c->snapshot);
  morph_policy_actions a;
  morph_policy_actions_init(&a);
  place_actions_parse(t, c->actions, &a);
  morph_place *p;
  morph_place_param params[8];
  char text[512];
  int n = split_params(c->params, text, sizeof text, params, 8);
  assert_int_equal(morph_place_create(c->strategy, params, n, &p), MORPH_OK);
  int rc = morph_place_actions(p, &t->s, &a);
  if (strchr(c->expect, ':') && c->expect[0] >= 'A' && c->expect[0] <= 'Z')
    expect_error(c, rc, p, &a);
  else
    expect_placed(c, rc, p, t, &a);
  morph_place_destroy(p);
  morph_policy_actions_free(&a);
  free(t);
}

static void run_one(void **state)
{
  place_run_case((const place_case *)*state);
}

int place_run_table(const char *group, const place_case *cases, int n, int argc, char **argv)
{
  return test_run_named(group, cases, sizeof(*cases), n, run_one, argc, argv);
}
