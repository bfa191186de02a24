/*
 * Topologies, outage probabilities and link costs (morph/topology.h):
 * routes worked out by hand on small machines, every kind of file, and
 * every malformed file with its file, line and field.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "morph/topology.h"

static morph_topo *topo(void)
{
  morph_topo *t;
  assert_int_equal(morph_topo_create(&t), MORPH_OK);
  return t;
}

/* The route from u to v as "a>b b>c ...". */
static const char *route_str(morph_topo *t, int u, int v)
{
  static char buf[512];
  morph_link l[64];
  int n = morph_topo_route(t, u, v, l, 64);
  assert_true(n >= 0);
  buf[0] = '\0';
  for (int i = 0; i < n; i++)
    snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%d>%d", i ? " " : "", l[i].from, l[i].to);
  return buf;
}

static void torus_routes_dimension_order_shorter_way(void **state)
{
  (void)state;
  morph_topo *t = topo();
  assert_int_equal(morph_topo_torus(t, 4, 4, 4), MORPH_OK);
  assert_int_equal(morph_topo_nodes(t), 64);
  assert_string_equal(morph_topo_node_name(t, 5), "node5");
  int xyz[3];
  assert_int_equal(morph_topo_coords(t, 21, xyz), MORPH_OK); /* 21 = 1 + 4 * (1 + 4 * 1) */
  assert_int_equal(xyz[0] + xyz[1] + xyz[2], 3);
  /* 0 = (0,0,0) to 63 = (3,3,3): one step down each ring, x then y then z. */
  assert_string_equal(route_str(t, 0, 63), "0>3 3>15 15>63");
  /* x from 0 to 2 is a tie on a ring of 4: the way of growing x. */
  assert_string_equal(route_str(t, 0, 2), "0>1 1>2");
  assert_string_equal(route_str(t, 2, 0), "2>3 3>0");
  assert_int_equal(morph_topo_route(t, 7, 7, NULL, 0), 0);
  assert_int_equal(morph_topo_max_hops(t), 6);
  assert_int_equal(morph_topo_route(t, 0, 64, NULL, 0), MORPH_EINVAL);
  morph_topo_destroy(t);
}

static void torus_file_with_named_nodes(void **state)
{
  (void)state;
  morph_topo *t = topo();
  const char *text = "# a 2x2x1 torus, nodes in a chosen order\n"
                     "topology torus 2 2 1\nlink-cost 2\n"
                     "node d 1 1 0\nnode c 0 1 0\nnode b 1 0 0\nnode a 0 0 0   # last\n";
  assert_int_equal(morph_topo_parse(t, text, "t.topo"), MORPH_OK);
  assert_int_equal(morph_topo_kind_of(t), MORPH_TOPO_TORUS);
  assert_int_equal(morph_topo_find(t, "a"), 3);
  assert_int_equal(morph_topo_find(t, "zz"), MORPH_ENOENT);
  assert_string_equal(route_str(t, 3, 0), "3>2 2>0"); /* a (0,0) -> b (1,0) -> d (1,1) */
  morph_link l = {3, 2};
  assert_true(morph_link_cost_eq1(t, NULL, l, NULL) == 2); /* link-cost 2 */
  morph_topo_destroy(t);
}

static void fattree_and_flat_go_through_switches(void **state)
{
  (void)state;
  morph_topo *t = topo();
  assert_int_equal(morph_topo_fattree(t, 3, 2), MORPH_OK); /* nodes 0-5, leaves 6-8, spine 9 */
  assert_string_equal(route_str(t, 0, 1), "0>6 6>1");
  assert_string_equal(route_str(t, 0, 5), "0>6 6>9 9>8 8>5");
  assert_int_equal(morph_topo_parse(t, "# a hostfile\nhostA slots=2\nhostB\nhostC:4 \n", "hosts"),
                   MORPH_OK);
  assert_int_equal(morph_topo_kind_of(t), MORPH_TOPO_FLAT);
  assert_int_equal(morph_topo_nodes(t), 3);
  assert_int_equal(morph_topo_find(t, "hostC"), 2);
  assert_string_equal(route_str(t, 0, 2), "0>3 3>2");
  morph_topo_destroy(t);
}

