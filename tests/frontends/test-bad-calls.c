/*
 * test-bad-calls: the split point and the front-ends called out of order,
 * or mixed. Runs standalone (mpirun -n 2, no launcher: no decision ever
 * arrives). Every case prints "ok" or "FAIL" with what it got; the last
 * line is "N passed, N failed" and the exit status is the failure count.
 *   test-bad-calls native | adapt | pcm
 */
#include <stdio.h>
#include <string.h>

#include "morph.h"
#include "morph/adapt.h"
#include "morph/pcm.h"

static int passed, failed;

static void expect(const char *what, int got, int want, const char *msg, const char *needle)
{
  int ok = got == want && (!needle || strstr(msg, needle));
  ok ? passed++ : failed++;
  if (got >= 0) /* a value, or success: the message is an older one */
    printf("%s %s: %d\n", ok ? "ok" : "FAIL", what, got);
  else
    printf("%s %s: %s: %s\n", ok ? "ok" : "FAIL", what, morph_err_name(got), msg);
}

static void native(void)
{
  int provided;
  MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, &provided);
  morph_ctx *m;
  morph_open(MPI_COMM_WORLD, NULL, &m);
  morph_status st;
  morph_window_info in;
  morph_change ch;
  expect("commit without begin", morph_commit(m, MORPH_OK, &st), MORPH_ESTATE, morph_errmsg(m),
         "without morph_begin");
  expect("begin without a pending change", morph_begin(m, &in), MORPH_ESTATE, morph_errmsg(m),
         "no reconfiguration pending");
  expect("probe with NULL change", morph_probe(m, NULL), MORPH_EINVAL, "", NULL);
  expect("probe, no launcher", morph_probe(m, &ch), MORPH_OK, morph_errmsg(m), NULL);
  expect("nothing pending", ch.pending, 0, "", NULL);
  expect("registration with no context", morph_data_replicated(NULL, "x", &provided, 1, MPI_INT),
         MORPH_EINVAL, "", NULL);
  expect("front-end claim", morph_frontend_claim(m, "Test"), MORPH_OK, morph_errmsg(m), NULL);
  expect("native point on a claimed context", morph_point(m, &st), MORPH_ESTATE, morph_errmsg(m),
         "driven by the Test front-end");
  expect("native probe on a claimed context", morph_probe(m, &ch), MORPH_ESTATE, morph_errmsg(m),
         "driven by the Test front-end");
  expect("second front-end", morph_frontend_claim(m, "Other"), MORPH_EBUSY, morph_errmsg(m),
         "already driven by the Test");
  morph_frontend_enter(m);
  expect("the front-end's own probe", morph_probe(m, &ch), MORPH_OK, morph_errmsg(m), NULL);
  morph_frontend_leave(m);
  morph_finalize(m, 0);
}

static void adapt(void)
{
  int flag, status;
  MPI_Comm inter, world;
  int s, l, j;
  expect("MPI_Probe_adapt before MPI_Init_adapt", MPI_Probe_adapt(&flag, &status, NULL),
         MORPH_ESTATE, MORPH_Adapt_errmsg(), "before MPI_Init_adapt");
  expect("MPI_Comm_adapt_commit before MPI_Init_adapt", MPI_Comm_adapt_commit(), MORPH_ESTATE,
         MORPH_Adapt_errmsg(), "without MPI_Comm_adapt_begin");
  expect("MPI_Init_adapt", MPI_Init_adapt(NULL, NULL, &status), MPI_SUCCESS, MORPH_Adapt_errmsg(),
         NULL);
  expect("status NEW", status, MPI_ADAPT_STATUS_NEW, "", NULL);
  expect("MPI_Init_adapt twice", MPI_Init_adapt(NULL, NULL, &status), MORPH_ESTATE,
         MORPH_Adapt_errmsg(), "called twice");
  expect("MPI_Probe_adapt", MPI_Probe_adapt(&flag, &status, NULL), MPI_SUCCESS,
         MORPH_Adapt_errmsg(), NULL);
  expect("no adaptation", flag, MPI_ADAPT_FALSE, "", NULL);
  expect("status STAYING", status, MPI_ADAPT_STATUS_STAYING, "", NULL);
  expect("MPI_Comm_adapt_begin without a pending adaptation",
         MPI_Comm_adapt_begin(&inter, &world, &s, &l, &j), MORPH_ESTATE, MORPH_Adapt_errmsg(),
         "no reconfiguration pending");
  expect("MPI_Comm_adapt_commit without begin", MPI_Comm_adapt_commit(), MORPH_ESTATE,
         MORPH_Adapt_errmsg(), "without MPI_Comm_adapt_begin");
  morph_status st;
  morph_ctx *m = MORPH_Adapt_ctx();
  expect("morph_point on the front-end's context", morph_point(m, &st), MORPH_ESTATE,
         morph_errmsg(m), "Elastic MPI");
  MPI_Finalize();
}

