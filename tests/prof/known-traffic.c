/*
 * known-traffic: an MPI program that sends known amounts with known calls
 * and writes, from rank 0, the matrix the profiler must find (Matrix
 * Market, bytes and messages). Run on 4 processes under `morph prof`, the
 * two files must be equal entry by entry (prof-check equal).
 *
 * The expected matrix is derived here independently of the profiler's
 * schedules (src/prof/coll.c, which loops over what a rank sends): from
 * the receiving side of each algorithm (a binomial-tree rank receives from
 * itself with its lowest bit cleared; a ring rank receives every block but
 * its own), or listed by hand for the sizes used. It covers world and
 * split (reordered) communicators, a duplicate, nonblocking, synchronous,
 * persistent and one-sided calls, MPI_IN_PLACE and MPI_PROC_NULL.
 *
 * usage: known-traffic OUTPREFIX   (writes OUTPREFIX.bytes.mtx, .msgs.mtx)
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define P 4

static uint64_t eb[P][P], em[P][P]; /* expected bytes and messages */

static void expect(int from, int to, uint64_t bytes)
{
  eb[from][to] += bytes;
  em[from][to] += 1;
}

static void die(const char *what)
{
  fprintf(stderr, "known-traffic: %s\n", what);
  MPI_Abort(MPI_COMM_WORLD, 2);
}