static void graph_shortest_paths_lowest_first(void **state)
{
  (void)state;
  morph_topo *t = topo();
  const char *text = "topology graph\nnode a\nnode b\nnode c\nnode d\n"
                     "link a b\nlink b c\nlink a d\nlink d c\n";
  assert_int_equal(morph_topo_parse(t, text, "g.topo"), MORPH_OK);
  assert_string_equal(route_str(t, 0, 2), "0>1 1>2"); /* via b (1), not d (3) */
  assert_int_equal(morph_topo_max_hops(t), 2);
  morph_topo_destroy(t);
}

/* Each bad text fails with MORPH_EPARSE, a message containing `want`, and
 * leaves the 2x1x1 torus loaded first in place. */
static void bad(morph_topo *t, const char *text, const char *want)
{
  assert_int_equal(morph_topo_parse(t, text, "bad.topo"), MORPH_EPARSE);
  if (!strstr(morph_topo_errmsg(t), want))
    fail_msg("message '%s' lacks '%s'", morph_topo_errmsg(t), want);
  assert_int_equal(morph_topo_nodes(t), 2);
}

static void malformed_files_name_line_and_field(void **state)
{
  (void)state;
  morph_topo *t = topo();
  assert_int_equal(morph_topo_torus(t, 2, 1, 1), MORPH_OK);
  bad(t, "", "bad.topo:0: topology: no nodes");
  bad(t, "\nnode a 0 0 0\n", "bad.topo:2: keyword: 'node' before the topology line");
  bad(t, "topology cube 2\n", "bad.topo:1: kind: 'cube' is not torus, fattree, flat or graph");
  bad(t, "topology torus 2 x 2\n", "bad.topo:1: y: 'x' is not a whole number");
  bad(t, "topology torus 2 2\n", "bad.topo:1: torus: needs three sizes");
  bad(t, "topology torus 100 100 100\n", "more than 65536 nodes");
  bad(t, "topology torus 2 2 2\ntopology flat\n", "bad.topo:2: topology: given twice (first on line 1)");
  bad(t, "topology torus 2 1 1\nnode a 0 0 0\nnode b 1 0 7\n", "bad.topo:3: node 'b': z: 7 is outside 0..0");
  bad(t, "topology torus 2 1 1\nnode a 0 0 0\nnode b 0 0 0\n", "bad.topo:3: node: 'b' at 0 0 0, where 'a' (line 2) already is");
  bad(t, "topology torus 2 2 1\nnode a 0 0 0\nnode b 1 0 0\nnode c 0 1 0\n",
      "bad.topo:1: torus: 2x2x1 needs a node at each of its 4 coordinates; 1 1 0 has none");
  bad(t, "topology torus 2 1 1\nnode a 0 0 0\nnode a 1 0 0\n", "bad.topo:3: node: 'a' is defined twice");
  bad(t, "topology fattree 2 1\nnode a 0\nnode b 0\n", "bad.topo:3: node: 'b': leaf 0 already has its 1 nodes");
  bad(t, "topology fattree 2 1\nnode a 2\n", "bad.topo:2: node 'a': leaf: 2 is outside 0..1");
  bad(t, "topology flat\n", "bad.topo:1: node: a flat topology lists its nodes: none found");
  bad(t, "topology flat\nnode a 1 2 3\n", "bad.topo:2: node 'a': takes only a name");
  bad(t, "topology torus 2 1 1\nlink a b\n", "bad.topo:2: link: only a graph topology");
  bad(t, "topology graph\nnode a\nnode b\nlink a c\n", "bad.topo:4: link: no node named 'c'");
  bad(t, "topology graph\nnode a\nlink a a\n", "bad.topo:3: link: from 'a' to itself");
  bad(t, "topology graph\nnode a\nnode b\nnode c\nlink a b\n",
      "bad.topo:1: graph: disconnected: no route between 'c' and 'a'");
  bad(t, "topology torus 2 1 1\nlink-cost -1\n", "bad.topo:2: link-cost: '-1' is not a positive number");
  bad(t, "topology torus 2 1 1\nnodes a\n", "bad.topo:2: keyword: 'nodes' is not topology, node, link or link-cost");
  bad(t, "hostA slots=two\n", "bad.topo:1: slots: 'two' is not a whole number");
  bad(t, "hostA hostB\n", "bad.topo:1: host option: 'hostB' is not slots=N");
  bad(t, "hostA\nhostA\n", "bad.topo:2: node: 'hostA' is defined twice");
  assert_int_equal(morph_topo_load(t, "/nonexistent/x.topo"), MORPH_EIO);
  assert_non_null(strstr(morph_topo_errmsg(t), "/nonexistent/x.topo: cannot read"));
  assert_int_equal(morph_topo_torus(t, 0, 1, 1), MORPH_EINVAL);
  morph_topo_destroy(t);
}

