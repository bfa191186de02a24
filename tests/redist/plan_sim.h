/*
 * In-memory simulation of a redistribution: builds the plan of every rank,
 * moves global indices through the slices and checks that every element
 * lands exactly once where an independent, naive layout says it belongs.
 * Failures go through cmocka asserts.
 */
#ifndef MORPH_TESTS_PLAN_SIM_H
#define MORPH_TESTS_PLAN_SIM_H

#include <stdint.h>

#include "redist/plan.h"

/* A small deterministic generator, so that a failure reproduces. */
uint64_t sim_random(uint64_t *seed);

/* m random VARCOUNT part lengths below 23, about a third of them zero. */
void sim_random_counts(int64_t *counts, int m, uint64_t *seed);

/* Naive reference layouts, written without dist.c: length and global index
 * of local element i of rank r. old_counts is used for VARCOUNT's old side. */
int64_t sim_ref_count(const morph__dist *d, const int64_t *counts, int r, int n);
int64_t sim_ref_global(const morph__dist *d, const int64_t *counts, int r, int n, int64_t i);

/* Simulates old_n -> new_n and checks everything; returns the number of
 * remote slices over all ranks (for tests that look at consolidation). */
int64_t sim_check(const morph__dist *d, const int64_t *old_counts, int old_n, int new_n);

/* The same with old part p held by rank holder[p] (morph__plan_build_held);
 * holder NULL is sim_check. */
int64_t sim_check_held(const morph__dist *d, const int64_t *old_counts, int old_n, int new_n,
                       const int *holder);

#endif
