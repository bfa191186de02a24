#include "common/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static enum morph__log_level level_from_env(void)
{
  const char *v = getenv("MORPH_LOG");
  if (!v)
    return MORPH_LOG_WARN;
  if (!strcmp(v, "error"))
    return MORPH_LOG_ERROR;
  if (!strcmp(v, "info"))
    return MORPH_LOG_INFO;
  if (!strcmp(v, "debug"))
    return MORPH_LOG_DEBUG;
  return MORPH_LOG_WARN;
}

int morph__log_enabled(enum morph__log_level level)
{
  /* The level is a process-wide setting read once; it is the only static
   * state of the library and holds no per-job information. */
  static int cached = -1;
  if (cached < 0)
    cached = (int)level_from_env();
  return (int)level <= cached;
}

void morph__log(enum morph__log_level level, const char *who, const char *fmt, ...)
{
  if (!morph__log_enabled(level))
    return;
  char line[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  fprintf(stderr, "morph[%s]: %s\n", who, line);
}

void morph__say(const morph__sayer *s, int level, const char *fmt, ...)
{
  if (level > s->verbose)
    return;
  char stamp[16] = "", line[1024];
  if (s->stamp) {
    time_t t = time(NULL);
    struct tm tm;
    strftime(stamp, sizeof stamp, " %H:%M:%S", localtime_r(&t, &tm));
  }
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  fprintf(stderr, "%s%s: %s\n", s->prog, stamp, line);
}
