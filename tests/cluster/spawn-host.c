/* spawn-host KEY VALUE N: the parents (every rank of the world) spawn N
 * children with the info KEY=VALUE (e.g. add-host node3:2, host node3:2);
 * each child sends its host name to the parents' rank 0, which prints
 *
 *   parent R on HOST        (every parent)
 *   child R on HOST         (every child, printed by the parents' rank 0)
 *   spawn S s               (MPI_Comm_spawn's wall time, rank 0)
 *
 * so that a test can check where the children really run. A sum over the
 * merged communicator checks that parents and children talk. Exit status 0
 * when everything worked. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

enum { NAME_LEN = 256 };

static int child_main(MPI_Comm parent)
{
  char host[NAME_LEN] = "";
  MPI_Comm merged;
  int one = 1, sum = 0;

  gethostname(host, sizeof host - 1);
  MPI_Send(host, NAME_LEN, MPI_CHAR, 0, 0, parent);
  MPI_Intercomm_merge(parent, 1, &merged);
  MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, merged);
  MPI_Comm_free(&merged);
  MPI_Comm_disconnect(&parent);
  return MPI_Finalize() == MPI_SUCCESS ? 0 : 1;
}

/* Receives one host name per child on rank 0 and prints them. */
static void report_children(MPI_Comm inter, int n)
{
  char host[NAME_LEN];
  MPI_Status st;

  for (int i = 0; i < n; i++) {
    MPI_Recv(host, NAME_LEN, MPI_CHAR, MPI_ANY_SOURCE, 0, inter, &st);
    host[NAME_LEN - 1] = '\0';
    printf("child %d on %s\n", st.MPI_SOURCE, host);
  }
}

static int parent_main(const char *prog, const char *key, const char *value, int n)
{
  char host[NAME_LEN] = "";
  int rank, size, one = 1, sum = 0, errcodes[64];
  MPI_Info info;
  MPI_Comm inter, merged;
  double t0;

  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  gethostname(host, sizeof host - 1);
  printf("parent %d on %s\n", rank, host);
  fflush(stdout);
  MPI_Info_create(&info);
  MPI_Info_set(info, key, value);
  t0 = MPI_Wtime();
  MPI_Comm_spawn(prog, MPI_ARGV_NULL, n, info, 0, MPI_COMM_WORLD, &inter, errcodes);
  if (rank == 0) {
    printf("spawn %.2f s\n", MPI_Wtime() - t0);
    report_children(inter, n);
  }
  MPI_Info_free(&info);
  MPI_Intercomm_merge(inter, 0, &merged);
  MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, merged);
  MPI_Comm_free(&merged);
  MPI_Comm_disconnect(&inter);
  if (sum != size + n) {
    fprintf(stderr, "spawn-host: sum over parents and children is %d, expected %d\n", sum, size + n);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  fflush(stdout);
  return MPI_Finalize() == MPI_SUCCESS ? 0 : 1;
}

int main(int argc, char **argv)
{
  MPI_Comm parent;
  int n;

  MPI_Init(&argc, &argv);
  MPI_Comm_get_parent(&parent);
  if (parent != MPI_COMM_NULL)
    return child_main(parent);
  if (argc != 4 || sscanf(argv[3], "%d", &n) != 1 || n < 1 || n > 64) {
    fprintf(stderr, "usage: spawn-host KEY VALUE N (1 <= N <= 64)\n");
    MPI_Finalize();
    return 2;
  }
  return parent_main(argv[0], argv[1], argv[2], n);
}
