#include "schedule.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "morph/error.h"
#include "proto/hosts.h"

static const char *const mech_names[] = {"auto", "live", "relaunch"};

int morph__launch_mech_parse(const char *name)
{
  for (int i = 0; i < 3; i++)
    if (!strcmp(name, mech_names[i]))
      return i;
  return -1;
}

const char *morph__launch_mech_name(int mechanism)
{
  return mechanism >= 0 && mechanism < 3 ? mech_names[mechanism] : "?";
}

/* Strict decimal integer in [lo, hi] covering the whole of s. */
static int parse_long(const char *s, long lo, long hi, long *out)
{
  char *end;
  errno = 0;
  if (!isdigit((unsigned char)*s))
    return -1;
  long v = strtol(s, &end, 10);
  if (errno || *end || v < lo || v > hi)
    return -1;
  *out = v;
  return 0;
}

static int parse_seconds(const char *s, double *out)
{
  char *end;
  if (!isdigit((unsigned char)*s) && *s != '.')
    return -1;
  double v = strtod(s, &end);
  if (*end || !isfinite(v) || v < 0)
    return -1;
  *out = v;
  return 0;
}

/* Parses the part after '@': "it<N>" or "t<S>". */
static int parse_when(const char *when, struct morph__launch_sched_entry *e)
{
  long it;
  if (!strncmp(when, "it", 2) && parse_long(when + 2, 0, LONG_MAX, &it) == 0) {
    e->by_time = 0, e->iteration = it;
    return 0;
  }
  if (when[0] == 't' && when[1] != 'i' && parse_seconds(when + 1, &e->at) == 0) {
    e->by_time = 1, e->iteration = -1;
    return 0;
  }
  return -1;
}

/* Copies text without surrounding blanks into buf; -1 if it does not fit. */
static int trim_copy(const char *text, char *buf, size_t size)
{
  while (isspace((unsigned char)*text))
    text++;
  size_t n = strlen(text);
  while (n > 0 && isspace((unsigned char)text[n - 1]))
    n--;
  if (n >= size)
    return -1;
  memcpy(buf, text, n);
  buf[n] = '\0';
  return 0;
}

static int entry_error(char *err, size_t errsize, const char *text, const char *why)
{
  snprintf(err, errsize, "schedule entry '%s': %s", text, why);
  return MORPH_EINVAL;
}

/* The first word: "SIZE@WHEN[:MECH]" or "move@WHEN[:MECH]". */
static int parse_head(char *buf, const char *entry, struct morph__launch_sched_entry *e, char *err,
                      size_t errsize)
{
  char *colon = strchr(buf, ':');
  if (colon) {
    *colon = '\0';
    if ((e->mechanism = morph__launch_mech_parse(colon + 1)) < 0)
      return entry_error(err, errsize, entry, "mechanism after ':' must be auto, live or relaunch");
  }
  char *at = strchr(buf, '@');
  if (!at)
    return entry_error(err, errsize, entry,
                       "expected SIZE@itN, SIZE@tS or move@itN (e.g. 4@it100, 2@t5.5)");
  *at = '\0';
  long size;
  if (!strcmp(buf, "move"))
    e->move = 1;
  else if (parse_long(buf, 1, 1000000, &size) != 0)
    return entry_error(err, errsize, entry,
                       "before '@' expected a size (a whole number >= 1) or 'move'");
  else
    e->size = (int)size;
  if (parse_when(at + 1, e) != 0)
    return entry_error(err, errsize, entry,
                       "after '@' expected it<iteration> (whole number) or t<seconds> (>= 0)");
  return MORPH_OK;
}

/* A clause's list "node2:2+node3" in the wire form "node2:2,node3". */
static int clause_parse(const char *clause, morph__hostlist *l)
{
  char wire[MORPH__LAUNCH_SCHED_HOSTS];
  snprintf(wire, sizeof wire, "%s", clause);
  for (char *p = wire; *p; p++)
    if (*p == '+')
      *p = ',';
    else if (*p == ',')
      return MORPH_EPARSE; /* commas separate entries */
  return morph__hostlist_parse(l, wire);
}

