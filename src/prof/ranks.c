/* Communicator and window ranks in world ranks, cached as attributes. */
#include <pthread.h>
#include <stdlib.h>

#include "morph/error.h"
#include "prof/ranks.h"

/* Process-wide by nature, like the interception itself: the keys are
 * created once at MPI_Init, the world's table is built then too, and the
 * mutex only guards building a table the first time a communicator is
 * seen (threads of an MPI_THREAD_MULTIPLE program may race there). */
static int comm_key = MPI_KEYVAL_INVALID, win_key = MPI_KEYVAL_INVALID;
static morph__ranks world_table;
static pthread_mutex_t build_lock = PTHREAD_MUTEX_INITIALIZER;

static void table_free(morph__ranks *t)
{
  if (t) {
    free(t->world);
    free(t);
  }
}

static int drop_comm(MPI_Comm c, int key, void *val, void *extra)
{
  (void)c, (void)key, (void)extra;
  table_free(val);
  return MPI_SUCCESS;
}

static int drop_win(MPI_Win w, int key, void *val, void *extra)
{
  (void)w, (void)key, (void)extra;
  table_free(val);
  return MPI_SUCCESS;
}

/* world[i] = world rank of member i of g, -1 outside this world. */
static int translate(MPI_Group g, int n, int *world)
{
  MPI_Group wg;
  if (PMPI_Comm_group(MPI_COMM_WORLD, &wg) != MPI_SUCCESS)
    return MORPH_EMPI;
  int *idx = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1)), rc = MORPH_ENOMEM;
  if (idx) {
    for (int i = 0; i < n; i++)
      idx[i] = i;
    rc = PMPI_Group_translate_ranks(g, n, idx, wg, world) == MPI_SUCCESS ? MORPH_OK : MORPH_EMPI;
    for (int i = 0; rc == MORPH_OK && i < n; i++)
      if (world[i] == MPI_UNDEFINED)
        world[i] = -1;
    free(idx);
  }
  PMPI_Group_free(&wg);
  return rc;
}

/* A table for the peers in group g; NULL on failure. */
static morph__ranks *table_new(MPI_Group g, int inter, int size, int rank)
{
  morph__ranks *t = calloc(1, sizeof *t);
  int peers;
  if (!t || PMPI_Group_size(g, &peers) != MPI_SUCCESS)
    goto fail;
  t->world = malloc(sizeof(int) * (size_t)(peers > 0 ? peers : 1));
  if (!t->world || translate(g, peers, t->world) != MORPH_OK)
    goto fail;
  t->inter = inter, t->size = size, t->rank = rank, t->peers = peers;
  return t;
fail:
  table_free(t);
  return NULL;
}

static morph__ranks *comm_table_new(MPI_Comm c)
{
  int inter = 0, size, rank;
  MPI_Group g;
  if (PMPI_Comm_test_inter(c, &inter) != MPI_SUCCESS || PMPI_Comm_size(c, &size) != MPI_SUCCESS ||
      PMPI_Comm_rank(c, &rank) != MPI_SUCCESS)
    return NULL;
  int rc = inter ? PMPI_Comm_remote_group(c, &g) : PMPI_Comm_group(c, &g);
  if (rc != MPI_SUCCESS)
    return NULL;
  morph__ranks *t = table_new(g, inter, size, rank);
  PMPI_Group_free(&g);
  return t;
}

int morph__ranks_init(void)
{
  if (PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, drop_comm, &comm_key, NULL) != MPI_SUCCESS ||
      PMPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, drop_win, &win_key, NULL) != MPI_SUCCESS)
    return MORPH_EMPI;
  morph__ranks *w = comm_table_new(MPI_COMM_WORLD);
  if (!w)
    return MORPH_EMPI;
  world_table = *w;
  free(w);
  return MORPH_OK;
}

void morph__ranks_fini(void)
{
  if (comm_key != MPI_KEYVAL_INVALID)
    PMPI_Comm_free_keyval(&comm_key);
  if (win_key != MPI_KEYVAL_INVALID)
    PMPI_Win_free_keyval(&win_key);
  free(world_table.world);
  world_table.world = NULL;
}

const morph__ranks *morph__ranks_comm(MPI_Comm comm)
{
  if (comm == MPI_COMM_WORLD)
    return &world_table;
  if (comm == MPI_COMM_NULL || comm_key == MPI_KEYVAL_INVALID)
    return NULL;
  void *val;
  int found = 0;
  if (PMPI_Comm_get_attr(comm, comm_key, &val, &found) != MPI_SUCCESS)
    return NULL;
  if (found)
    return val;
  /* Look again under the lock: another thread may have just built it, and
   * replacing its table would free it under that thread's feet. */
  pthread_mutex_lock(&build_lock);
  morph__ranks *t = NULL;
  if (PMPI_Comm_get_attr(comm, comm_key, &val, &found) == MPI_SUCCESS && found) {
    t = val;
  } else if ((t = comm_table_new(comm)) && PMPI_Comm_set_attr(comm, comm_key, t) != MPI_SUCCESS) {
    table_free(t);
    t = NULL;
  }
  pthread_mutex_unlock(&build_lock);
  return t;
}

const morph__ranks *morph__ranks_win(MPI_Win win)
{
  if (win == MPI_WIN_NULL || win_key == MPI_KEYVAL_INVALID)
    return NULL;
  void *val;
  int found = 0;
  if (PMPI_Win_get_attr(win, win_key, &val, &found) != MPI_SUCCESS)
    return NULL;
  if (found)
    return val;
  MPI_Group g;
  if (PMPI_Win_get_group(win, &g) != MPI_SUCCESS)
    return NULL;
  pthread_mutex_lock(&build_lock);
  morph__ranks *t = NULL;
  if (PMPI_Win_get_attr(win, win_key, &val, &found) == MPI_SUCCESS && found) {
    t = val;
  } else if ((t = table_new(g, 0, 0, 0)) && PMPI_Win_set_attr(win, win_key, t) != MPI_SUCCESS) {
    table_free(t);
    t = NULL;
  }
  pthread_mutex_unlock(&build_lock);
  PMPI_Group_free(&g);
  return t;
}
