#include "common/hostfile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "morph/error.h"

#define SPACE " \t\r\n"

/* A count after ':' or "slots=": digits only, up to the end of its word. */
static int count(const char *s, size_t len, int *slots)
{
  char *end;
  long v = strtol(s, &end, 10);
  if (len == 0 || end != s + len || v < 1 || v > MORPH__HOSTLINE_MAX_SLOTS)
    return MORPH_EPARSE;
  *slots = (int)v;
  return MORPH_OK;
}

int morph__hostline_parse(const char *line, struct morph__hostline *out, char *err,
                          size_t errsize)
{
  size_t stop = strcspn(line, "#"); /* the comment is not read */
  const char *s = line + strspn(line, SPACE);
  if (s >= line + stop)
    return 0;
  size_t name = strcspn(s, SPACE ":#");
  if (name >= sizeof out->host) {
    snprintf(err, errsize, "host name longer than %zu characters", sizeof out->host - 1);
    return MORPH_EPARSE;
  }
  memcpy(out->host, s, name);
  out->host[name] = '\0';
  out->slots = 0;
  const char *w = s + name;
  if (*w == ':' && count(w + 1, strcspn(w + 1, SPACE "#"), &out->slots) != MORPH_OK)
    goto bad;
  while (w < line + stop) {
    w += strcspn(w, SPACE "#");
    w += strspn(w, SPACE);
    size_t len = strcspn(w, SPACE "#");
    if (w < line + stop && !strncmp(w, "slots=", 6) && count(w + 6, len - 6, &out->slots))
      goto bad;
  }
  return 1;
bad:
  snprintf(err, errsize, "slots: expected a number from 1 to %d", MORPH__HOSTLINE_MAX_SLOTS);
  return MORPH_EPARSE;
}
