/*
 * A libslurm stand-in for unit tests of the slurm backend (src/rms/slurm*.c):
 * the calls the backend makes, answered from tables the test fills. Loads
 * return the tables as they are now; allocations, job updates and kills
 * are recorded, not carried out (the test changes the tables to play
 * slurmctld's part).
 */
#ifndef MORPH_TEST_SLURM_MOCK_H
#define MORPH_TEST_SLURM_MOCK_H

#include <slurm/slurm.h>

#define MOCK_NODES 4
#define MOCK_JOBS 8

typedef struct mock_slurm {
  node_info_t nodes[MOCK_NODES]; /* node1..node4, idle, 2 CPUs */
  int32_t node_inx[MOCK_JOBS][4];
  slurm_job_info_t jobs[MOCK_JOBS];
  int njobs;
  uint32_t next_alloc;  /* the id slurm_allocate_resources answers */
  char alloc_nodes[64]; /* the nodes the last allocation asked for */
  uint32_t killed[MOCK_JOBS];
  int nkilled;
} mock_slurm;

extern mock_slurm mock;

/* Four idle nodes, no job. */
void mock_reset(void);
/* Adds a job in `state`; `first`..`last` are node indices (-1: none). */
slurm_job_info_t *mock_job(uint32_t id, uint32_t state, int first, int last);

#endif
