/*
 * Which hosts of the pool are down (hostwatch.h). A probe is a check of
 * rms/gone for job 0, which no process belongs to: it answers MORPH_OK
 * when the host can be asked and MORPH_EIO when it cannot.
 */
#include "rms/hostwatch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "morph/error.h"

int morph__hostwatch_init(morph__hostwatch *w, int n, double now)
{
  w->n = 0;
  w->h = calloc((size_t)n + 1, sizeof *w->h);
  if (!w->h)
    return MORPH_ENOMEM;
  w->n = n;
  for (int i = 0; i < n; i++) {
    morph__gone_begin(&w->h[i].probe, NULL, now);
    w->h[i].next_at = now;
  }
  return MORPH_OK;
}

void morph__hostwatch_free(morph__hostwatch *w)
{
  free(w->h);
  w->h = NULL;
  w->n = 0;
}

void morph__hostwatch_suspect(morph__hostwatch *w, int i, const char *why, double now)
{
  if (i < 0 || i >= w->n || !w->h[i].seen)
    return;
  morph__hostwatch_host *x = &w->h[i];
  x->suspect = 1;
  snprintf(x->why, sizeof x->why, "%s", why);
  if (x->probe.answer != 1)
    x->next_at = now;
}

void morph__hostwatch_tick(morph__hostwatch *w, const morph__node *nodes, double now)
{
  for (int i = 0; i < w->n; i++) {
    morph__hostwatch_host *x = &w->h[i];
    if (x->probe.answer != 1 && x->next_at > 0 && now >= x->next_at) {
      x->next_at = 0;
      morph__gone_begin(&x->probe, nodes[i].host, now);
    }
    morph__gone_tick(&x->probe, 0, now);
  }
}

/* What host i's probe answered: *ev filled and 1 when its state changes. */
static int answered(morph__hostwatch_host *x, const morph__node *node, double now,
                    morph__backend_event *ev)
{
  int down = node->state == MORPH_POLICY_NODE_DOWN, change = 0;
  if (x->probe.answer == MORPH_OK) {
    x->seen = 1;
    change = down;
    ev->state = MORPH_POLICY_NODE_UP;
    snprintf(ev->text, sizeof ev->text, "it answers again");
  } else if (x->seen && (x->suspect || down)) {
    change = !down;
    ev->state = MORPH_POLICY_NODE_DOWN;
    snprintf(ev->text, sizeof ev->text, "it does not answer (%.200s)", x->why);
    x->next_at = now + MORPH__HOSTWATCH_DOWN_S;
  } else if (!x->seen) {
    x->next_at = now + MORPH__HOSTWATCH_UNSEEN_S;
  }
  x->suspect = 0;
  return change;
}

int morph__hostwatch_reaped(morph__hostwatch *w, const morph__node *nodes, pid_t pid, int ws,
                            double now, int *node, morph__backend_event *ev)
{
  *node = -1;
  for (int i = 0; i < w->n; i++) {
    morph__hostwatch_host *x = &w->h[i];
    if (!morph__gone_reaped(&x->probe, pid, ws, now))
      continue;
    if (x->probe.answer != 1 && answered(x, &nodes[i], now, ev))
      *node = i;
    return 1;
  }
  return 0;
}
