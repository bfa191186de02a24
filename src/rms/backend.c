/*
 * The table of backends and the calls through an instance's ops (an op a
 * backend leaves NULL is not its to do: MORPH_ENOSYS).
 */
#include "rms/backend.h"

#include <stdio.h>
#include <string.h>

#include "morph/error.h"

typedef struct entry {
  const char *name;
  const morph__backend_ops *ops; /* NULL: not in this build */
  const char *why;
} entry;

static const entry table[] = {
  {"embedded", &morph__embedded_ops, NULL},
#ifdef MORPH_HAVE_SLURM
  {"slurm", &morph__slurm_ops, NULL},
#else
  {"slurm", NULL, "the slurm backend is not built (libslurm-dev was not found); use --backend embedded"},
#endif
};

#define NTABLE ((int)(sizeof table / sizeof table[0]))

void morph__backend_names(char *buf, size_t size)
{
  size_t len = 0;
  if (size)
    buf[0] = '\0';
  for (int i = 0; i < NTABLE && len < size; i++) {
    int w = snprintf(buf + len, size - len, "%s%s", i ? ", " : "", table[i].name);
    len += w > 0 ? (size_t)w : size;
  }
}

int morph__backend_open(const char *name, const morph__backend_conf *conf, morph__backend **out,
                        char *err, size_t errsize)
{
  *out = NULL;
  for (int i = 0; i < NTABLE; i++) {
    if (strcmp(name, table[i].name) != 0)
      continue;
    if (!table[i].ops)
      return snprintf(err, errsize, "%s", table[i].why), MORPH_ENOSYS;
    return table[i].ops->open(conf, out, err, errsize);
  }
  char names[128];
  morph__backend_names(names, sizeof names);
  snprintf(err, errsize, "unknown backend '%s' (%s)", name, names);
  return MORPH_EINVAL;
}

const char *morph__backend_name(const morph__backend *b)
{
  return b->ops->name;
}

void morph__backend_close(morph__backend *b)
{
  if (b)
    b->ops->close(b);
}

int morph__backend_read(morph__backend *b, morph__backend_view *v)
{
  memset(v, 0, sizeof *v);
  return b->ops->read ? b->ops->read(b, v) : MORPH_ENOSYS;
}

int morph__backend_start(morph__backend *b, morph__job *job)
{
  return b->ops->start ? b->ops->start(b, job) : MORPH_ENOSYS;
}

int morph__backend_claim(morph__backend *b, morph__job *job, char *err, size_t errsize)
{
  if (!b->ops->claim)
    return snprintf(err, errsize, "the %s backend starts its jobs itself", b->ops->name), MORPH_ENOSYS;
  return b->ops->claim(b, job, err, errsize);
}

int morph__backend_starts_jobs(const morph__backend *b)
{
  return b->ops->start != NULL;
}

int morph__backend_hold(morph__backend *b, const morph__job *job, const morph__alloc *pieces)
{
  return b->ops->hold ? b->ops->hold(b, job, pieces) : MORPH_ENOSYS;
}

int morph__backend_grow(morph__backend *b, const morph__job *job, int req,
                        const morph__alloc *pieces)
{
  return b->ops->grow ? b->ops->grow(b, job, req, pieces) : MORPH_ENOSYS;
}

int morph__backend_release(morph__backend *b, const morph__job *job, int req,
                           const morph__alloc *pieces)
{
  return b->ops->release ? b->ops->release(b, job, req, pieces) : MORPH_ENOSYS;
}

void morph__backend_drop(morph__backend *b, const morph__job *job)
{
  if (b->ops->drop)
    b->ops->drop(b, job);
}

int morph__backend_stop(morph__backend *b, const morph__job *job)
{
  return b->ops->stop ? b->ops->stop(b, job) : MORPH_ENOSYS;
}

int morph__backend_adopt(morph__backend *b, morph__job *job, char *err, size_t errsize)
{
  return b->ops->adopt ? b->ops->adopt(b, job, err, errsize) : MORPH_OK;
}

int morph__backend_ended_by(morph__backend *b, const morph__job *job, char *text, size_t size,
                            int *cancelled)
{
  *cancelled = 0;
  return b->ops->ended_by ? b->ops->ended_by(b, job, text, size, cancelled) : MORPH_ENOSYS;
}

int morph__backend_next(morph__backend *b, morph__backend_event *ev)
{
  return b->ops->next ? b->ops->next(b, ev) : 0;
}

int morph__backend_view_units(const morph__backend_view *v)
{
  int units = 0;
  for (int i = 0; i < v->nnodes; i++)
    units += v->unit == MORPH_POLICY_UNIT_NODE ? 1 : v->nodes[i].slots;
  return units;
}
