/*
 * A libslurm stand-in for the slurm backend (src/rms/slurm*.c) without a
 * cluster: the calls the backend makes, answered from tables the caller
 * fills. Loads return the tables as they are now, or "no change since"
 * (SLURM_NO_CHANGE_IN_DATA) when the caller's copy is as new, as
 * slurmctld does; allocations, job updates and kills are recorded, not
 * carried out (the caller changes the tables to play slurmctld's part).
 * Used by the unit tests (tests/morphd/test-morphd-slurm.c) on
 * mock_reset's small tables; a caller may point it at tables of its own
 * (large ones lent rather than copied).
 */
#ifndef MORPH_TEST_SLURM_MOCK_H
#define MORPH_TEST_SLURM_MOCK_H

#include <slurm/slurm.h>
#include <time.h>

#define MOCK_NODES 4
#define MOCK_JOBS 8

typedef struct mock_slurm {
  node_info_t *nodes;     /* the node table: mock_reset's 4, or the caller's */
  int nnodes;
  slurm_job_info_t *jobs; /* the job table */
  int njobs;
  int lend;               /* loads hand out the tables themselves, not copies */
  time_t jobs_update, nodes_update; /* when each table last changed (mock_touch) */
  int grant;              /* allocations are granted at once (their node list set) */
  uint32_t next_alloc;    /* the id slurm_allocate_resources answers */
  char alloc_nodes[64];   /* the nodes the last allocation asked for */
  uint32_t killed[MOCK_JOBS];
  int nkilled;
  int updates;            /* slurm_update_job calls */
  long rpcs;              /* calls that are an RPC to slurmctld */
  long packed, same;      /* table loads answered with a table; with "no change" */
  /* mock_reset's storage */
  node_info_t small_nodes[MOCK_NODES];
  slurm_job_info_t small_jobs[MOCK_JOBS];
  int32_t node_inx[MOCK_JOBS][4];
} mock_slurm;

extern mock_slurm mock;

/* Four idle nodes, no job, on mock_reset's storage. */
void mock_reset(void);
/* Adds a job in `state` to the small table; `first`..`last` are node
 * indices (-1: none). Marks the tables changed. */
slurm_job_info_t *mock_job(uint32_t id, uint32_t state, int first, int last);
/* Marks both tables changed now (after changing an entry directly). */
void mock_touch(void);

#endif