/* "onto LIST" or "off LIST", once each. */
static int parse_clause(const char *word, const char *list, const char *entry,
                        struct morph__launch_sched_entry *e, char *err, size_t errsize)
{
  char *dst = !strcmp(word, "onto") ? e->onto : !strcmp(word, "off") ? e->off : NULL;
  if (!dst)
    return entry_error(err, errsize, entry, "after the step expected 'onto HOSTS' or 'off HOSTS'");
  if (*dst)
    return entry_error(err, errsize, entry, "a host clause ('onto', 'off') given twice");
  morph__hostlist l;
  morph__hostlist_init(&l);
  int rc = list && strlen(list) < MORPH__LAUNCH_SCHED_HOSTS ? clause_parse(list, &l) : MORPH_EPARSE;
  morph__hostlist_free(&l);
  if (rc != MORPH_OK)
    return entry_error(err, errsize, entry,
                       "hosts expected as HOST[:COUNT] joined by '+' (e.g. node2:2+node3)");
  snprintf(dst, MORPH__LAUNCH_SCHED_HOSTS, "%s", list);
  return MORPH_OK;
}

/* 1 if a host is both in `off` and in `onto` (already parsed once). */
static int clauses_share_a_host(const struct morph__launch_sched_entry *e)
{
  morph__hostlist off, onto;
  morph__hostlist_init(&off);
  morph__hostlist_init(&onto);
  int shared = 0;
  if (clause_parse(e->off, &off) == MORPH_OK && clause_parse(e->onto, &onto) == MORPH_OK)
    for (int i = 0; i < onto.n; i++)
      shared |= morph__hostlist_on(&off, onto.v[i].host) > 0;
  morph__hostlist_free(&off);
  morph__hostlist_free(&onto);
  return shared;
}

int morph__launch_sched_parse_entry(const char *text, struct morph__launch_sched_entry *e,
                                    char *err, size_t errsize)
{
  char entry[512], buf[512], *save = NULL;
  if (trim_copy(text, entry, sizeof entry) != 0)
    return entry_error(err, errsize, text, "too long");
  memcpy(buf, entry, sizeof buf);
  memset(e, 0, sizeof *e);
  e->mechanism = -1;
  char *word = strtok_r(buf, " \t", &save);
  int rc = word ? parse_head(word, entry, e, err, errsize)
                : entry_error(err, errsize, entry, "empty entry");
  while (rc == MORPH_OK && (word = strtok_r(NULL, " \t", &save)))
    rc = parse_clause(word, strtok_r(NULL, " \t", &save), entry, e, err, errsize);
  if (rc == MORPH_OK && e->move && (!e->onto[0] || !e->off[0]))
    rc = entry_error(err, errsize, entry, "a move needs both 'off HOSTS' and 'onto HOSTS'");
  if (rc == MORPH_OK && e->move && clauses_share_a_host(e))
    rc = entry_error(err, errsize, entry, "a move onto a host it moves processes off");
  return rc;
}

static int push(struct morph__launch_sched *s, const struct morph__launch_sched_entry *e)
{
  if (s->n == s->cap) {
    int cap = s->cap ? 2 * s->cap : 8;
    void *p = realloc(s->e, (size_t)cap * sizeof *s->e);
    if (!p)
      return MORPH_ENOMEM;
    s->e = p, s->cap = cap;
  }
  s->e[s->n++] = *e;
  return MORPH_OK;
}

int morph__launch_sched_parse_list(struct morph__launch_sched *s, const char *list, char *err,
                                   size_t errsize)
{
  char *copy = strdup(list), *save = NULL;
  if (!copy)
    return MORPH_ENOMEM;
  int rc = MORPH_OK;
  for (char *tok = strtok_r(copy, ",", &save); tok && rc == MORPH_OK;
       tok = strtok_r(NULL, ",", &save)) {
    struct morph__launch_sched_entry e;
    rc = morph__launch_sched_parse_entry(tok, &e, err, errsize);
    if (rc == MORPH_OK)
      rc = push(s, &e);
  }
  free(copy);
  return rc;
}

