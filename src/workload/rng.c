/* xoshiro256** by Blackman and Vigna (public domain), seeded by splitmix64. */
#include "rng.h"

#include <math.h>

static uint64_t splitmix64(uint64_t *x)
{
  uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

void morph__rng_seed(morph__rng *rng, uint64_t seed)
{
  for (int i = 0; i < 4; i++)
    rng->s[i] = splitmix64(&seed);
}

static uint64_t rotl(uint64_t x, int k)
{
  return (x << k) | (x >> (64 - k));
}

uint64_t morph__rng_next(morph__rng *rng)
{
  uint64_t *s = rng->s;
  uint64_t result = rotl(s[1] * 5, 7) * 9;
  uint64_t t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl(s[3], 45);
  return result;
}

double morph__rng_uniform(morph__rng *rng)
{
  /* 53 random bits, shifted by half a step so that 0 never comes out. */
  return ((double)(morph__rng_next(rng) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

double morph__rng_exp(morph__rng *rng, double mean)
{
  return -mean * log(morph__rng_uniform(rng));
}

uint64_t morph__rng_below(morph__rng *rng, uint64_t n)
{
  /* Rejection keeps the result unbiased for any n. */
  uint64_t limit = UINT64_MAX - UINT64_MAX % n;
  uint64_t x;
  do
    x = morph__rng_next(rng);
  while (x >= limit);
  return x % n;
}

double morph__rng_normal(morph__rng *rng)
{
  double u = morph__rng_uniform(rng), v = morph__rng_uniform(rng);
  return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v);
}

double morph__rng_gamma(morph__rng *rng, double alpha, double beta)
{
  if (alpha < 1.0) /* G(a) = G(a + 1) * U^(1/a) */
    return morph__rng_gamma(rng, alpha + 1.0, beta) * pow(morph__rng_uniform(rng), 1.0 / alpha);
  double d = alpha - 1.0 / 3.0, c = 1.0 / sqrt(9.0 * d);
  for (;;) {
    double x = morph__rng_normal(rng), v = 1.0 + c * x;
    if (v <= 0)
      continue;
    v = v * v * v;
    double u = morph__rng_uniform(rng);
    if (log(u) < 0.5 * x * x + d - d * v + d * log(v))
      return d * v * beta;
  }
}
