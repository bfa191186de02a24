/*
 * libmorph-prof: ranks of any communicator or window translated to ranks of
 * this process's MPI_COMM_WORLD, cached on the object itself (an MPI
 * attribute), so that each communicator is translated once.
 */
#ifndef MORPH_PROF_RANKS_H
#define MORPH_PROF_RANKS_H

#include <mpi.h>

/* Peer ranks of a communicator (its remote group for an intercommunicator)
 * in world ranks; -1 for a process outside this world. */
typedef struct morph__ranks {
  int inter; /* 1 for an intercommunicator */
  int size;  /* local group size */
  int rank;  /* this process's rank in the local group */
  int peers; /* entries of world: the remote group size for inter */
  int *world;
} morph__ranks;

/* Creates the attribute keys; MORPH_OK or MORPH_EMPI. */
int morph__ranks_init(void);

/* Frees the attribute keys (cached tables go with their objects). */
void morph__ranks_fini(void);

/* The table of comm, built on first use. NULL for MPI_COMM_NULL or when an
 * MPI call or an allocation fails. MPI_COMM_WORLD has a table too. */
const morph__ranks *morph__ranks_comm(MPI_Comm comm);

/* The table of a window's group. NULL on failure. */
const morph__ranks *morph__ranks_win(MPI_Win win);

#endif
