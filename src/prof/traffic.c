/*
 * libmorph-prof, communication matrix (see traffic.h): counters in a
 * shared file mapping, one file per process.
 *
 * The state is process-wide because the interception is: one MPI library
 * per process, one set of counters. It is reached only through the
 * functions below.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "morph/error.h"
#include "prof/coll.h"
#include "prof/rankfile.h"
#include "prof/ranks.h"
#include "prof/traffic.h"

/* Persistent send requests remembered at once; more are not counted. */
#define PERSIST_MAX 1024

typedef struct persist {
  MPI_Request req;
  int world; /* -1: outside this world */
  uint64_t bytes;
} persist;

static struct {
  int on;
  int n;
  morph__rankfile *file;
  size_t maplen;
  uint64_t *arr[MORPH__RF_ARRAYS];
  pthread_mutex_t lock; /* guards the persistent-request table */
  int npersist;
  persist persist[PERSIST_MAX];
} tr = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* Counters are shared by the threads of an MPI_THREAD_MULTIPLE program:
 * relaxed atomic adds, one locked instruction each. */
static void add(uint64_t *c, uint64_t v) { __atomic_fetch_add(c, v, __ATOMIC_RELAXED); }

static void warn(const char *what, int err)
{
  fprintf(stderr, "morph-prof: not counting traffic: %s%s%s\n", what, err ? ": " : "",
          err ? strerror(err) : "");
}

/* A tag shared by the whole world, and rank 0's start time: one broadcast
 * at MPI_Init, made only when profiling is asked for. */
