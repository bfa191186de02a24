/* Execution-time models and the gain-difference heuristic (docs/sim.md). */
#include <math.h>
#include <stdio.h>

#include "morph/workload.h"

/* Downey's speedup model (1997), low and high variance forms. */
static double downey_speedup(double a, double sigma, double n)
{
  if (sigma <= 1.0) {
    if (n <= a)
      return a * n / (a + sigma / 2.0 * (n - 1.0));
    if (n <= 2.0 * a - 1.0)
      return a * n / (sigma * (a - 0.5) + n * (1.0 - sigma / 2.0));
    return a;
  }
  if (n <= a + a * sigma - sigma)
    return n * a * (sigma + 1.0) / (sigma * (n + a - 1.0) + a);
  return a;
}

/* Log-log interpolation: a power law between two measured points is what
 * strong scaling looks like between doublings. */
static double table_time(const morph_model *m, int n)
{
  int len = m->table_len;
  if (n <= m->table_size[0])
    return m->table_time[0];
  for (int i = 1; i < len; i++) {
    if (n > m->table_size[i])
      continue;
    double x0 = log(m->table_size[i - 1]), x1 = log(m->table_size[i]);
    double y0 = log(m->table_time[i - 1]), y1 = log(m->table_time[i]);
    return exp(y0 + (y1 - y0) * (log(n) - x0) / (x1 - x0));
  }
  return m->table_time[len - 1];
}

double morph_model_time(const morph_model *m, int n)
{
  double scale = m->scale > 0 ? m->scale : 1.0;
  if (n < 1)
    n = 1;
  switch (m->type) {
  case MORPH_MODEL_AMDAHL:
    return scale * m->t1 * (m->serial + (1.0 - m->serial) / n);
  case MORPH_MODEL_DOWNEY:
    return scale * m->t1 / downey_speedup(m->downey_a, m->downey_sigma, n);
  case MORPH_MODEL_TABLE:
  default:
    return scale * table_time(m, n);
  }
}

static int fail(char *why, size_t len, const char *msg)
{
  if (why && len)
    snprintf(why, len, "%s", msg);
  return MORPH_EINVAL;
}

static int check_table(const morph_model *m, char *why, size_t len)
{
  if (m->table_len < 1 || m->table_len > MORPH_MODEL_TABLE_MAX)
    return fail(why, len, "table needs 1 to 16 points");
  for (int i = 0; i < m->table_len; i++) {
    if (m->table_size[i] < 1 || m->table_size[i] > MORPH_WORKLOAD_SIZE_MAX ||
        !(m->table_time[i] > 0) || !isfinite(m->table_time[i]))
      return fail(why, len, "table sizes must be 1..1e6 and times > 0");
    if (i > 0 && m->table_size[i] <= m->table_size[i - 1])
      return fail(why, len, "table sizes must increase");
  }
  return MORPH_OK;
}

static int check_type(const morph_model *m, char *why, size_t len)
{
  switch (m->type) {
  case MORPH_MODEL_AMDAHL:
    if (!(m->t1 > 0) || !(m->serial >= 0) || m->serial > 1)
      return fail(why, len, "amdahl needs t1 > 0 and serial in [0, 1]");
    return MORPH_OK;
  case MORPH_MODEL_DOWNEY:
    if (!(m->t1 > 0) || !(m->downey_a >= 1) || !(m->downey_sigma >= 0) ||
        m->downey_a > MORPH_WORKLOAD_SIZE_MAX || m->downey_sigma > MORPH_WORKLOAD_SIZE_MAX)
      return fail(why, len, "downey needs t1 > 0, 1 <= A <= 1e6, 0 <= sigma <= 1e6");
    return MORPH_OK;
  case MORPH_MODEL_TABLE:
    return check_table(m, why, len);
  }
  return fail(why, len, "unknown model type");
}

/* The longest and shortest time over the sizes a job can have: every model
 * is non-increasing in n up to its last table point, constant beyond, so
 * the extremes are at size 1 (Amdahl, Downey) or among the table points,
 * and at the largest size allowed. */
