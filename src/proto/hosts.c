/*
 * Host lists (hosts.h).
 */
#include "proto/hosts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "morph/error.h"

void morph__hostlist_init(morph__hostlist *l)
{
  memset(l, 0, sizeof *l);
}

void morph__hostlist_free(morph__hostlist *l)
{
  free(l->v);
  morph__hostlist_init(l);
}

int morph__hostlist_add(morph__hostlist *l, const char *host, int count)
{
  if (!host || !*host || strlen(host) >= MORPH__HOST_MAX || count < 0)
    return MORPH_EINVAL;
  if (count == 0)
    return MORPH_OK;
  if (l->n > 0 && !strcmp(l->v[l->n - 1].host, host)) {
    l->v[l->n - 1].count += count;
    return MORPH_OK;
  }
  if (l->n == l->cap) {
    int cap = l->cap ? 2 * l->cap : 8;
    morph__host_run *v = realloc(l->v, (size_t)cap * sizeof *v);
    if (!v)
      return MORPH_ENOMEM;
    l->v = v, l->cap = cap;
  }
  snprintf(l->v[l->n].host, MORPH__HOST_MAX, "%s", host);
  l->v[l->n++].count = count;
  return MORPH_OK;
}

/* One entry "host" or "host:count" of length len. */
static int parse_entry(morph__hostlist *l, const char *s, size_t len)
{
  char entry[MORPH__HOST_MAX + 16];
  if (len == 0 || len >= sizeof entry)
    return MORPH_EPARSE;
  memcpy(entry, s, len);
  entry[len] = '\0';
  long count = 1;
  char *colon = strchr(entry, ':');
  if (colon) {
    char *end;
    *colon = '\0';
    count = strtol(colon + 1, &end, 10);
    if (end == colon + 1 || *end || count < 1 || count > 1000000)
      return MORPH_EPARSE;
  }
  int rc = morph__hostlist_add(l, entry, (int)count);
  return rc == MORPH_EINVAL ? MORPH_EPARSE : rc;
}

int morph__hostlist_parse(morph__hostlist *l, const char *text)
{
  l->n = 0;
  const char *s = text ? text : "";
  int rc = MORPH_OK;
  while (*s && rc == MORPH_OK) {
    size_t len = strcspn(s, ",");
    rc = parse_entry(l, s, len);
    s += len;
    if (*s == ',' && !*++s)
      rc = MORPH_EPARSE; /* a trailing comma: an empty entry */
  }
  if (rc != MORPH_OK)
    l->n = 0;
  return rc;
}

int morph__hostlist_format(const morph__hostlist *l, char *buf, size_t size)
{
  size_t len = 0;
  for (int i = 0; i < l->n; i++) {
    int w = l->v[i].count > 1
              ? snprintf(buf + len, size - len, "%s%s:%d", i ? "," : "", l->v[i].host,
                         l->v[i].count)
              : snprintf(buf + len, size - len, "%s%s", i ? "," : "", l->v[i].host);
    if (w < 0 || (size_t)w >= size - len) {
      if (size)
        buf[0] = '\0';
      return MORPH_EINVAL;
    }
    len += (size_t)w;
  }
  if (size)
    buf[len] = '\0';
  return size ? MORPH_OK : MORPH_EINVAL;
}

int morph__hostlist_total(const morph__hostlist *l)
{
  int t = 0;
  for (int i = 0; i < l->n; i++)
    t += l->v[i].count;
  return t;
}

int morph__hostlist_on(const morph__hostlist *l, const char *host)
{
  int t = 0;
  for (int i = 0; i < l->n; i++)
    if (morph__host_same(l->v[i].host, host))
      t += l->v[i].count;
  return t;
}

int morph__host_same(const char *a, const char *b)
{
  if (!strcmp(a, b))
    return 1;
  size_t la = strcspn(a, "."), lb = strcspn(b, ".");
  int one_short = !a[la] || !b[lb];
  return one_short && la == lb && !strncmp(a, b, la);
}
