/*
 * Mapping: checks the input, builds the context, runs a strategy and falls
 * back to the default order when the strategy cannot place the job
 * (morph/map.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "place/map_internal.h"

static const morph__mapper *const mappers[MORPH_MAP_COUNT] = {
  [MORPH_MAP_DEFAULT] = &morph__map_default,
  [MORPH_MAP_RANDOM] = &morph__map_random,
  [MORPH_MAP_GREEDY] = &morph__map_greedy,
  [MORPH_MAP_TOFA] = &morph__map_tofa,
  [MORPH_MAP_BOX] = &morph__map_box,
};

const char *morph_map_strategy_name(morph_map_strategy s)
{
  return s >= 0 && s < MORPH_MAP_COUNT ? mappers[s]->name : "?";
}

int morph_map_strategy_parse(const char *name, morph_map_strategy *s)
{
  for (int i = 0; name && i < MORPH_MAP_COUNT; i++)
    if (!strcmp(name, mappers[i]->name)) {
      *s = (morph_map_strategy)i;
      return MORPH_OK;
    }
  return MORPH_EINVAL;
}

/* Every free node has a probability of 1: no strategy can avoid them. */
static int all_certain_to_fail(const morph__mapctx *c)
{
  for (int i = 0; i < c->navail; i++)
    if (morph__map_pf(c, c->avail[i]) < 1)
      return 0;
  return c->in->faults != NULL;
}

int morph_map_compute(morph_map_strategy s, const morph_map_input *in, int *node,
                      morph_map_report *report)
{
  morph__mapctx c;
  morph_map_report scratch;
  morph_map_report *rep = report ? report : &scratch;
  if (!in || !node || s < 0 || s >= MORPH_MAP_COUNT) {
    memset(rep, 0, sizeof *rep);
    snprintf(rep->msg, sizeof rep->msg, "mapping: bad arguments");
    return MORPH_EINVAL;
  }
  int rc = morph__map_ctx_init(&c, in, rep);
  int *tmp = rc ? NULL : malloc(sizeof(int) * (size_t)c.k);
  if (!rc && !tmp)
    rc = morph__map_say(&c, MORPH_ENOMEM, "out of memory");
  if (!rc) {
    rep->used = s;
    if (s != MORPH_MAP_DEFAULT && all_certain_to_fail(&c)) {
      morph__map_say(&c, MORPH_OK, "warning: all %d free nodes will fail (probability 1); %s "
                     "cannot avoid them: default order", c.navail, mappers[s]->name);
      rep->fallback = 1;
    } else if (mappers[s]->map(&c, tmp) != MORPH_OK) {
      char why[400];
      snprintf(why, sizeof why, "%.399s", rep->msg);
      morph__map_say(&c, MORPH_OK, "warning: %s failed (%s): default order", mappers[s]->name, why);
      rep->fallback = 1;
    }
    if (rep->fallback) {
      rep->used = MORPH_MAP_DEFAULT;
      morph__map_default.map(&c, tmp);
    }
    morph__map_summarize(&c, tmp);
    memcpy(node, tmp, sizeof(int) * (size_t)c.k);
  }
  free(tmp);
  morph__map_ctx_free(&c);
  return rc;
}
