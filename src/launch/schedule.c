#include "schedule.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "morph/error.h"

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

int morph__launch_sched_parse_entry(const char *text, struct morph__launch_sched_entry *e,
                                    char *err, size_t errsize)
{
  char entry[128], buf[128];
  if (trim_copy(text, entry, sizeof entry) != 0)
    return entry_error(err, errsize, text, "too long");
  memcpy(buf, entry, sizeof buf);
  memset(e, 0, sizeof *e);
  e->mechanism = -1;
  char *colon = strchr(buf, ':');
  if (colon) {
    *colon = '\0';
    if ((e->mechanism = morph__launch_mech_parse(colon + 1)) < 0)
      return entry_error(err, errsize, entry, "mechanism after ':' must be auto, live or relaunch");
  }
  char *at = strchr(buf, '@');
  if (!at)
    return entry_error(err, errsize, entry, "expected SIZE@itN or SIZE@tS (e.g. 4@it100, 2@t5.5)");
  *at = '\0';
  long size;
  if (parse_long(buf, 1, 1000000, &size) != 0)
    return entry_error(err, errsize, entry, "size before '@' must be a whole number >= 1");
  e->size = (int)size;
  if (parse_when(at + 1, e) != 0)
    return entry_error(err, errsize, entry,
                       "after '@' expected it<iteration> (whole number) or t<seconds> (>= 0)");
  return MORPH_OK;
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
    if (e->size >= min && (max == 0 || e->size <= max))
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

void morph__launch_sched_format(const struct morph__launch_sched_entry *e, char *buf, size_t size)
{
  int n = e->by_time ? snprintf(buf, size, "%d@t%g", e->size, e->at)
                     : snprintf(buf, size, "%d@it%lld", e->size, (long long)e->iteration);
  if (e->mechanism >= 0 && n > 0 && (size_t)n < size)
    snprintf(buf + n, size - (size_t)n, ":%s", morph__launch_mech_name(e->mechanism));
}

void morph__launch_sched_free(struct morph__launch_sched *s)
{
  free(s->e);
  s->e = NULL;
  s->n = s->cap = 0;
}
