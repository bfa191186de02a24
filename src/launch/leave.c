#include "leave.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hostfile.h"
#include "morph/error.h"
#include "proto/hosts.h"

/* What one hostfile line becomes; the host's leavers are counted off in
 * `left` so that a host named twice is not emptied twice. Returns 1 if the
 * line keeps a host, 0 if not, or MORPH_EPARSE. */
static int one_line(const char *line, morph__hostlist *left, FILE *o, char *gone, size_t gonesize,
                    char *err, size_t errsize)
{
  struct morph__hostline h;
  int k = morph__hostline_parse(line, &h, err, errsize);
  if (k <= 0) {
    if (k == 0)
      fputs(line, o);
    return k == 0 ? 0 : MORPH_EPARSE;
  }
  int c = 0;
  for (int i = 0; i < left->n; i++)
    if (morph__host_same(left->v[i].host, h.host) && left->v[i].count > 0) {
      int take = h.slots > 0 && left->v[i].count > h.slots - c ? h.slots - c : left->v[i].count;
      c += take, left->v[i].count -= take;
    }
  if (c == 0) {
    fputs(line, o);
    return 1;
  }
  if (h.slots > c) {
    fprintf(o, "%s slots=%d\n", h.host, h.slots - c);
    return 1;
  }
  size_t n = strlen(gone);
  snprintf(gone + n, gonesize - n, "%s%s", n ? ", " : "", h.host);
  return 0;
}

/* Reads `in` through one_line into the text *buf; err names file and line. */
static int filter(const char *in, morph__hostlist *left, char **buf, char *gone, size_t gonesize,
                  char *err, size_t errsize)
{
  FILE *f = fopen(in, "r");
  if (!f) {
    snprintf(err, errsize, "cannot read the hostfile %s: %s", in, strerror(errno));
    return MORPH_EIO;
  }
  size_t len = 0, cap = 0;
  FILE *o = open_memstream(buf, &len);
  char *line = NULL, why[160];
  int rc = o ? MORPH_OK : MORPH_ENOMEM, kept = 0;
  for (int no = 1; rc == MORPH_OK && getline(&line, &cap, f) >= 0; no++) {
    int k = one_line(line, left, o, gone, gonesize, why, sizeof why);
    if (k < 0)
      snprintf(err, errsize, "%s:%d: %s", in, no, why), rc = k;
    kept += k > 0;
  }
  free(line);
  fclose(f);
  if (o && fclose(o) != 0 && rc == MORPH_OK)
    rc = MORPH_ENOMEM;
  if (rc == MORPH_OK && !kept) {
    snprintf(err, errsize, "%s: no host would be left", in);
    rc = MORPH_EINVAL;
  }
  return rc;
}

/* 1 if a line of the hostfile text names `host`. */
static int named(const char *text, const char *host)
{
  char line[1024], why[160];
  for (const char *p = text; p && *p; p += strcspn(p, "\n"), p += *p == '\n') {
    size_t n = strcspn(p, "\n");
    snprintf(line, sizeof line, "%.*s", (int)(n < sizeof line ? n : sizeof line - 1), p);
    struct morph__hostline h;
    if (morph__hostline_parse(line, &h, why, sizeof why) == 1 && morph__host_same(h.host, host))
      return 1;
  }
  return 0;
}

static int write_all(const char *out, const char *text, char *err, size_t errsize)
{
  FILE *f = fopen(out, "w");
  int ok = f && fputs(text, f) >= 0;
  if (f && fclose(f) != 0)
    ok = 0;
  if (!ok)
    snprintf(err, errsize, "cannot write %s: %s", out, strerror(errno));
  return ok ? MORPH_OK : MORPH_EIO;
}

int morph__launch_hostfile_leave(const char *in, const char *leave, const char *out, char *gone,
                                 size_t gonesize, char *err, size_t errsize)
{
  morph__hostlist left;
  morph__hostlist_init(&left);
  char *text = NULL;
  gone[0] = err[0] = '\0';
  int rc = morph__hostlist_parse(&left, leave);
  if (rc != MORPH_OK)
    snprintf(err, errsize, "the hosts that leave, '%.200s', are not a host list", leave);
  if (rc == MORPH_OK)
    rc = filter(in, &left, &text, gone, gonesize, err, errsize);
  for (int i = 0; rc == MORPH_OK && i < left.n; i++)
    if (left.v[i].count > 0) {
      snprintf(err, errsize, "%s: %s, where processes leave, is not a host of it (or has fewer slots)",
               in, left.v[i].host);
      rc = MORPH_ENOENT;
    }
  if (rc == MORPH_OK)
    rc = write_all(out, text, err, errsize);
  free(text);
  morph__hostlist_free(&left);
  if (rc != MORPH_OK)
    gone[0] = '\0';
  return rc;
}

int morph__launch_hostfile_join(const char *in, const char *join, const char *out, char *added,
                                size_t addedsize, char *err, size_t errsize)
{
  morph__hostlist j, none;
  morph__hostlist_init(&j);
  morph__hostlist_init(&none);
  char *text = NULL, gone[8];
  added[0] = err[0] = '\0';
  int rc = morph__hostlist_parse(&j, join);
  if (rc != MORPH_OK)
    snprintf(err, errsize, "the joiners' hosts, '%.200s', are not a host list", join);
  if (rc == MORPH_OK)
    rc = filter(in, &none, &text, gone, sizeof gone, err, errsize);
  size_t len = text ? strlen(text) : 0, used = 0;
  for (int i = 0; rc == MORPH_OK && i < j.n; i++) {
    if (named(text, j.v[i].host))
      continue; /* in the file, or appended for an earlier run of the list */
    char line[96];
    int k = snprintf(line, sizeof line, "%s slots=%d\n", j.v[i].host,
                     morph__hostlist_on(&j, j.v[i].host));
    char *t = realloc(text, len + (size_t)k + 1);
    if (!t) {
      rc = MORPH_ENOMEM;
      break;
    }
    memcpy(t + len, line, (size_t)k + 1);
    text = t, len += (size_t)k;
    k = snprintf(added + used, addedsize - used, "%s%s", used ? ", " : "", j.v[i].host);
    used += k > 0 && (size_t)k < addedsize - used ? (size_t)k : 0;
  }
  if (rc == MORPH_OK && added[0])
    rc = write_all(out, text, err, errsize);
  free(text);
  morph__hostlist_free(&j);
  if (rc != MORPH_OK)
    added[0] = '\0';
  return rc;
}
