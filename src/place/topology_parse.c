/*
 * The topology file (docs/topology.md): a `topology` line, then `node`,
 * `link` and `link-cost` lines; or a plain hostfile. Every error names the
 * file, the line and the field, and a failed parse leaves the topology as
 * it was.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "place/topology_internal.h"

#define MAXTOK 8

typedef struct node_line {
  char *name;
  int xyz[3]; /* torus coordinates, or xyz[0] = leaf for a fat tree */
  int line;
} node_line;

typedef struct link_line {
  char *a, *b;
  int line;
} link_line;

typedef struct parser {
  morph_topo *t; /* receives errmsg */
  const char *file;
  int line, topo_line;
  morph_topo_kind kind;
  int dims[3], leaves, per_leaf, hostfile;
  double cost;
  node_line *nodes;
  int nn, ncap;
  link_line *links;
  int nl, lcap;
} parser;

static int perr(parser *p, int line, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int perr(parser *p, int line, const char *field, const char *fmt, ...)
{
  char what[300];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  return morph__topo_fail(p->t, MORPH_EPARSE, "%s:%d: %s: %s", p->file, line, field, what);
}

static int whole(parser *p, const char *field, const char *s, long lo, long hi, int *out)
{
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (!*s || *end)
    return perr(p, p->line, field, "'%s' is not a whole number", s);
  if (errno || v < lo || v > hi)
    return perr(p, p->line, field, "%s is outside %ld..%ld", s, lo, hi);
  *out = (int)v;
  return MORPH_OK;
}

static int split(char *line, char **tok)
{
  int n = 0;
  char *hash = strchr(line, '#'), *save = NULL;
  if (hash)
    *hash = '\0';
  for (char *s = strtok_r(line, " \t\r\n", &save); s && n < MAXTOK; s = strtok_r(NULL, " \t\r\n", &save))
    tok[n++] = s;
  return n;
}

static int topology_line(parser *p, char **tok, int n)
{
  static const char *const dim[] = {"x", "y", "z"};
  if (p->kind != MORPH_TOPO_NONE)
    return perr(p, p->line, "topology", "given twice (first on line %d)", p->topo_line);
  p->topo_line = p->line;
  if (n < 2)
    return perr(p, p->line, "kind", "missing (torus, fattree, flat or graph)");
  if (!strcmp(tok[1], "torus")) {
    p->kind = MORPH_TOPO_TORUS;
    if (n != 5)
      return perr(p, p->line, "torus", "needs three sizes: topology torus X Y Z");
    for (int k = 0; k < 3; k++)
      if (whole(p, dim[k], tok[2 + k], 1, MORPH__TOPO_MAX_NODES, &p->dims[k]))
        return MORPH_EPARSE;
    if ((long)p->dims[0] * p->dims[1] * p->dims[2] > MORPH__TOPO_MAX_NODES)
      return perr(p, p->line, "torus", "%dx%dx%d is more than %d nodes", p->dims[0], p->dims[1],
                  p->dims[2], MORPH__TOPO_MAX_NODES);
    return MORPH_OK;
  }
  if (!strcmp(tok[1], "fattree")) {
    p->kind = MORPH_TOPO_FATTREE;
    if (n != 4)
      return perr(p, p->line, "fattree", "needs two sizes: topology fattree LEAVES NODES_PER_LEAF");
    if (whole(p, "leaves", tok[2], 1, MORPH__TOPO_MAX_NODES, &p->leaves) ||
        whole(p, "nodes per leaf", tok[3], 1, MORPH__TOPO_MAX_NODES, &p->per_leaf))
      return MORPH_EPARSE;
    if ((long)p->leaves * p->per_leaf > MORPH__TOPO_MAX_NODES)
      return perr(p, p->line, "fattree", "more than %d nodes", MORPH__TOPO_MAX_NODES);
    return MORPH_OK;
  }
  p->kind = !strcmp(tok[1], "flat") ? MORPH_TOPO_FLAT : !strcmp(tok[1], "graph") ? MORPH_TOPO_GRAPH
                                                                                 : MORPH_TOPO_NONE;
  if (p->kind == MORPH_TOPO_NONE)
    return perr(p, p->line, "kind", "'%s' is not torus, fattree, flat or graph", tok[1]);
  if (n != 2)
    return perr(p, p->line, tok[1], "takes no sizes (list the nodes on node lines)");
  return MORPH_OK;
}

static int push_node(parser *p, const char *name, const int *xyz)
{
  if (p->nn == MORPH__TOPO_MAX_NODES)
    return perr(p, p->line, "node", "more than %d nodes", MORPH__TOPO_MAX_NODES);
  if (p->nn == p->ncap) {
    int cap = p->ncap ? 2 * p->ncap : 64;
    node_line *nl = realloc(p->nodes, sizeof *nl * (size_t)cap);
    if (!nl)
      return morph__topo_fail(p->t, MORPH_ENOMEM, "out of memory");
    p->nodes = nl, p->ncap = cap;
  }
  node_line *l = &p->nodes[p->nn];
  if (!(l->name = strdup(name)))
    return morph__topo_fail(p->t, MORPH_ENOMEM, "out of memory");
  memcpy(l->xyz, xyz, sizeof l->xyz);
  l->line = p->line;
  p->nn++;
  return MORPH_OK;
}

static int node_line_(parser *p, char **tok, int n)
{
  static const char *const dim[] = {"x", "y", "z"};
  int xyz[3] = {0, 0, 0};
  char field[160];
  if (n < 2)
    return perr(p, p->line, "node", "missing name");
  snprintf(field, sizeof field, "node '%.100s'", tok[1]);
  switch (p->kind) {
  case MORPH_TOPO_TORUS:
    if (n != 5)
      return perr(p, p->line, field, "a torus node needs its coordinates: node NAME X Y Z");
    for (int k = 0; k < 3; k++) {
      char f[200];
      snprintf(f, sizeof f, "%s: %s", field, dim[k]);
      if (whole(p, f, tok[2 + k], 0, p->dims[k] - 1, &xyz[k]))
        return MORPH_EPARSE;
    }
    break;
  case MORPH_TOPO_FATTREE:
    if (n != 3)
      return perr(p, p->line, field, "a fat-tree node needs its leaf: node NAME LEAF");
    snprintf(field + strlen(field), sizeof field - strlen(field), ": leaf");
    if (whole(p, field, tok[2], 0, p->leaves - 1, &xyz[0]))
      return MORPH_EPARSE;
    break;
  default:
    if (n != 2)
      return perr(p, p->line, field, "takes only a name in a %s topology",
                  morph_topo_kind_name(p->kind));
  }
  return push_node(p, tok[1], xyz);
}

static int link_line_(parser *p, char **tok, int n)
{
  if (p->kind != MORPH_TOPO_GRAPH)
    return perr(p, p->line, "link", "only a graph topology lists its links");
  if (n != 3)
    return perr(p, p->line, "link", "needs two node names: link A B");
  if (p->nl == p->lcap) {
    int cap = p->lcap ? 2 * p->lcap : 64;
    link_line *ll = realloc(p->links, sizeof *ll * (size_t)cap);
    if (!ll)
      return morph__topo_fail(p->t, MORPH_ENOMEM, "out of memory");
    p->links = ll, p->lcap = cap;
  }
  link_line *l = &p->links[p->nl];
  l->a = strdup(tok[1]), l->b = strdup(tok[2]), l->line = p->line;
  p->nl++;
  return l->a && l->b ? MORPH_OK : morph__topo_fail(p->t, MORPH_ENOMEM, "out of memory");
}

static int cost_line(parser *p, char **tok, int n)
{
  char *end;
  if (n != 2)
    return perr(p, p->line, "link-cost", "needs one number: link-cost C");
  p->cost = strtod(tok[1], &end);
  if (*end || !(p->cost > 0) || p->cost > 1e6)
    return perr(p, p->line, "link-cost", "'%s' is not a positive number up to 1e6", tok[1]);
  return MORPH_OK;
}

/* "name", "name slots=N" (Open MPI) or "name:N" (MPICH). */
static int host_line(parser *p, char **tok, int n)
{
  char *colon = strchr(tok[0], ':');
  int slots, zero[3] = {0, 0, 0};
  if (colon) {
    *colon = '\0';
    if (whole(p, "slots", colon + 1, 1, 1 << 20, &slots))
      return MORPH_EPARSE;
  }
  for (int i = 1; i < n; i++) {
    char *eq = strchr(tok[i], '=');
    if (!eq || (strncmp(tok[i], "slots=", 6) && strncmp(tok[i], "max_slots=", 10) &&
                strncmp(tok[i], "max-slots=", 10)))
      return perr(p, p->line, "host option", "'%s' is not slots=N or max_slots=N", tok[i]);
    if (whole(p, "slots", eq + 1, 0, 1 << 20, &slots))
      return MORPH_EPARSE;
  }
  if (!*tok[0])
    return perr(p, p->line, "host", "empty name");
  return push_node(p, tok[0], zero);
}

static int directive(parser *p, char **tok, int n)
{
  if (p->kind == MORPH_TOPO_NONE && !p->hostfile) {
    if (!strcmp(tok[0], "node") || !strcmp(tok[0], "link") || !strcmp(tok[0], "link-cost"))
      return perr(p, p->line, "keyword", "'%s' before the topology line", tok[0]);
    if (strcmp(tok[0], "topology")) {
      p->hostfile = 1; /* no topology line first: a hostfile */
      p->kind = MORPH_TOPO_FLAT;
      p->topo_line = p->line;
    }
  }
  if (p->hostfile)
    return host_line(p, tok, n);
  if (!strcmp(tok[0], "topology"))
    return topology_line(p, tok, n);
  if (!strcmp(tok[0], "node"))
    return node_line_(p, tok, n);
  if (!strcmp(tok[0], "link"))
    return link_line_(p, tok, n);
  if (!strcmp(tok[0], "link-cost"))
    return cost_line(p, tok, n);
  return perr(p, p->line, "keyword", "'%s' is not topology, node, link or link-cost", tok[0]);
}

static int parse_text(parser *p, const char *text)
{
  int rc = MORPH_OK;
  const char *s = text;
  while (!rc && *s) {
    size_t len = strcspn(s, "\n");
    char *line = strndup(s, len), *tok[MAXTOK];
    if (!line)
      return morph__topo_fail(p->t, MORPH_ENOMEM, "out of memory");
    p->line++;
    int n = split(line, tok);
    if (n > 0)
      rc = directive(p, tok, n);
    free(line);
    s += len + (s[len] == '\n');
  }
  if (!rc && p->kind == MORPH_TOPO_NONE)
    rc = perr(p, p->line, "topology", "no nodes: the file is empty");
  return rc;
}

/* The torus's coordinate table: every coordinate taken exactly once, so
 * that every dimension-order route crosses real nodes. */
static int build_torus(parser *p, morph_topo *t)
{
  int *d = p->dims, total = d[0] * d[1] * d[2];
  if (!(t->xyz = malloc(sizeof *t->xyz * (size_t)t->n)))
    return morph__topo_fail(p->t, MORPH_ENOMEM, "out of memory");
  int *owner = malloc(sizeof(int) * (size_t)total), rc = MORPH_OK;
  if (!owner)
    return morph__topo_fail(p->t, MORPH_ENOMEM, "out of memory");
  for (int i = 0; i < total; i++)
    owner[i] = -1;
  for (int i = 0; !rc && i < p->nn; i++) {
    int *c = p->nodes[i].xyz, at = c[0] + d[0] * (c[1] + d[1] * c[2]);
    memcpy(t->xyz[i], c, sizeof t->xyz[i]);
    if (owner[at] >= 0)
      rc = perr(p, p->nodes[i].line, "node", "'%s' at %d %d %d, where '%s' (line %d) already is",
                p->nodes[i].name, c[0], c[1], c[2], p->nodes[owner[at]].name,
                p->nodes[owner[at]].line);
    owner[at] = i;
  }
  for (int i = 0; !rc && p->nn && i < total; i++)
    if (owner[i] < 0)
      rc = perr(p, p->topo_line, "torus", "%dx%dx%d needs a node at each of its %d coordinates; "
                "%d %d %d has none (dimension-order routes would cross it): %d node lines",
                d[0], d[1], d[2], total, i % d[0], i / d[0] % d[1], i / (d[0] * d[1]), p->nn);
  free(owner);
  if (!rc && (rc = morph__topo_torus_finish(t, p->nn == 0)) != MORPH_OK)
    morph__topo_fail(p->t, rc, "out of memory");
  return rc;
}

static int build_fattree(parser *p, morph_topo *t)
{
  int *count = calloc((size_t)p->leaves, sizeof(int)), rc = MORPH_OK;
  if (!count || !(t->leaf = malloc(sizeof(int) * (size_t)t->n))) {
    free(count);
    return morph__topo_fail(p->t, MORPH_ENOMEM, "out of memory");
  }
  t->leaves = p->leaves;
  for (int i = 0; !rc && i < t->n; i++) {
    t->leaf[i] = p->nn ? p->nodes[i].xyz[0] : i / p->per_leaf;
    if (++count[t->leaf[i]] > p->per_leaf)
      rc = perr(p, p->nodes[i].line, "node", "'%s': leaf %d already has its %d nodes",
                p->nodes[i].name, t->leaf[i], p->per_leaf);
  }
  free(count);
  morph__topo_tree_finish(t);
  return rc;
}

/* Adjacency lists from the link lines; a link names two distinct nodes. */
static int build_graph(parser *p, morph_topo *t)
{
  int n = t->n, rc = MORPH_OK, a = 0, b = 0;
  if (n > MORPH__TOPO_MAX_GRAPH)
    return perr(p, p->topo_line, "graph", "%d nodes: a graph topology has at most %d", n,
                MORPH__TOPO_MAX_GRAPH);
  int *deg = calloc((size_t)n, sizeof(int)), **adj = calloc((size_t)n, sizeof(int *));
  for (int i = 0; deg && adj && i < n; i++)
    if (!(adj[i] = malloc(sizeof(int) * (size_t)(2 * p->nl + 1))))
      rc = MORPH_ENOMEM;
  if (!deg || !adj)
    rc = MORPH_ENOMEM;
  for (int i = 0; !rc && i < p->nl; i++) {
    link_line *l = &p->links[i];
    int u = morph_topo_find(t, l->a), v = morph_topo_find(t, l->b);
    if (u < 0 || v < 0)
      rc = perr(p, l->line, "link", "no node named '%s'", u < 0 ? l->a : l->b);
    else if (u == v)
      rc = perr(p, l->line, "link", "from '%s' to itself", l->a);
    else
      adj[u][deg[u]++] = v, adj[v][deg[v]++] = u;
  }
  if (!rc && (rc = morph__topo_graph_finish(t, adj, deg, &a, &b)) == MORPH_EPARSE)
    perr(p, p->topo_line, "graph", "disconnected: no route between '%s' and '%s'", t->names[a],
         t->names[b]);
  if (rc == MORPH_ENOMEM)
    morph__topo_fail(p->t, rc, "out of memory");
  for (int i = 0; adj && i < n; i++)
    free(adj[i]);
  free(adj);
  free(deg);
  return rc;
}

/* Node count and names; the name lines are handed over to the topology. */
static int build_names(parser *p, morph_topo *t)
{
  long n = p->nn;
  if (!n && p->kind == MORPH_TOPO_TORUS)
    n = (long)p->dims[0] * p->dims[1] * p->dims[2];
  if (!n && p->kind == MORPH_TOPO_FATTREE)
    n = (long)p->leaves * p->per_leaf;
  if (!n)
    return perr(p, p->topo_line, "node", "a %s topology lists its nodes: none found",
                p->hostfile ? "hostfile" : morph_topo_kind_name(p->kind));
  t->kind = p->kind, t->n = (int)n, t->base_cost = p->cost;
  memcpy(t->dims, p->dims, sizeof t->dims);
  if (!(t->names = calloc((size_t)n, sizeof *t->names)))
    return morph__topo_fail(p->t, MORPH_ENOMEM, "out of memory");
  for (int i = 0; i < p->nn; i++) {
    t->names[i] = p->nodes[i].name;
    p->nodes[i].name = strdup(t->names[i]); /* the parser frees its own copy */
    if (!p->nodes[i].name)
      return morph__topo_fail(p->t, MORPH_ENOMEM, "out of memory");
  }
  int dup = 0, rc = morph__topo_index_names(t, &dup);
  if (rc == MORPH_EEXIST)
    return perr(p, p->nodes[dup].line, "node", "'%s' is defined twice", t->names[dup]);
  return rc ? morph__topo_fail(p->t, rc, "out of memory") : MORPH_OK;
}

static int build(parser *p, morph_topo *t)
{
  int rc = build_names(p, t);
  if (rc)
    return rc;
  switch (t->kind) {
  case MORPH_TOPO_TORUS: return build_torus(p, t);
  case MORPH_TOPO_FATTREE: return build_fattree(p, t);
  case MORPH_TOPO_GRAPH: return build_graph(p, t);
  default: morph__topo_tree_finish(t); return MORPH_OK;
  }
}

static void parser_free(parser *p)
{
  for (int i = 0; i < p->nn; i++)
    free(p->nodes[i].name);
  for (int i = 0; i < p->nl; i++) {
    free(p->links[i].a);
    free(p->links[i].b);
  }
  free(p->nodes);
  free(p->links);
}

int morph_topo_parse(morph_topo *t, const char *text, const char *name)
{
  if (!t || !text)
    return MORPH_EINVAL;
  parser p = {.t = t, .file = name ? name : "(text)", .cost = 1};
  morph_topo tmp = {0};
  int rc = parse_text(&p, text);
  if (!rc)
    rc = build(&p, &tmp);
  parser_free(&p);
  if (rc) {
    morph__topo_clear(&tmp);
    return rc;
  }
  morph__topo_take(t, &tmp);
  t->errmsg[0] = '\0';
  return MORPH_OK;
}

int morph_topo_load(morph_topo *t, const char *path)
{
  if (!t || !path)
    return MORPH_EINVAL;
  FILE *f = fopen(path, "r");
  if (!f)
    return morph__topo_fail(t, MORPH_EIO, "%.400s: cannot read: %s", path, strerror(errno));
  char *text = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(&text, &len);
  char buf[65536];
  size_t got;
  while (mem && (got = fread(buf, 1, sizeof buf, f)) > 0)
    fwrite(buf, 1, got, mem);
  int bad = ferror(f);
  fclose(f);
  if (mem)
    fclose(mem);
  if (!mem || !text || bad) {
    free(text);
    return morph__topo_fail(t, bad ? MORPH_EIO : MORPH_ENOMEM, "%.400s: cannot read", path);
  }
  int rc = morph_topo_parse(t, text, path);
  free(text);
  return rc;
}