/* Point to point of every flavour, in world ranks. */
static void p2p(int r)
{
  char big[4000], in[4000];
  int ints[10] = {0}, iin[10], three[3] = {0}, tin[3];
  double seven[7] = {0};
  MPI_Request q;
  memset(big, 1, sizeof big);
  MPI_Send(big, 1000 * (r + 1), MPI_CHAR, (r + 1) % P, 1, MPI_COMM_WORLD);
  MPI_Recv(in, sizeof in, MPI_CHAR, (r + P - 1) % P, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Isend(ints, 10, MPI_INT, (r + 2) % P, 2, MPI_COMM_WORLD, &q);
  MPI_Recv(iin, 10, MPI_INT, (r + 2) % P, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Wait(&q, MPI_STATUS_IGNORE);
  if (r == 0)
    MPI_Ssend(seven, 7, MPI_DOUBLE, 3, 3, MPI_COMM_WORLD);
  if (r == 3)
    MPI_Recv(seven, 7, MPI_DOUBLE, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Sendrecv(three, 3, MPI_INT, (r + P - 1) % P, 4, tin, 3, MPI_INT, (r + 1) % P, 4,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Send(big, 500, MPI_CHAR, MPI_PROC_NULL, 5, MPI_COMM_WORLD); /* nothing to count */
  for (int i = 0; i < P; i++) {
    expect(i, (i + 1) % P, 1000 * (uint64_t)(i + 1));
    expect(i, (i + 2) % P, 40);
    expect(i, (i + P - 1) % P, 12);
  }
  expect(0, 3, 56);
}

/* A persistent send started three times. */
static void persistent(int r)
{
  char buf[16] = {0}, in[16];
  MPI_Request q;
  MPI_Send_init(buf, 16, MPI_CHAR, (r + 1) % P, 6, MPI_COMM_WORLD, &q);
  for (int k = 0; k < 3; k++) {
    MPI_Start(&q);
    MPI_Recv(in, 16, MPI_CHAR, (r + P - 1) % P, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
  }
  MPI_Request_free(&q);
  for (int i = 0; i < P; i++)
    for (int k = 0; k < 3; k++)
      expect(i, (i + 1) % P, 16);
}

/* Binomial trees seen from the receiver: relative rank v gets the data
 * from v with its lowest set bit cleared. map: communicator rank -> world. */
static void expect_bcast(int p, int root, uint64_t bytes, const int *map)
{
  for (int v = 1; v < p; v++)
    expect(map[((v & (v - 1)) + root) % p], map[(v + root) % p], bytes);
}

static void expect_reduce(int p, int root, uint64_t bytes, const int *map)
{
  for (int v = 1; v < p; v++)
    expect(map[(v + root) % p], map[((v & (v - 1)) + root) % p], bytes);
}

/* Recursive doubling on a power of two: partners at distance 2^k. */
static void expect_allreduce_pow2(int p, uint64_t bytes, const int *map)
{
  for (int r = 0; r < p; r++)
    for (int m = 1; m < p; m <<= 1)
      expect(map[r], map[r ^ m], bytes);
}

static const int world_map[P] = {0, 1, 2, 3};

static void rooted_and_reductions(void)
{
  char buf[128] = {0}, out[128];
  double d[3] = {1, 2, 3}, dr[3];
  MPI_Bcast(buf, 100, MPI_CHAR, 1, MPI_COMM_WORLD);
  expect_bcast(P, 1, 100, world_map);
  MPI_Reduce(d, dr, 3, MPI_DOUBLE, MPI_SUM, 2, MPI_COMM_WORLD);
  expect_reduce(P, 2, 24, world_map);
  MPI_Allreduce(d, dr, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  expect_allreduce_pow2(P, 8, world_map);
  MPI_Allreduce(MPI_IN_PLACE, dr, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  expect_allreduce_pow2(P, 16, world_map);
  MPI_Gather(buf, 9, MPI_CHAR, out, 9, MPI_CHAR, 0, MPI_COMM_WORLD);
  for (int r = 1; r < P; r++)
    expect(r, 0, 9);
  MPI_Scatter(buf, 11, MPI_CHAR, out, 11, MPI_CHAR, 3, MPI_COMM_WORLD);
  for (int r = 0; r < 3; r++)
    expect(3, r, 11);
  MPI_Scan(d, dr, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); /* partners r xor 2^k */
  MPI_Exscan(d, dr, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  expect_allreduce_pow2(P, 8, world_map);
  expect_allreduce_pow2(P, 8, world_map);
  MPI_Barrier(MPI_COMM_WORLD); /* dissemination: 0 bytes to r+1 and r+2 */
  for (int r = 0; r < P; r++) {
    expect(r, (r + 1) % P, 0);
    expect(r, (r + 2) % P, 0);
  }
}

/* Ring allgather: rank r + 1 receives every block but its own from r. */
static void gathers_and_alltoalls(int r)
{
  int cnt[P], dsp[P], src[64] = {0}, dst[64], sc[P], sd[P], rc[P], rd[P];
  for (int j = 0; j < P; j++) {
    cnt[j] = j + 1;
    dsp[j] = j == 0 ? 0 : dsp[j - 1] + cnt[j - 1];
  }
  MPI_Allgather(src, 5, MPI_INT, dst, 5, MPI_INT, MPI_COMM_WORLD);
  MPI_Allgatherv(src, cnt[r], MPI_INT, dst, cnt, dsp, MPI_INT, MPI_COMM_WORLD);
  MPI_Alltoall(src, 2, MPI_INT, dst, 2, MPI_INT, MPI_COMM_WORLD);
  for (int j = 0; j < P; j++) {
    sc[j] = (r + 1) * (j + 1), sd[j] = 4 * j;     /* r sends (r+1)(j+1) ints to j */
    rc[j] = (j + 1) * (r + 1), rd[j] = 4 * j;
  }
  MPI_Alltoallv(src, sc, sd, MPI_INT, dst, rc, rd, MPI_INT, MPI_COMM_WORLD);
  MPI_Reduce_scatter_block(src, dst, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  int all = 0;
  for (int j = 0; j < P; j++)
    all += cnt[j];
  for (int i = 0; i < P; i++) {
    int next = (i + 1) % P;
    for (int k = 0; k < P - 1; k++)
      expect(i, next, 20);
    eb[i][next] += 4 * (uint64_t)(all - cnt[next]);
    em[i][next] += P - 1;
    for (int j = 0; j < P; j++) {
      if (j == i)
        continue;
      expect(i, j, 8);
      expect(i, j, 4 * (uint64_t)((i + 1) * (j + 1)));
      expect(i, j, 8);
    }
  }
}

/* A communicator of world ranks 0..2 in reverse order (rank s is world
 * 2 - s), and a duplicate of the world. */
static void other_comms(int r)
{
  MPI_Comm sub, dup;
  double d[2] = {0}, dr[2];
  char buf[40] = {0};
  MPI_Comm_split(MPI_COMM_WORLD, r < 3 ? 0 : MPI_UNDEFINED, -r, &sub);
  if (sub != MPI_COMM_NULL) {
    MPI_Allreduce(d, dr, 2, MPI_DOUBLE, MPI_SUM, sub);
    MPI_Bcast(buf, 40, MPI_CHAR, 0, sub);
    MPI_Comm_free(&sub);
  }
  const int rev[3] = {2, 1, 0};
  /* Allreduce on 3 processes, listed by hand (coll.h): 0 hands its data
   * to 1; 1 and 2 exchange; 1 sends the result back to 0. */
  expect(rev[0], rev[1], 16);
  expect(rev[1], rev[2], 16);
  expect(rev[2], rev[1], 16);
  expect(rev[1], rev[0], 16);
  expect_bcast(3, 0, 40, rev);
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Allreduce(d, dr, 1, MPI_DOUBLE, MPI_MAX, dup);
  expect_allreduce_pow2(P, 8, world_map);
  MPI_Comm_free(&dup);
}

/* One-sided: r puts 5 ints into r + 1 and gets 3 doubles from r + 2 (the
 * data of a get flows from the target). */
static void one_sided(int r)
{
  double mem[16] = {0}, got[3];
  int five[5] = {0};
  MPI_Win w;
  MPI_Win_create(mem, sizeof mem, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w);
  MPI_Win_fence(0, w);
  MPI_Put(five, 5, MPI_INT, (r + 1) % P, 0, 5, MPI_INT, w);
  MPI_Get(got, 3, MPI_DOUBLE, (r + 2) % P, 64, 3, MPI_DOUBLE, w);
  MPI_Win_fence(0, w);
  MPI_Win_free(&w);
  for (int i = 0; i < P; i++) {
    expect(i, (i + 1) % P, 20);
    expect((i + 2) % P, i, 24);
  }
}

static void write_mtx(const char *prefix, const char *what, uint64_t m[P][P])
{
  char path[4096];
  snprintf(path, sizeof path, "%s.%s.mtx", prefix, what);
  FILE *f = fopen(path, "w");
  if (!f)
    die("cannot write the expected matrix");
  int nnz = 0;
  for (int i = 0; i < P; i++)
    for (int j = 0; j < P; j++)
      nnz += m[i][j] != 0;
  fprintf(f, "%%%%MatrixMarket matrix coordinate integer general\n%d %d %d\n", P, P, nnz);
  for (int i = 0; i < P; i++)
    for (int j = 0; j < P; j++)
      if (m[i][j])
        fprintf(f, "%d %d %llu\n", i + 1, j + 1, (unsigned long long)m[i][j]);
  fclose(f);
}

int main(int argc, char **argv)
{
  int r, p;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  if (p != P || argc != 2)
    die("run on 4 processes: known-traffic OUTPREFIX");
  p2p(r);
  persistent(r);
  rooted_and_reductions();
  gathers_and_alltoalls(r);
  other_comms(r);
  one_sided(r);
  if (r == 0) {
    write_mtx(argv[1], "bytes", eb);
    write_mtx(argv[1], "msgs", em);
  }
  MPI_Finalize();
  return 0;
}
