/*
 * A job's communication matrix, one row per process (morph submit
 * --matrix, a workload's "matrix"), folded into traffic between the nodes
 * a mapping places: the mapping strategies place one rank per node
 * (morph/map.h), while a job runs several processes per node in slot units
 * or with several tasks per node. Without this a resize or a start with
 * more processes than nodes was mapped as if every pair talked alike.
 */
#ifndef MORPH_PLACE_FOLD_H
#define MORPH_PLACE_FOLD_H

#include <stdint.h>

/* Sums the job's n x n process matrix m ([i * n + j], from i to j) into
 * the k x k traffic between mapping ranks. The job's processes fill its
 * units in rank order, n / nunits of them per unit (the division must be
 * exact), and unit u runs on mapping rank unit_rank[u] (0..k-1). Traffic
 * inside one rank is dropped: it crosses no link. Returns the malloc'ed
 * k * k matrix, or NULL when the sizes do not fit (n not a multiple of
 * nunits, a rank outside 0..k-1) or memory is short: the caller then maps
 * with the traffic unknown. */
uint64_t *morph__fold_traffic(const uint64_t *m, int n, const int *unit_rank, int nunits, int k);

#endif
