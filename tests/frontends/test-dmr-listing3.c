/*
 * test-dmr-listing3: paper 000's Listing 3, the user's own redistribution
 * functions for an expansion, through the DMRlib front-end. send_expand and
 * recv_expand below are the listing's, line for line; the program around
 * them declares the listing's variables and sets the two process counts
 * before each (as_parent, as_child), since DMR_INTERCOMM is not an
 * intercommunicator here (docs/dmr-compat.md). Shrinks use the predefined
 * default functions. Element i of the array holds i + 0.5 * step; every
 * process checks its part at every step.
 *
 *   test-dmr-listing3 N STEPS   (N divisible by every size of the schedule;
 *   a chunk a process sends itself must fit the eager limit, docs/dmr-compat.md)
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "app.h"
#include "morph/dmr.h"

static int factor, new_data_size, dst_rank, i, src_rank, tag = 7, my_rank;
static int dmr_intercomm_nprocs, comm_world_nprocs;
static int64_t total;
static int steps, ok = 1, seen;

static int as_parent(void) {
  MPI_Comm_rank(DMR_INTERCOMM, &my_rank);
  comm_world_nprocs = MORPH_DMR_parents();
  dmr_intercomm_nprocs = MORPH_DMR_children();
  return 0;
}

static int as_child(void) {
  MPI_Comm_rank(DMR_INTERCOMM, &my_rank);
  comm_world_nprocs = MORPH_DMR_children();
  dmr_intercomm_nprocs = MORPH_DMR_parents();
  return 0;
}

/* Listing 3, unchanged. */
void send_expand(double *data, int data_size) {
  factor = dmr_intercomm_nprocs / comm_world_nprocs;
  new_data_size = data_size / factor;
  for (i = 0; i < factor; i++) {
    dst_rank = my_rank * factor + i;
    MPI_Send(data + new_data_size * i, new_data_size, MPI_DOUBLE, dst_rank, tag, DMR_INTERCOMM);
  }
}
void recv_expand(double **data, int *data_size) {
  factor = comm_world_nprocs / dmr_intercomm_nprocs;
  src_rank = my_rank / factor;
  *data_size = (*data_size) / factor;
  *data = malloc((*data_size) * sizeof(double));
  MPI_Recv(*data, *data_size, MPI_DOUBLE, src_rank, tag, DMR_INTERCOMM, MPI_STATUS_IGNORE);
}

static void check(const double *data, int data_size, int step) {
  int r, p;
  MPI_Comm_rank(DMR_COMM_WORLD, &r);
  MPI_Comm_size(DMR_COMM_WORLD, &p);
  int64_t first = r * total / p;
  if (data_size != (int)(total / p))
    ok = 0;
  for (int k = 0; ok && k < data_size; k++)
    if (data[k] != (double)(first + k) + 0.5 * step)
      ok = 0;
}

void compute(double *data, int data_size, int step) {
  for (int s = step; s < steps; s++) {
    DMR_RECONFIG(compute(data, data_size, s),
                 (as_parent(), send_expand(data, data_size)),
                 (as_child(), recv_expand(&data, &data_size)),
                 DMR_Send_shrink_default(data, MPI_DOUBLE, data_size),
                 DMR_Recv_shrink_default(&data, MPI_DOUBLE, &data_size));
    app_progress(DMR_Morph(), &seen);
    check(data, data_size, s);
    for (int k = 0; k < data_size; k++)
      data[k] += 0.5;
    usleep(20000);
  }
  int all, p;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, DMR_COMM_WORLD);
  MPI_Comm_size(DMR_COMM_WORLD, &p);
  if (!all)
    ok = 0;
  app_verdict(DMR_COMM_WORLD, all, "dmr-listing3 n=%lld steps=%d procs=%d", (long long)total,
              steps, p);
  free(data);
}

int main(int argc, char **argv) {
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  total = argc > 1 ? atoll(argv[1]) : 4096;
  steps = argc > 2 ? atoi(argv[2]) : 50;
  if (DMR_Init(NULL) != MORPH_OK)
    return 2;
  double *data = NULL;
  int data_size = 0;
  if (DMR_Is_new()) {
    int r, p;
    MPI_Comm_rank(DMR_COMM_WORLD, &r);
    MPI_Comm_size(DMR_COMM_WORLD, &p);
    data_size = (int)(total / p);
    data = malloc(sizeof(double) * (size_t)data_size);
    for (int k = 0; k < data_size; k++)
      data[k] = (double)(r * total / p + k);
  } else { /* a child: the parents' part size, which Listing 3 divides */
    data_size = (int)(total / MORPH_DMR_parents());
  }
  compute(data, data_size, DMR_Step());
  int rc = DMR_Finalize();
  return rc ? rc : !ok;
}
