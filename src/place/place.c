/* The placement object: creation by strategy name with its parameters,
 * the names table, and the message of the last failure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static const morph__place_ops *lookup(const char *name)
{
  for (int i = 0; name && i < morph__place_count; i++)
    if (strcmp(morph__place_table[i]->name, name) == 0)
      return morph__place_table[i];
  return NULL;
}

/* Makes the strategy's context; a strategy without create takes no
 * parameter. */
static int make_ctx(const morph__place_ops *ops, const morph_place_param *params, int nparams,
                    void **ctx, char *buf, size_t size)
{
  *ctx = NULL;
  if (nparams < 0 || (nparams > 0 && !params)) {
    snprintf(buf, size, "placement %s: %d parameters and no array", ops->name, nparams);
    return MORPH_EINVAL;
  }
  if (ops->create)
    return ops->create(params, nparams, ctx, buf, size);
  if (nparams > 0) {
    snprintf(buf, size, "placement %s takes no parameters (got '%s')", ops->name,
             params[0].key ? params[0].key : "(null)");
    return MORPH_EINVAL;
  }
  return MORPH_OK;
}

int morph_place_create_error(const char *name, const morph_place_param *params, int nparams,
                             char *buf, size_t size)
{
  char dummy[1];
  if (!buf || size == 0) {
    buf = dummy;
    size = sizeof dummy;
  }
  buf[0] = '\0';
  const morph__place_ops *ops = lookup(name);
  if (!ops) {
    int n = snprintf(buf, size, "unknown placement '%s'; known: ", name ? name : "(null)");
    if (n >= 0 && (size_t)n < size)
      morph_place_names(buf + n, size - (size_t)n);
    return MORPH_EINVAL;
  }
  void *ctx;
  int rc = make_ctx(ops, params, nparams, &ctx, buf, size);
  if (rc == MORPH_OK && ops->destroy)
    ops->destroy(ctx);
  return rc;
}

int morph_place_create(const char *name, const morph_place_param *params, int nparams,
                       morph_place **out)
{
  if (!out)
    return MORPH_EINVAL;
  *out = NULL;
  const morph__place_ops *ops = lookup(name);
  if (!ops)
    return MORPH_EINVAL;
  morph_place *p = calloc(1, sizeof *p);
  if (!p)
    return MORPH_ENOMEM;
  p->ops = ops;
  int rc = make_ctx(ops, params, nparams, &p->ctx, p->errmsg, sizeof p->errmsg);
  if (rc) {
    free(p);
    return rc;
  }
  p->errmsg[0] = '\0';
  *out = p;
  return MORPH_OK;
}

void morph_place_destroy(morph_place *place)
{
  if (!place)
    return;
  if (place->ops->destroy)
    place->ops->destroy(place->ctx);
  free(place->s.free);
  free(place->s.touched);
  free(place->s.started);
  free(place->s.serves);
  free(place->s.reuse);
  free(place->s.left);
  free(place);
}

const char *morph_place_name(const morph_place *place)
{
  return place ? place->ops->name : "";
}

int morph_place_failing(const morph_place *place, int node)
{
  return place && place->ops->failing ? place->ops->failing(place->ctx, node) : 0;
}

int morph_place_outage_set(morph_place *place, int node, double p)
{
  if (!place)
    return MORPH_EINVAL;
  return place->ops->outage_set ? place->ops->outage_set(place->ctx, node, p) : MORPH_ENOSYS;
}

const char *morph_place_node_name(const morph_place *place, int node)
{
  return place && place->ops->node_name ? place->ops->node_name(place->ctx, node) : NULL;
}

const char *morph_place_errmsg(const morph_place *place)
{
  return place ? place->errmsg : "";
}

size_t morph_place_names(char *buf, size_t size)
{
  size_t len = 0;
  if (buf && size)
    buf[0] = '\0';
  else
    size = 0;
  for (int i = 0; i < morph__place_count; i++) {
    const char *name = morph__place_table[i]->name;
    if (len < size)
      snprintf(buf + len, size - len, "%s%s", i ? ", " : "", name);
    len += strlen(name) + (i ? 2 : 0);
  }
  return len;
}

int morph_place_count(void)
{
  return morph__place_count;
}

const char *morph_place_table_name(int i)
{
  return i >= 0 && i < morph__place_count ? morph__place_table[i]->name : NULL;
}

const char *morph_place_table_description(int i)
{
  return i >= 0 && i < morph__place_count ? morph__place_table[i]->description : NULL;
}