/* Parses one line of a schedule file (comment already cut). */
static int parse_line(struct morph__launch_sched *s, char *line, const char *path, int lineno,
                      char *err, size_t errsize)
{
  char *hash = strchr(line, '#');
  if (hash)
    *hash = '\0';
  if (strspn(line, " \t\r\n") == strlen(line))
    return MORPH_OK;
  char why[256];
  int rc = morph__launch_sched_parse_list(s, line, why, sizeof why);
  if (rc != MORPH_OK)
    snprintf(err, errsize, "%s:%d: %s", path, lineno, why);
  return rc;
}

int morph__launch_sched_parse_file(struct morph__launch_sched *s, const char *path, char *err,
                                   size_t errsize)
{
  FILE *f = fopen(path, "r");
  if (!f) {
    snprintf(err, errsize, "cannot read schedule file %s: %s", path, strerror(errno));
    return MORPH_EIO;
  }
  char line[1024];
  int rc = MORPH_OK;
  for (int lineno = 1; rc == MORPH_OK && fgets(line, sizeof line, f); lineno++)
    rc = parse_line(s, line, path, lineno, err, errsize);
  fclose(f);
  return rc;
}

int morph__launch_sched_check(const struct morph__launch_sched *s, int min, int max, char *err,
                              size_t errsize)
{
  for (int i = 0; i < s->n; i++) {
    const struct morph__launch_sched_entry *e = &s->e[i];
    if (e->move || (e->size >= min && (max == 0 || e->size <= max)))
      continue;
    char text[64], limit[32] = "no max";
    morph__launch_sched_format(e, text, sizeof text);
    if (max)
      snprintf(limit, sizeof limit, "%d", max);
    snprintf(err, errsize, "schedule entry '%s': size %d outside the job's limits [%d, %s]", text,
             e->size, min, limit);
    return MORPH_EINVAL;
  }
  return MORPH_OK;
}

int morph__launch_sched_hosts(const char *clause, int count, char *buf, size_t size)
{
  buf[0] = '\0';
  if (!clause[0])
    return MORPH_OK;
  morph__hostlist l;
  morph__hostlist_init(&l);
  int rc = clause_parse(clause, &l);
  if (rc == MORPH_OK && l.n == 1 && !strchr(clause, ':'))
    l.v[0].count = count; /* one host without a count: all of the change */
  if (rc == MORPH_OK && morph__hostlist_total(&l) != count)
    rc = MORPH_EINVAL;
  if (rc == MORPH_OK)
    rc = morph__hostlist_format(&l, buf, size);
  morph__hostlist_free(&l);
  return rc == MORPH_OK ? MORPH_OK : MORPH_EINVAL;
}

/* How many processes a move moves: its "off" list's, a bare host 1. */
static int move_count(const struct morph__launch_sched_entry *e)
{
  morph__hostlist l;
  morph__hostlist_init(&l);
  int n = clause_parse(e->off, &l) == MORPH_OK ? morph__hostlist_total(&l) : 0;
  morph__hostlist_free(&l);
  return n;
}

int morph__launch_sched_wire(const struct morph__launch_sched_entry *e, int size, char *hosts,
                             char *from, size_t n)
{
  int change = e->move ? move_count(e) : e->size - size;
  int k = change < 0 ? -change : change;
  from[0] = '\0';
  if (e->move)
    return morph__launch_sched_hosts(e->off, k, from, n) == MORPH_OK
               ? morph__launch_sched_hosts(e->onto, k, hosts, n) : MORPH_EINVAL;
  return morph__launch_sched_hosts(change > 0 ? e->onto : e->off, k, hosts, n);
}