static void pcm(void)
{
  int x = 7, y = 0, rank = 0, np = 1;
  double *buf = NULL;
  MPI_Comm world = MPI_COMM_NULL;
  expect("PCM_Status before MPI_PCM_Init", PCM_Status(world), MORPH_ESTATE, MORPH_PCM_errmsg(),
         "before MPI_PCM_Init");
  expect("PCM_Store before MPI_PCM_Init", PCM_Store(0, "x", &x, PCM_INT, 1), MORPH_ESTATE,
         MORPH_PCM_errmsg(), "before MPI_PCM_Init");
  expect("MPI_PCM_Init", MPI_PCM_Init(NULL, NULL), MORPH_OK, MORPH_PCM_errmsg(), NULL);
  expect("MPI_PCM_Init twice", MPI_PCM_Init(NULL, NULL), MORPH_ESTATE, MORPH_PCM_errmsg(),
         "called twice");
  expect("PCM_Init", PCM_Init(&world), MORPH_OK, MORPH_PCM_errmsg(), NULL);
  expect("PCM_Process_Status", PCM_Process_Status(), PCM_STARTED, "", NULL);
  PCM_Comm_rank(world, &rank);
  expect("PCM_Split without PCM_SPLIT announced",
         PCM_Split(&buf, PCM_DOUBLE, &x, &y, &y, &rank, &np, &world, "x"), MORPH_ESTATE,
         MORPH_PCM_errmsg(), "without PCM_Status returning PCM_SPLIT");
  expect("PCM_Merge_datacnts without PCM_MERGE announced",
         PCM_Merge_datacnts(1, 1, &x, &y, world), MORPH_ESTATE, MORPH_PCM_errmsg(),
         "without PCM_Status returning PCM_MERGE");
  expect("PCM_Status, no launcher", PCM_Status(world), MORPH_PCM_NONE, MORPH_PCM_errmsg(), NULL);
  expect("PCM_Store, empty key", PCM_Store(rank, "", &x, PCM_INT, 1), MORPH_EINVAL,
         MORPH_PCM_errmsg(), "key NULL, empty");
  expect("PCM_Store, negative count", PCM_Store(rank, "x", &x, PCM_INT, -1), MORPH_EINVAL,
         MORPH_PCM_errmsg(), "count -1");
  x = 42;
  expect("PCM_Store", PCM_Store(rank, "x", &x, PCM_INT, 1), MORPH_OK, MORPH_PCM_errmsg(), NULL);
  x = 0;
  expect("PCM_Load", PCM_Load(rank, "x", &x), MORPH_OK, MORPH_PCM_errmsg(), NULL);
  expect("PCM_Load's value", x, 42, "", NULL);
  expect("PCM_Load of a missing key", PCM_Load(rank, "nothing", &x), MORPH_ENOENT,
         MORPH_PCM_errmsg(), "nothing stored under 'nothing'");
  expect("PCM_Reconfigure, no migration", PCM_Reconfigure(&world, "x"), MORPH_ESTATE,
         MORPH_PCM_errmsg(), "no migration announced");
  morph_status st;
  morph_ctx *m = MORPH_PCM_ctx();
  expect("morph_point on the PCM context", morph_point(m, &st), MORPH_ESTATE, morph_errmsg(m),
         "driven by the PCM");
  expect("another front-end on the PCM context", morph_frontend_claim(m, "DMRlib"), MORPH_EBUSY,
         morph_errmsg(m), "already driven by the PCM");
  expect("PCM_Finalize", PCM_Finalize(world), 0, MORPH_PCM_errmsg(), NULL);
  expect("MPI_Finalize after PCM_Finalize", MPI_Finalize(), MPI_SUCCESS, "", NULL);
  expect("PCM_Status after PCM_Finalize", PCM_Status(world), MORPH_ESTATE, MORPH_PCM_errmsg(),
         "before MPI_PCM_Init");
}

int main(int argc, char **argv)
{
  if (argc > 1 && !strcmp(argv[1], "adapt"))
    adapt();
  else if (argc > 1 && !strcmp(argv[1], "pcm"))
    pcm();
  else
    native();
  printf("%d passed, %d failed\n", passed, failed);
  return failed;
}
