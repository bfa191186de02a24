/*
 * proxy-lammps: the communication of a LAMMPS timestep (paper 004's
 * rhodopsin runs) without the physics, for SimGrid's SMPI and for real
 * MPI (to check its matrix with morph prof).
 *
 * The P processes form a periodic px x py x pz grid (rank = z + pz * (y +
 * py * x), LAMMPS's default order, make_grid()), each timestep:
 *  - pair forces: --flops of computation (simulated under SMPI);
 *  - halo exchange: both ways along x, then y, then z (MPI_Sendrecv), one
 *    --halo bytes message per face, as LAMMPS's forward/reverse comm;
 *  - PPPM long-range forces: a 3-D FFT forward and back, each a transpose
 *    within the lines of processes along x, y and z (MPI_Alltoall on line
 *    communicators): --fft is a process's share of the FFT grid in bytes,
 *    and a transpose along a line of L processes sends it in L pieces of
 *    --fft / L, as a real transpose does (so a grid of other proportions,
 *    or more processes on the same problem, moves the right volumes);
 *  - thermo and neighbour-list checks: MPI_Allreduce of 1 int every step
 *    and of 6 doubles every 10 steps; atom migration every 10 steps (a
 *    tenth of a halo to each face).
 * So a rank talks to ranks i +- 1..pz-1, +- pz.., +- pz*py..: the banded
 * matrix of the paper's figure 1a. Rank 0 prints "timesteps/s <value>"
 * (simulated time under SMPI).
 *
 * usage: proxy-lammps [--steps N] [--grid PXxPYxPZ] [--halo BYTES]
 *                     [--fft BYTES] [--flops F]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proxy.h"

typedef struct opts {
  int steps, g[3];
  long halo, fft;
  double flops;
} opts;

static int parse(int argc, char **argv, opts *o)
{
  for (int i = 1; i + 1 < argc; i += 2) {
    const char *k = argv[i], *v = argv[i + 1];
    if (!strcmp(k, "--steps"))
      o->steps = atoi(v);
    else if (!strcmp(k, "--grid"))
      sscanf(v, "%dx%dx%d", &o->g[0], &o->g[1], &o->g[2]);
    else if (!strcmp(k, "--halo"))
      o->halo = atol(v);
    else if (!strcmp(k, "--fft"))
      o->fft = atol(v);
    else if (!strcmp(k, "--flops"))
      o->flops = atof(v);
    else
      return -1;
  }
  return o->steps > 0 && o->g[0] > 0 && o->g[1] > 0 && o->g[2] > 0 && o->halo > 0 && o->fft > 0 ? 0 : -1;
}

typedef struct grid {
  int c[3];         /* my coordinates */
  int up[3], dn[3]; /* neighbour ranks along each dimension */
  MPI_Comm line[3]; /* processes sharing my other two coordinates */
} grid;

/* Ranks in LAMMPS's default order ("processors ... map cart"): ProcMap::
 * cart_map calls MPI_Cart_create(world, 3, procgrid, periods, reorder = 0),
 * whose ranks are row-major, z fastest: rank = z + pz * (y + py * x). */
static void make_grid(const opts *o, int rank, grid *g)
{
  int *d = (int *)o->g, stride[3] = {d[1] * d[2], d[2], 1};
  g->c[2] = rank % d[2], g->c[1] = rank / d[2] % d[1], g->c[0] = rank / (d[1] * d[2]);
  for (int k = 0; k < 3; k++) {
    int base = rank - g->c[k] * stride[k];
    g->up[k] = base + (g->c[k] + 1) % d[k] * stride[k];
    g->dn[k] = base + (g->c[k] + d[k] - 1) % d[k] * stride[k];
    /* colour: the other two coordinates; key: mine along k */
    MPI_Comm_split(MPI_COMM_WORLD, base, g->c[k], &g->line[k]);
  }
}

static void halo(const grid *g, char *out, char *in, long bytes)
{
  for (int k = 0; k < 3; k++) {
    MPI_Sendrecv(out, (int)bytes, MPI_BYTE, g->up[k], k, in, (int)bytes, MPI_BYTE, g->dn[k], k,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(out, (int)bytes, MPI_BYTE, g->dn[k], 3 + k, in, (int)bytes, MPI_BYTE, g->up[k],
                 3 + k, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
}

static void fft(const grid *g, const opts *o, char *out, char *in)
{
  for (int pass = 0; pass < 2; pass++) /* forward, then back */
    for (int k = 0; k < 3; k++) {
      int piece = (int)(o->fft / o->g[k]);
      MPI_Alltoall(out, piece, MPI_BYTE, in, piece, MPI_BYTE, g->line[k]);
    }
}

static void step(const grid *g, const opts *o, int s, char *out, char *in)
{
  int flag = 0, any;
  double thermo[6] = {0}, sum[6];
  proxy_compute(o->flops);
  halo(g, out, in, o->halo);
  fft(g, o, out, in);
  MPI_Allreduce(&flag, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (s % 10 == 9) {
    halo(g, out, in, o->halo / 10);
    MPI_Allreduce(thermo, sum, 6, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
}

/* Defaults: the hand-set values before bench/reproduce-tofa.sh calibrated
 * the proxy to paper 004's Table 1 (it passes --flops, --halo, --fft). */
int main(int argc, char **argv)
{
  opts o = {.steps = 100, .g = {4, 4, 4}, .halo = 48 << 10, .fft = 64 << 10, .flops = 1.5e7};
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (parse(argc, argv, &o) || size != o.g[0] * o.g[1] * o.g[2]) {
    if (rank == 0)
      fprintf(stderr, "proxy-lammps: bad arguments or %d processes for a %dx%dx%d grid\n", size,
              o.g[0], o.g[1], o.g[2]);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  grid g;
  make_grid(&o, rank, &g);
  long big = o.halo > o.fft ? o.halo : o.fft; /* a face, or a line's transpose */
  char *out = proxy_buffer((size_t)big), *in = proxy_buffer((size_t)big);
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  for (int s = 0; s < o.steps; s++)
    step(&g, &o, s, out, in);
  MPI_Barrier(MPI_COMM_WORLD);
  double t = MPI_Wtime() - t0;
  if (rank == 0)
    printf("proxy-lammps: %d processes, %d steps in %.6f s\ntimesteps/s %.3f\n", size, o.steps, t,
           o.steps / t);
  for (int k = 0; k < 3; k++)
    MPI_Comm_free(&g.line[k]);
  proxy_free(out);
  proxy_free(in);
  MPI_Finalize();
  return 0;
}
