/*
 * A small deterministic random generator (xoshiro256**, seeded with
 * splitmix64): the same seed gives the same numbers on every platform,
 * which libc rand() does not promise. One state per user, no globals.
 */
#ifndef MORPH_WORKLOAD_RNG_H
#define MORPH_WORKLOAD_RNG_H

#include <stdint.h>

typedef struct morph__rng {
  uint64_t s[4];
} morph__rng;

void morph__rng_seed(morph__rng *rng, uint64_t seed);
uint64_t morph__rng_next(morph__rng *rng);
/* Uniform in (0, 1): never 0, so log() of it is finite. */
double morph__rng_uniform(morph__rng *rng);
/* Exponential with the given mean. */
double morph__rng_exp(morph__rng *rng, double mean);
/* Uniform integer in [0, n), n > 0. */
uint64_t morph__rng_below(morph__rng *rng, uint64_t n);
/* Standard normal (Box-Muller; one value per call, the second dropped so
 * that the state never carries a spare between callers). */
double morph__rng_normal(morph__rng *rng);
/* Gamma with shape alpha > 0 and scale beta > 0 (mean alpha * beta):
 * Marsaglia and Tsang (2000), with U^(1/alpha) for alpha < 1. */
double morph__rng_gamma(morph__rng *rng, double alpha, double beta);

#endif