static void time_range(const morph_model *m, double *lo, double *hi)
{
  *hi = morph_model_time(m, 1);
  *lo = morph_model_time(m, MORPH_WORKLOAD_SIZE_MAX);
  for (int i = 0; m->type == MORPH_MODEL_TABLE && i < m->table_len; i++) {
    double t = morph_model_time(m, m->table_size[i]);
    *hi = t > *hi ? t : *hi;
    *lo = t < *lo ? t : *lo;
  }
}

static int check_limits(const morph_model *m, char *why, size_t len)
{
  char msg[160];
  if (!(m->scale >= 0) || !(m->data_bytes >= 0) || !(m->inhibit_s >= 0) || m->iterations < 0 ||
      !(m->mpi_share >= 0) || m->mpi_share > 1)
    return fail(why, len, "scale, data_bytes, inhibit, iterations must be >= 0, mpi in [0, 1]");
  if (m->data_bytes > MORPH_WORKLOAD_DATA_MAX || m->inhibit_s > MORPH_WORKLOAD_TIME_MAX ||
      m->iterations > MORPH_WORKLOAD_ITER_MAX) {
    snprintf(msg, sizeof msg, "limits: data_bytes <= %g, inhibit <= %g s, iterations <= %d",
             MORPH_WORKLOAD_DATA_MAX, MORPH_WORKLOAD_TIME_MAX, MORPH_WORKLOAD_ITER_MAX);
    return fail(why, len, msg);
  }
  double lo, hi;
  time_range(m, &lo, &hi);
  if (!(hi <= MORPH_WORKLOAD_TIME_MAX) || !(lo >= MORPH_WORKLOAD_TIME_MIN)) {
    snprintf(msg, sizeof msg, "the job's time (t1 or times, with scale) is %g..%g s; limits %g..%g s",
             lo, hi, MORPH_WORKLOAD_TIME_MIN, MORPH_WORKLOAD_TIME_MAX);
    return fail(why, len, msg);
  }
  return MORPH_OK;
}

int morph_model_check(const morph_model *m, char *why, size_t len)
{
  if (!m)
    return fail(why, len, "no model");
  int rc = check_type(m, why, len);
  return rc ? rc : check_limits(m, why, len);
}

static int smallest_size(const morph_model *m)
{
  return m->type == MORPH_MODEL_TABLE && m->table_len > 0 ? m->table_size[0] : 1;
}

double morph_model_mpi_share(const morph_model *m, int n)
{
  int n0 = smallest_size(m);
  if (n < 1)
    n = 1;
  double eff = (double)n0 * morph_model_time(m, n0) / ((double)n * morph_model_time(m, n));
  double share = 1.0 - (1.0 - m->mpi_share) * (eff < 1.0 ? eff : 1.0);
  return share < 0 ? 0 : share > 1 ? 1 : share;
}

static double gain_at(const double *t, int i)
{
  return (t[i - 1] - t[i]) / t[0] * 100.0;
}

int morph_gain_limits(const int *size, const double *t, int len, double threshold, int *min,
                      int *max, int *pref, double *gain)
{
  if (!size || !t || len < 1 || !min || !max || !pref)
    return MORPH_EINVAL;
  for (int i = 0; i < len; i++)
    if (!(t[i] > 0) || size[i] < 1 || (i > 0 && size[i] <= size[i - 1]))
      return MORPH_EINVAL;
  if (gain) {
    gain[0] = 0;
    for (int i = 1; i < len; i++)
      gain[i] = gain_at(t, i);
  }
  int lo = 1;
  while (lo < len && !(gain_at(t, lo) > threshold))
    lo++;
  /* Preferred: the last size of the run above the threshold that starts at
   * the lower limit. Upper: the last size of the run of non-negative gains
   * from the start. Without any size above the threshold both lower and
   * preferred are the smallest size (N-body in the paper). */
  int pr = lo;
  while (pr + 1 < len && gain_at(t, pr + 1) >= threshold)
    pr++;
  int hi = 0;
  while (hi + 1 < len && gain_at(t, hi + 1) >= 0)
    hi++;
  *min = lo < len ? size[lo] : size[0];
  *pref = lo < len ? size[pr] : size[0];
  *max = size[hi];
  return MORPH_OK;
}
