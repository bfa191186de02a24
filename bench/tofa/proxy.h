/*
 * What the two proxies do differently under SimGrid's SMPI and under a
 * real MPI: computation is simulated (smpi_execute_flops) or skipped (the
 * real runs only check the communication pattern), and large buffers are
 * shared by all simulated processes (SMPI_SHARED_MALLOC) so that 85 ranks
 * with megabytes each fit in one process.
 */
#ifndef MORPH_BENCH_TOFA_PROXY_H
#define MORPH_BENCH_TOFA_PROXY_H

#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#ifdef SMPI_H
static inline void proxy_compute(double flops)
{
  if (flops > 0)
    smpi_execute_flops(flops);
}
static inline char *proxy_buffer(size_t bytes) { return SMPI_SHARED_MALLOC(bytes); }
static inline void proxy_free(char *p) { SMPI_SHARED_FREE(p); }
#else
static inline void proxy_compute(double flops) { (void)flops; }
static inline char *proxy_buffer(size_t bytes)
{
  char *p = calloc(bytes ? bytes : 1, 1);
  if (!p)
    MPI_Abort(MPI_COMM_WORLD, 3);
  return p;
}
static inline void proxy_free(char *p) { free(p); }
#endif

#endif
