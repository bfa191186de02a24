/* morphd's loop and decision times and memory, one line a minute (loopstat.h). */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "common/clock.h"
#include "rms/loopstat.h"

void morph__loopstat_add(morph__loopstat *st, int decide, double ms)
{
  morph__loopstat_kind *k = decide ? &st->decide : &st->turn;
  if (k->n < MORPH__LOOPSTAT_MAX)
    k->ms[k->n] = (float)ms;
  k->n++;
  if (ms > k->max)
    k->max = ms;
}

static int by_value(const void *a, const void *b)
{
  float x = *(const float *)a, y = *(const float *)b;
  return (x > y) - (x < y);
}

/* The q-quantile of the samples kept (sorted in place: the window ends). */
static double quantile(morph__loopstat_kind *k, double q)
{
  long n = k->n < MORPH__LOOPSTAT_MAX ? k->n : MORPH__LOOPSTAT_MAX;
  if (n == 0)
    return 0;
  qsort(k->ms, (size_t)n, sizeof k->ms[0], by_value);
  long i = (long)(q * (double)(n - 1) + 0.5);
  return k->ms[i];
}

static double rss_mb(void)
{
  long pages = 0, rss = 0;
  FILE *f = fopen("/proc/self/statm", "r");
  if (f && fscanf(f, "%ld %ld", &pages, &rss) != 2)
    rss = 0;
  if (f)
    fclose(f);
  return (double)rss * (double)sysconf(_SC_PAGESIZE) / (1024.0 * 1024.0);
}

void morph__loopstat_tick(morph__loopstat *st, const morph__sayer *log)
{
  double now = morph__now();
  if (st->since == 0)
    st->since = now;
  if (now - st->since < MORPH__LOOPSTAT_WINDOW_S)
    return;
  morph__loopstat_kind *t = &st->turn, *d = &st->decide;
  double t50 = quantile(t, 0.5), t99 = quantile(t, 0.99);
  double d50 = quantile(d, 0.5), d99 = quantile(d, 0.99);
  morph__say(log, 1, "loop: %.0f s: %ld turns, p50 %.3f ms, p99 %.3f ms, max %.3f ms; "
             "%ld decisions, p50 %.3f ms, p99 %.3f ms, max %.3f ms; RSS %.1f MB",
             now - st->since, t->n, t50, t99, t->max, d->n, d50, d99, d->max, rss_mb());
  t->n = d->n = 0;
  t->max = d->max = 0;
  st->since = now;
}
