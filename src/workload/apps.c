/*
 * The application catalog: paper 000's four applications and the project's
 * examples. The time curves are chosen so that the gain-difference heuristic
 * gives back Table 5 exactly (tests/workload checks it); their absolute
 * scale is a calibration explained in docs/sim.md.
 */
#include <string.h>

#include "morph/workload.h"

#define GIB (1024.0 * 1024.0 * 1024.0)

typedef struct app_row {
  const char *name;
  int min, max, pref, rigid;
  double t_ref;          /* seconds at the first table size */
  int len;
  int size[8];
  double rel[8];         /* time relative to t_ref */
  double data_bytes, inhibit_s;
  int iterations;
  morph_model_type type; /* TABLE rows use size/rel; others t_ref as t1 */
  double serial, a, sigma;
  const char *config;
} app_row;

static const app_row catalog[] = {
  {"cg", 2, 32, 16, 32, 800.0, 7, {1, 2, 4, 8, 16, 32, 64},
   {1.0, 0.60, 0.40, 0.28, 0.17, 0.14, 0.15},
   32768.0 * 32768.0 * 8 + 4 * 32768.0 * 8, 10.0, 10000, MORPH_MODEL_TABLE, 0, 0, 0,
   "square matrix and 4 arrays of 32,768 elements, 10,000 iterations"},
  {"jacobi", 2, 32, 4, 32, 300.0, 7, {1, 2, 4, 8, 16, 32, 64},
   {1.0, 0.55, 0.32, 0.25, 0.21, 0.19, 0.195},
   16384.0 * 16384.0 * 8 + 2 * 16384.0 * 8, 10.0, 10000, MORPH_MODEL_TABLE, 0, 0, 0,
   "square matrix and 2 arrays of 16,384 elements, 10,000 iterations"},
  {"nbody", 1, 32, 1, 32, 250.0, 7, {1, 2, 4, 8, 16, 32, 64},
   {1.0, 0.93, 0.87, 0.82, 0.78, 0.75, 0.76},
   6553600.0 * 56, 0.0, 50, MORPH_MODEL_TABLE, 0, 0, 0,
   "6,553,600 particles, 50 iterations"},
  {"hpg-aligner", 6, 12, 6, 12, 600.0, 4, {3, 6, 12, 24},
   {1.0, 0.60, 0.55, 0.57},
   0.1 * GIB, 0.0, 16, MORPH_MODEL_TABLE, 0, 0, 0,
   "40 million 100-nucleotide reads, #workers x 4 iterations"},
  {"heat", 1, 32, 8, 32, 600.0, 0, {0}, {0}, 1.0 * GIB, 10.0, 1000, MORPH_MODEL_AMDAHL, 0.02,
   0, 0, "example: 2-D heat equation (Amdahl, 2 % serial)"},
  {"farm", 1, 32, 8, 32, 600.0, 0, {0}, {0}, 0.01 * GIB, 0.0, 100, MORPH_MODEL_AMDAHL, 0.0, 0,
   0, "example: task farm (Amdahl, no serial part)"},
  {"generic", 1, 32, 8, 32, 600.0, 0, {0}, {0}, 1.0 * GIB, 10.0, 100, MORPH_MODEL_DOWNEY, 0,
   16.0, 1.0, "generic job: Downey model, A = 16, sigma = 1"},
};

#define NAPPS (sizeof catalog / sizeof catalog[0])

static void fill_model(const app_row *r, morph_model *m)
{
  memset(m, 0, sizeof *m);
  m->type = r->type;
  m->scale = 1.0;
  m->t1 = r->t_ref;
  m->serial = r->serial;
  m->downey_a = r->a;
  m->downey_sigma = r->sigma;
  m->table_len = r->len;
  for (int i = 0; i < r->len; i++) {
    m->table_size[i] = r->size[i];
    m->table_time[i] = r->t_ref * r->rel[i];
  }
  m->data_bytes = r->data_bytes;
  m->inhibit_s = r->inhibit_s;
  m->iterations = r->iterations;
}

int morph_app_lookup(const char *name, morph_app_info *info)
{
  for (size_t i = 0; name && i < NAPPS; i++) {
    const app_row *r = &catalog[i];
    if (strcmp(r->name, name) != 0)
      continue;
    info->name = r->name;
    info->min = r->min;
    info->max = r->max;
    info->pref = r->pref;
    info->rigid = r->rigid;
    info->config = r->config;
    fill_model(r, &info->model);
    return MORPH_OK;
  }
  return MORPH_ENOENT;
}

const char *morph_app_name(size_t i)
{
  return i < NAPPS ? catalog[i].name : NULL;
}