static int world_identity(uint64_t *tag, double *start)
{
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  double id[2] = {(double)(((uint64_t)getpid() << 20) ^ (uint64_t)ts.tv_nsec),
                  (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9};
  if (PMPI_Bcast(id, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
    return MORPH_EMPI;
  *tag = (uint64_t)id[0];
  *start = id[1];
  return MORPH_OK;
}

/* Creates and maps this process's file; the header goes in last but for
 * `finished`, which only MPI_Finalize sets. */
static int map_file(const char *dir, uint64_t tag, int rank)
{
  char path[PATH_MAX];
  snprintf(path, sizeof path, "%s/%016llx-%06d.prof", dir, (unsigned long long)tag, rank);
  size_t len = sizeof(morph__rankfile) + sizeof(uint64_t) * MORPH__RF_ARRAYS * (size_t)tr.n;
  int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0 || ftruncate(fd, (off_t)len) != 0) {
    int e = errno;
    if (fd >= 0)
      close(fd);
    warn(path, e);
    return MORPH_EIO;
  }
  void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  int e = errno;
  close(fd);
  if (p == MAP_FAILED) {
    warn(path, e);
    return MORPH_EIO;
  }
  tr.file = p;
  tr.maplen = len;
  return MORPH_OK;
}

static void fill_header(uint64_t tag, double start, int rank)
{
  morph__rankfile *f = tr.file;
  MPI_Comm parent = MPI_COMM_NULL;
  PMPI_Comm_get_parent(&parent);
  memcpy(f->magic, MORPH__RANKFILE_MAGIC, sizeof f->magic);
  f->version = MORPH__RANKFILE_VERSION;
  f->header_size = sizeof *f;
  f->tag = tag;
  f->start = start;
  f->world_size = tr.n;
  f->world_rank = rank;
  f->spawned = parent != MPI_COMM_NULL;
  for (int i = 0; i < MORPH__RF_ARRAYS; i++)
    tr.arr[i] = morph__rankfile_array(f, i);
}

/* A process that calls exit() without MPI_Finalize (libmorph's leavers
 * may) is told apart from one that crashed. */
static void mark_exit(void)
{
  if (tr.on)
    __atomic_store_n(&tr.file->finished, 2, __ATOMIC_RELEASE);
}

void morph__traffic_start(void)
{
  const char *dir = getenv("MORPH_PROF_DIR");
  int rank;
  uint64_t tag;
  double start;
  if (!dir || !*dir || tr.on)
    return;
  if (PMPI_Comm_size(MPI_COMM_WORLD, &tr.n) != MPI_SUCCESS ||
      PMPI_Comm_rank(MPI_COMM_WORLD, &rank) != MPI_SUCCESS ||
      world_identity(&tag, &start) != MORPH_OK || morph__ranks_init() != MORPH_OK) {
    warn("an MPI call failed at MPI_Init", 0);
    return;
  }
  if (map_file(dir, tag, rank) != MORPH_OK)
    return;
  fill_header(tag, start, rank);
  tr.on = 1;
  atexit(mark_exit);
}

void morph__traffic_stop(void)
{
  if (!tr.on)
    return;
  tr.on = 0;
  __atomic_store_n(&tr.file->finished, 1, __ATOMIC_RELEASE);
  munmap(tr.file, tr.maplen);
  tr.file = NULL;
  morph__ranks_fini();
}

int morph__traffic_on(void) { return tr.on; }

uint64_t morph__traffic_bytes(int count, MPI_Datatype t)
{
  int size = 0;
  if (count <= 0 || t == MPI_DATATYPE_NULL || PMPI_Type_size(t, &size) != MPI_SUCCESS || size < 0)
    return 0;
  return (uint64_t)count * (uint64_t)size;
}

/* One message to world rank w (-1: another world). */
static void count(int w, uint64_t bytes)
{
  if (w >= 0 && w < tr.n) {
    add(&tr.arr[MORPH__RF_BYTES][w], bytes);
    add(&tr.arr[MORPH__RF_MSGS][w], 1);
  } else {
    add(&tr.file->external_bytes, bytes);
    add(&tr.file->external_msgs, 1);
  }
}

static void uncounted(void) { add(&tr.file->uncounted, 1); }

/* World rank of peer `dest` of comm: -1 in another world, -2 when there is
 * nothing to count (MPI_PROC_NULL) or nothing can be known. */
static int peer_world(MPI_Comm comm, int dest)
{
  if (dest == MPI_PROC_NULL)
    return -2;
  const morph__ranks *t = morph__ranks_comm(comm);
  if (!t || dest < 0 || dest >= t->peers) {
    uncounted();
    return -2;
  }
  return t->world[dest];
}

void morph__traffic_send(MPI_Comm comm, int dest, int count_, MPI_Datatype t)
{
  if (!tr.on)
    return;
  int w = peer_world(comm, dest);
  if (w != -2)
    count(w, morph__traffic_bytes(count_, t));
}

void morph__traffic_persist(MPI_Request req, MPI_Comm comm, int dest, int count_, MPI_Datatype t)
{
  if (!tr.on || req == MPI_REQUEST_NULL)
    return;
  int w = peer_world(comm, dest);
  if (w == -2)
    return;
  pthread_mutex_lock(&tr.lock);
  if (tr.npersist < PERSIST_MAX)
    tr.persist[tr.npersist++] = (persist){req, w, morph__traffic_bytes(count_, t)};
  else
    uncounted();
  pthread_mutex_unlock(&tr.lock);
}

static void each_persist(MPI_Request req, int drop)
{
  pthread_mutex_lock(&tr.lock);
  for (int i = 0; i < tr.npersist; i++) {
    if (tr.persist[i].req != req)
      continue;
    if (drop)
      tr.persist[i] = tr.persist[--tr.npersist];
    else
      count(tr.persist[i].world, tr.persist[i].bytes);
    break;
  }
  pthread_mutex_unlock(&tr.lock);
}

void morph__traffic_start_req(MPI_Request req)
{
  if (tr.on && tr.npersist > 0)
    each_persist(req, 0);
}

void morph__traffic_forget_req(MPI_Request req)
{
  if (tr.on && tr.npersist > 0)
    each_persist(req, 1);
}

void morph__traffic_rma(MPI_Win win, int target, uint64_t put_bytes, uint64_t get_bytes)
{
  if (!tr.on || target == MPI_PROC_NULL)
    return;
  const morph__ranks *t = morph__ranks_win(win);
  if (!t || target < 0 || target >= t->peers) {
    uncounted();
    return;
  }
  int w = t->world[target];
  if (put_bytes > 0)
    count(w, put_bytes);
  if (get_bytes > 0 && w >= 0) {
    add(&tr.arr[MORPH__RF_PULLED_BYTES][w], get_bytes);
    add(&tr.arr[MORPH__RF_PULLED_MSGS][w], 1);
  } else if (get_bytes > 0) {
    count(-1, get_bytes);
  }
}

static void emit_world(void *arg, int peer, uint64_t bytes)
{
  const morph__ranks *t = arg;
  count(t->world[peer], bytes);
}

static void schedule(const morph__ranks *t, enum morph__coll_kind kind, int root, uint64_t bytes,
                     const uint64_t *per_rank)
{
  int p = t->size, r = t->rank;
  switch (kind) {
  case MORPH__BARRIER: morph__coll_barrier(p, r, emit_world, (void *)t); break;
  case MORPH__BCAST: morph__coll_bcast(p, r, root, bytes, emit_world, (void *)t); break;
  case MORPH__REDUCE: morph__coll_reduce(p, r, root, bytes, emit_world, (void *)t); break;
  case MORPH__ALLREDUCE: morph__coll_allreduce(p, r, bytes, emit_world, (void *)t); break;
  case MORPH__SCAN: morph__coll_scan(p, r, bytes, emit_world, (void *)t); break;
  case MORPH__GATHER: morph__coll_gather(p, r, root, bytes, emit_world, (void *)t); break;
  case MORPH__SCATTER: morph__coll_scatter(p, r, root, per_rank, emit_world, (void *)t); break;
  case MORPH__ALLGATHER: morph__coll_allgather(p, r, per_rank, emit_world, (void *)t); break;
  case MORPH__PAIRWISE: morph__coll_pairwise(p, r, per_rank, emit_world, (void *)t); break;
  }
}

/* Same-sized blocks, for the collectives without a vector argument. */
static uint64_t *uniform(int p, uint64_t bytes);

void morph__traffic_coll(MPI_Comm comm, enum morph__coll_kind kind, int root, uint64_t bytes,
                         const uint64_t *per_rank)
{
  if (!tr.on)
    return;
  const morph__ranks *t = morph__ranks_comm(comm);
  if (!t || t->inter || root < 0 || root >= (t->size > 0 ? t->size : 1)) {
    uncounted(); /* intercommunicator collectives: algorithm unknown */
    return;
  }
  int vec = kind == MORPH__SCATTER || kind == MORPH__ALLGATHER || kind == MORPH__PAIRWISE;
  if (vec && !per_rank && !(per_rank = uniform(t->size, bytes))) {
    uncounted();
    return;
  }
  schedule(t, kind, root, bytes, per_rank);
}

/* The scratch array of this thread, grown as needed. */
static _Thread_local uint64_t *scratch;
static _Thread_local int scratch_cap;

static uint64_t *scratch_get(int p)
{
  if (p > scratch_cap) {
    uint64_t *s = realloc(scratch, sizeof(uint64_t) * (size_t)p);
    if (!s)
      return NULL;
    scratch = s;
    scratch_cap = p;
  }
  return scratch;
}

static uint64_t *uniform(int p, uint64_t bytes)
{
  uint64_t *s = scratch_get(p);
  for (int i = 0; s && i < p; i++)
    s[i] = bytes;
  return s;
}

/* The table of an intracommunicator while counting, else NULL. */
static const morph__ranks *intra(MPI_Comm comm)
{
  if (!tr.on)
    return NULL;
  const morph__ranks *t = morph__ranks_comm(comm);
  if (!t || t->inter) {
    uncounted();
    return NULL;
  }
  return t;
}

int morph__traffic_rank(MPI_Comm comm)
{
  const morph__ranks *t = intra(comm);
  return t ? t->rank : -1;
}

uint64_t *morph__traffic_blocks(MPI_Comm comm, const int *counts, MPI_Datatype type)
{
  const morph__ranks *t = intra(comm);
  uint64_t *s = t && counts ? scratch_get(t->size) : NULL;
  if (!s)
    return NULL;
  uint64_t one = morph__traffic_bytes(1, type);
  for (int i = 0; i < t->size; i++)
    s[i] = counts[i] > 0 ? (uint64_t)counts[i] * one : 0;
  return s;
}

uint64_t *morph__traffic_blocks_w(MPI_Comm comm, const int *counts, const MPI_Datatype *types)
{
  const morph__ranks *t = intra(comm);
  uint64_t *s = t && counts && types ? scratch_get(t->size) : NULL;
  if (!s)
    return NULL;
  for (int i = 0; i < t->size; i++)
    s[i] = morph__traffic_bytes(counts[i], types[i]);
  return s;
}
