/*
 * The test hook MORPH_TEST_CRASH_AT=<point> (docs/testing.md): morphd
 * kills itself with SIGKILL the first time it reaches the named point, so
 * that a test can check what a restarted morphd makes of a crash exactly
 * there. `morph daemon` reads the variable once and refuses a name not in
 * the list below.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "morph/error.h"
#include "rms/morphd.h"

/* In the order a submission, a start, and a shrink that frees the slots of
 * a waiting start reach them. */
static const char *const points[] = {
  "submit-received",      /* a submission read, nothing written */
  "submit-journaled",     /* committed, not answered */
  "submit-answered",      /* answered */
  "start-journaled",      /* a start committed, its morph run not forked */
  "start-forked",         /* forked, its pid not journaled */
  "start-pid-journaled",  /* pid committed */
  "shrink-journaled",     /* a shrink (and the start that waits for it) committed, RESIZE not sent */
  "shrink-sent",          /* RESIZE sent */
  "shrink-ack-heard",     /* the job's ACK read, not journaled */
  "shrink-ack-journaled", /* the shrink done and its release committed, the backend not asked */
  "release-heard",        /* the backend says the slots are free, not journaled */
  "release-journaled",    /* that committed, the waiting start not begun */
  "waiter-journaled",     /* the waiting start committed, its morph run not forked */
  "waiter-forked",        /* forked, its pid not journaled */
  "waiter-pid-journaled", /* pid committed */
};

int morph__crash_known(const char *point)
{
  for (size_t i = 0; i < sizeof points / sizeof *points; i++)
    if (!strcmp(points[i], point))
      return 1;
  return 0;
}

void morph__crash_names(char *buf, size_t size)
{
  size_t len = 0;
  buf[0] = '\0';
  for (size_t i = 0; i < sizeof points / sizeof *points && len < size; i++) {
    int n = snprintf(buf + len, size - len, "%s%s", i ? " " : "", points[i]);
    len += n > 0 ? (size_t)n : 0;
  }
}

void morph__crash_point(const morph__daemon *d, const char *who, const char *step)
{
  const char *at = d->opt.crash_at;
  size_t n = strlen(who);
  if (!at || strncmp(at, who, n) != 0 || at[n] != '-' || strcmp(at + n + 1, step) != 0)
    return;
  morph__say(&d->log, 0, "MORPH_TEST_CRASH_AT=%s: killing myself (SIGKILL)", at);
  raise(SIGKILL);
}