/* One entry's clauses at `size` processes before it. */
static int check_clause(const struct morph__launch_sched_entry *e, int size, char *err,
                        size_t errsize)
{
  char text[512], wire[512];
  morph__launch_sched_format(e, text, sizeof text);
  int change = e->move ? move_count(e) : e->size - size;
  if (!e->move && e->onto[0] && change == 0)
    return entry_error(err, errsize, text, "'onto' names joiners' hosts, but the size does not "
                       "change (a move is 'move@... off HOST onto HOST')");
  if (!e->move && e->onto[0] && change < 0)
    return entry_error(err, errsize, text, "'onto' names joiners' hosts, but this step shrinks "
                       "the job (use 'off')");
  if (!e->move && e->off[0] && change >= 0)
    return entry_error(err, errsize, text, "'off' names the hosts of leavers, but this step "
                       "does not shrink the job (use 'onto')");
  int n = change < 0 ? -change : change;
  const char *bad = NULL;
  if (morph__launch_sched_hosts(e->onto, n, wire, sizeof wire) != MORPH_OK)
    bad = "onto";
  else if (morph__launch_sched_hosts(e->off, n, wire, sizeof wire) != MORPH_OK)
    bad = "off";
  if (!bad)
    return MORPH_OK;
  char why[160];
  snprintf(why, sizeof why, "the hosts after '%s' must name %d process(es), the %s", bad, n,
           e->move ? "processes moved" : change > 0 ? "joiners" : "leavers");
  return entry_error(err, errsize, text, why);
}

int morph__launch_sched_check_clauses(const struct morph__launch_sched *s, int np, char *err,
                                      size_t errsize)
{
  int size = np;
  for (int i = 0; i < s->n; i++) {
    int rc = check_clause(&s->e[i], size, err, errsize);
    if (rc != MORPH_OK)
      return rc;
    if (!s->e[i].move)
      size = s->e[i].size;
  }
  return MORPH_OK;
}

/* The first host of `clause` that is not one of the job's, or NULL. */
static const char *unknown_host(const char *clause, const char *const *hosts, int n,
                                morph__hostlist *l)
{
  if (!clause[0] || clause_parse(clause, l) != MORPH_OK)
    return NULL;
  for (int i = 0; i < l->n; i++) {
    int j = 0;
    while (j < n && !morph__host_same(l->v[i].host, hosts[j]))
      j++;
    if (j == n)
      return l->v[i].host;
  }
  return NULL;
}

int morph__launch_sched_check_known(const struct morph__launch_sched *s, const char *const *hosts,
                                    int n, const char *from, char *err, size_t errsize)
{
  morph__hostlist l;
  morph__hostlist_init(&l);
  int rc = MORPH_OK;
  for (int i = 0; i < s->n && rc == MORPH_OK; i++) {
    const char *bad = unknown_host(s->e[i].onto, hosts, n, &l);
    if (!bad)
      bad = unknown_host(s->e[i].off, hosts, n, &l);
    if (!bad)
      continue;
    char text[512], have[256] = "";
    morph__launch_sched_format(&s->e[i], text, sizeof text);
    for (int j = 0; j < n && strlen(have) + strlen(hosts[j]) + 3 < sizeof have; j++)
      snprintf(have + strlen(have), sizeof have - strlen(have), "%s%s", j ? ", " : "", hosts[j]);
    snprintf(err, errsize, "schedule entry '%s': '%s' is not a host of the job (%s: %s)", text,
             bad, from, have);
    rc = MORPH_ENOENT;
  }
  morph__hostlist_free(&l);
  return rc;
}

void morph__launch_sched_format(const struct morph__launch_sched_entry *e, char *buf, size_t size)
{
  char head[32] = "move";
  if (!e->move)
    snprintf(head, sizeof head, "%d", e->size);
  int n = e->by_time ? snprintf(buf, size, "%s@t%g", head, e->at)
                     : snprintf(buf, size, "%s@it%lld", head, (long long)e->iteration);
  if (e->mechanism >= 0 && n > 0 && (size_t)n < size)
    n += snprintf(buf + n, size - (size_t)n, ":%s", morph__launch_mech_name(e->mechanism));
  if (e->off[0] && n > 0 && (size_t)n < size)
    n += snprintf(buf + n, size - (size_t)n, " off %s", e->off);
  if (e->onto[0] && n > 0 && (size_t)n < size)
    snprintf(buf + n, size - (size_t)n, " onto %s", e->onto);
}

void morph__launch_sched_free(struct morph__launch_sched *s)
{
  free(s->e);
  s->e = NULL;
  s->n = s->cap = 0;
}