static const char *write_file(const char *name, const char *text)
{
  static char path[4096];
  snprintf(path, sizeof path, "%s/%s", TEST_DIR, name);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
  return path;
}

static void faults_file_overrides_and_rejects(void **state)
{
  (void)state;
  morph_topo *t = topo();
  morph_faults *f;
  assert_int_equal(morph_topo_torus(t, 2, 2, 1), MORPH_OK);
  assert_int_equal(morph_faults_create(t, &f), MORPH_OK);
  assert_int_equal(morph_faults_set(f, 0, 0.5), MORPH_OK);
  assert_int_equal(morph_faults_set(f, 0, 1.5), MORPH_EINVAL);
  assert_int_equal(morph_faults_set(f, 9, 0.1), MORPH_EINVAL);
  const char *p = write_file("f1", "# node probability\nnode3 0.02\nnode1 0\n");
  assert_int_equal(morph_faults_load(f, t, p), MORPH_OK);
  assert_true(morph_faults_get(f, 0) == 0.5); /* not named: kept */
  assert_true(morph_faults_get(f, 3) == 0.02);
  assert_int_equal(morph_faults_count(f), 2);
  const struct { const char *text, *want; } cases[] = {
    {"node9 0.1\n", "f2:1: node: no node named 'node9'"},
    {"node1 abc\n", "f2:1: probability: 'abc' is not a number in 0..1"},
    {"node1 1.01\n", "f2:1: probability: '1.01'"},
    {"\nnode1 0.1\nnode1 0.2\n", "f2:3: node: 'node1' already given on line 2"},
    {"node1\n", "f2:1: line: expected NODE PROBABILITY"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    p = write_file("f2", cases[i].text);
    assert_int_equal(morph_faults_load(f, t, p), MORPH_EPARSE);
    if (!strstr(morph_faults_errmsg(f), cases[i].want))
      fail_msg("message '%s' lacks '%s'", morph_faults_errmsg(f), cases[i].want);
    assert_true(morph_faults_get(f, 3) == 0.02); /* unchanged */
  }
  morph_faults_destroy(f);
  morph_topo_destroy(t);
}

static double twice(const morph_topo *t, const morph_faults *f, morph_link l, const void *arg)
{
  (void)t, (void)f, (void)l, (void)arg;
  return 2;
}

static void eq1_link_and_route_costs(void **state)
{
  (void)state;
  morph_topo *t = topo();
  morph_faults *f;
  assert_int_equal(morph_topo_torus(t, 4, 1, 1), MORPH_OK); /* a ring 0-1-2-3 */
  assert_int_equal(morph_faults_create(t, &f), MORPH_OK);
  morph_faults_set(f, 1, 0.02);
  assert_true(morph_link_cost_eq1(t, f, (morph_link){0, 1}, NULL) == 101);
  assert_true(morph_link_cost_eq1(t, f, (morph_link){1, 2}, NULL) == 101);
  assert_true(morph_link_cost_eq1(t, f, (morph_link){2, 3}, NULL) == 1);
  double c = 3;
  assert_true(morph_link_cost_eq1(t, f, (morph_link){0, 1}, &c) == 303);
  assert_true(morph_route_cost(t, f, NULL, 0, 2) == 202); /* 0>1>2, both links touch node 1 */
  assert_true(morph_route_cost(t, f, NULL, 2, 0) == 2);   /* 2>3>0 */
  assert_true(morph_route_cost(t, f, NULL, 3, 3) == 0);
  morph_cost_model m = {twice, NULL};
  assert_true(morph_route_cost(t, f, &m, 0, 2) == 4);
  morph_faults_destroy(f);
  morph_topo_destroy(t);
}

int main(int argc, char **argv)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(torus_routes_dimension_order_shorter_way),
    cmocka_unit_test(torus_file_with_named_nodes),
    cmocka_unit_test(fattree_and_flat_go_through_switches),
    cmocka_unit_test(graph_shortest_paths_lowest_first),
    cmocka_unit_test(malformed_files_name_line_and_field),
    cmocka_unit_test(faults_file_overrides_and_rejects),
    cmocka_unit_test(eq1_link_and_route_costs),
  };
  if (argc > 1)
    cmocka_set_test_filter(argv[1]);
  return cmocka_run_group_tests(tests, NULL, NULL);
}
