/* The mpirun / mpiexec command of a malleable job, built without a launch
 * (as a resource manager's backend would): launcher, its options, the
 * MORPH_* variables, extra arguments, -n, then the program. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "launch/mpicmd.h"
#include "morph/error.h"

extern char **environ;

/* Leaves MORPH_SOCKET as the only MORPH_* variable, so the -x list is
 * known, and no TCP interface chosen (a job alone on this host gets
 * loopback). */
static int one_morph_variable(void **state)
{
  (void)state;
  for (char **e = environ; *e;) {
    if (strncmp(*e, "MORPH_", 6) != 0) {
      e++;
      continue;
    }
    char name[256];
    snprintf(name, sizeof name, "%.*s", (int)strcspn(*e, "="), *e);
    unsetenv(name);
  }
  setenv("MORPH_SOCKET", "/tmp/x.sock", 1);
  static const char *const tcp[] = {"OMPI_MCA_btl_tcp_if_include", "OMPI_MCA_btl_tcp_if_exclude",
                                    "OMPI_MCA_oob_tcp_if_include", "OMPI_MCA_oob_tcp_if_exclude"};
  for (size_t k = 0; k < sizeof tcp / sizeof *tcp; k++)
    unsetenv(tcp[k]);
  return 0;
}

/* Compares the built command with the expected words, NULL-terminated. */
static void assert_command(const struct morph__launch_mpicmd *c, int np,
                           const char *const *want)
{
  struct morph__launch_argv a;
  assert_int_equal(morph__launch_mpi_command(c, np, &a), MORPH_OK);
  int n = 0;
  for (; want[n]; n++) {
    assert_true(n < a.n);
    assert_string_equal(a.v[n], want[n]);
  }
  assert_int_equal(a.n, n);
  assert_null(a.v[a.n]);
  morph__launch_argv_free(&a);
}

static void test_openmpi_with_recovery(void **state)
{
  (void)state;
  char *app[] = {"./jacobi.ompi", "--iters", "80", NULL};
  struct morph__launch_mpicmd c = {.mpi = MORPH__LAUNCH_MPI_OPENMPI, .app = app};
  static const char *const want[] = {
    "mpirun.openmpi", "--oversubscribe", "--mca", "btl_tcp_if_include", "lo", "--mca",
    "oob_tcp_if_include", "lo", "--enable-recovery", "--mca",
    "orte_abort_on_non_zero_status", "0", "--mca", "orte_allowed_exit_without_sync", "1",
    "--mca", "pmix_base_exchange_timeout", "60", "-x", "MORPH_SOCKET", "-n", "4", "./jacobi.ompi",
    "--iters", "80", NULL,
  };
  assert_true(morph__launch_mpi_recovers(&c));
  assert_command(&c, 4, want);
}

/* The user's own choice of Open MPI's TCP interfaces replaces loopback. */
static void test_openmpi_user_tcp_interfaces_win(void **state)
{
  (void)state;
  char *app[] = {"./jacobi.ompi", NULL};
  struct morph__launch_mpicmd c = {.mpi = MORPH__LAUNCH_MPI_OPENMPI, .app = app,
                                   .no_recovery = 1};
  static const char *const want[] = {
    "mpirun.openmpi", "--oversubscribe", "--mca", "orte_allowed_exit_without_sync", "1",
    "--mca", "pmix_base_exchange_timeout", "20", "-x", "MORPH_SOCKET", "-x", "MORPH_STEP_TIMEOUT",
    "-n", "2", "./jacobi.ompi", NULL,
  };
  setenv("OMPI_MCA_btl_tcp_if_include", "eth0", 1);
  setenv("MORPH_STEP_TIMEOUT", "9.5", 1); /* the PMIx exchange gets no longer */
  assert_command(&c, 2, want);
  unsetenv("OMPI_MCA_btl_tcp_if_include");
  unsetenv("MORPH_STEP_TIMEOUT");
}

/* Writes text to a new temporary file; its path in path. */
static void temp_file(char *path, const char *text)
{
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
  close(fd);
}

static void test_openmpi_hostfile_with_slots_no_recovery(void **state)
{
  (void)state;
  char path[] = "/tmp/test-launch-mpicmd-XXXXXX";
  temp_file(path, "node1 slots=4\n");
  char *app[] = {"prog", NULL};
  /* The user's own PMIx exchange time-out wins. */
  const char *args[] = {"--bind-to", "none", "--mca", "pmix_base_exchange_timeout", "5"};
  struct morph__launch_mpicmd c = {.mpi = MORPH__LAUNCH_MPI_OPENMPI, .mpirun = "/opt/mpirun",
                                   .hostfile = path, .args = args, .n_args = 5,
                                   .no_recovery = 1, .app = app};
  const char *const want[] = {
    "/opt/mpirun", "--hostfile", path, "--mca", "orte_allowed_exit_without_sync", "1", "-x",
    "MORPH_SOCKET", "--bind-to", "none", "--mca", "pmix_base_exchange_timeout", "5", "-n", "2",
    "prog", NULL,
  };
  assert_false(morph__launch_mpi_recovers(&c));
  assert_command(&c, 2, want);
  unlink(path);
}

/* Several hosts: Open MPI gets --oversubscribe even with slots, since a
 * placeholder of a live shrink holds one of its host's slots in Open
 * MPI's count (docs/runtime.md). */
static void test_openmpi_hostfile_of_several_hosts_oversubscribes(void **state)
{
  (void)state;
  char path[] = "/tmp/test-launch-mpicmd-XXXXXX";
  temp_file(path, "node1 slots=2\nnode2 slots=2 # two\n");
  char *app[] = {"prog", NULL};
  struct morph__launch_mpicmd c = {.mpi = MORPH__LAUNCH_MPI_OPENMPI, .mpirun = "/opt/mpirun",
                                   .hostfile = path, .no_recovery = 1, .app = app};
  const char *const want[] = {
    "/opt/mpirun", "--oversubscribe", "--hostfile", path, "--mca",
    "orte_allowed_exit_without_sync", "1", "--mca", "pmix_base_exchange_timeout", "60", "-x",
    "MORPH_SOCKET", "-n", "2", "prog", NULL,
  };
  assert_command(&c, 2, want);
  unlink(path);
}

/* Hydra refuses Open MPI's "slots=" in a hostfile: MPICH gets the
 * hostfile, in either format, as a -hosts list. */
static void test_mpich_hostfile_as_host_list(void **state)
{
  (void)state;
  char path[] = "/tmp/test-launch-mpicmd-XXXXXX";
  temp_file(path, "# five hosts\nnode1 slots=2 max_slots=4\n\n  node2:3\nnode3\tslots=1 # last\nnode4\n"
            "node5 max_slots=4 slots=2\nnode6 # slots=9\n");
  char *app[] = {"./cg.mpich", NULL};
  struct morph__launch_mpicmd c = {.mpi = MORPH__LAUNCH_MPI_MPICH, .hostfile = path, .app = app};
  static const char *const want[] = {
    "mpiexec.mpich", "-genvall", "-hosts", "node1:2,node2:3,node3:1,node4,node5:2,node6", "-n", "3",
    "./cg.mpich", NULL,
  };
  assert_false(morph__launch_mpi_recovers(&c));
  assert_command(&c, 3, want);
  unlink(path);
}

static void test_mpich_hostfile_errors(void **state)
{
  (void)state;
  char path[] = "/tmp/test-launch-mpicmd-XXXXXX";
  temp_file(path, "# nothing\n\n");
  char *app[] = {"./cg.mpich", NULL};
  struct morph__launch_mpicmd c = {.mpi = MORPH__LAUNCH_MPI_MPICH, .hostfile = path, .app = app};
  struct morph__launch_argv a = {0};
  assert_int_equal(morph__launch_mpi_command(&c, 2, &a), MORPH_EINVAL);
  assert_null(a.v);
  unlink(path);
  assert_int_equal(morph__launch_mpi_command(&c, 2, &a), MORPH_EIO);
  assert_null(a.v);
}

static void test_flavour_names(void **state)
{
  (void)state;
  assert_int_equal(morph__launch_mpi_parse("mpich"), MORPH__LAUNCH_MPI_MPICH);
  assert_int_equal(morph__launch_mpi_parse("openmpi"), MORPH__LAUNCH_MPI_OPENMPI);
  assert_int_equal(morph__launch_mpi_parse("auto"), MORPH__LAUNCH_MPI_AUTO);
  assert_int_equal(morph__launch_mpi_parse("lam"), -1);
  assert_string_equal(morph__launch_mpi_name(MORPH__LAUNCH_MPI_MPICH), "mpich");
  char why[128];
  assert_int_equal(morph__launch_mpi_detect("bin/heat.mpich", why, sizeof why),
                   MORPH__LAUNCH_MPI_MPICH);
  assert_non_null(strstr(why, ".mpich"));
}

/* `env NAME=VALUE PROG`: PROG is the application (joiners are spawned
 * as PROG, without the wrapper), the variables go to every process;
 * env with an option, or without a program, stays as it is. */
static void test_env_wrapper_unwrapped(void **state)
{
  (void)state;
  char *app[] = {"/usr/bin/env", "APP_TEST_VAR=x y", "./jacobi.ompi", "--iters", "8", NULL};
  struct morph__launch_mpicmd c = {.mpi = MORPH__LAUNCH_MPI_OPENMPI, .app = app};
  assert_int_equal(morph__launch_mpi_unwrap_env(&c), 1);
  assert_string_equal(c.app[0], "./jacobi.ompi");
  assert_string_equal(getenv("APP_TEST_VAR"), "x y");
  static const char *const want[] = {
    "mpirun.openmpi", "--oversubscribe", "--mca", "btl_tcp_if_include", "lo", "--mca",
    "oob_tcp_if_include", "lo", "--enable-recovery", "--mca",
    "orte_abort_on_non_zero_status", "0", "--mca", "orte_allowed_exit_without_sync", "1",
    "--mca", "pmix_base_exchange_timeout", "60", "-x", "MORPH_SOCKET", "-x", "APP_TEST_VAR", "-n",
    "2", "./jacobi.ompi", "--iters", "8",
    NULL,
  };
  assert_command(&c, 2, want);
  unsetenv("APP_TEST_VAR");
  char *opt[] = {"env", "-i", "A=1", "./jacobi.ompi", NULL};
  char *bare[] = {"env", "A=1", NULL};
  char *other[] = {"./envx", "A=1", "./jacobi.ompi", NULL};
  char **keep[] = {opt, bare, other};
  for (int i = 0; i < 3; i++) {
    struct morph__launch_mpicmd k = {.mpi = MORPH__LAUNCH_MPI_OPENMPI, .app = keep[i]};
    assert_int_equal(morph__launch_mpi_unwrap_env(&k), 0);
    assert_ptr_equal(k.app, keep[i]);
    assert_int_equal(k.n_env, 0);
  }
}

/* Every Open MPI job gets a session folder base of its own (two jobs'
 * orteds racing on one shared folder end a job); a base the user chose,
 * in the environment or with --mpi-arg, wins; MPICH gets none. */
static void test_openmpi_session_base_unless_user_chose(void **state)
{
  (void)state;
  char *app[] = {"prog", NULL};
  struct morph__launch_mpicmd c = {.mpi = MORPH__LAUNCH_MPI_OPENMPI, .app = app, .no_recovery = 1,
                                   .session_base = "/tmp/morph-node1-42"};
  static const char *const want[] = {
    "mpirun.openmpi", "--oversubscribe", "--mca", "btl_tcp_if_include", "lo", "--mca",
    "oob_tcp_if_include", "lo", "--mca", "orte_tmpdir_base", "/tmp/morph-node1-42", "--mca",
    "orte_allowed_exit_without_sync", "1", "--mca", "pmix_base_exchange_timeout", "60", "-x",
    "MORPH_SOCKET", "-n", "2", "prog", NULL,
  };
  assert_string_equal(morph__launch_mpi_session_base(&c), "/tmp/morph-node1-42");
  assert_command(&c, 2, want);

  static const char *const user[] = {
    "mpirun.openmpi", "--oversubscribe", "--mca", "btl_tcp_if_include", "lo", "--mca",
    "oob_tcp_if_include", "lo", "--mca", "orte_allowed_exit_without_sync", "1", "--mca",
    "pmix_base_exchange_timeout", "60", "-x", "MORPH_SOCKET", "-n", "2", "prog", NULL,
  };
  setenv("OMPI_MCA_orte_tmpdir_base", "/scratch", 1);
  assert_null(morph__launch_mpi_session_base(&c));
  assert_command(&c, 2, user);
  unsetenv("OMPI_MCA_orte_tmpdir_base");
  /* A value that merely mentions the name is not a choice of it. */
  setenv("OMPI_MCA_orte_base_help_aggregate", "tmpdir_base", 1);
  assert_non_null(morph__launch_mpi_session_base(&c));
  unsetenv("OMPI_MCA_orte_base_help_aggregate");

  const char *args[] = {"--mca", "orte_remote_tmpdir_base", "/scratch"};
  c.args = args, c.n_args = 3;
  assert_null(morph__launch_mpi_session_base(&c));
  c.n_args = 0;
  c.mpi = MORPH__LAUNCH_MPI_MPICH;
  assert_null(morph__launch_mpi_session_base(&c));
  static const char *const mpich[] = {"mpiexec.mpich", "-genvall", "-n", "2", "prog", NULL};
  assert_command(&c, 2, mpich);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup(test_openmpi_with_recovery, one_morph_variable),
    cmocka_unit_test_setup(test_openmpi_user_tcp_interfaces_win, one_morph_variable),
    cmocka_unit_test_setup(test_openmpi_session_base_unless_user_chose, one_morph_variable),
    cmocka_unit_test_setup(test_openmpi_hostfile_with_slots_no_recovery, one_morph_variable),
    cmocka_unit_test_setup(test_openmpi_hostfile_of_several_hosts_oversubscribes,
                           one_morph_variable),
    cmocka_unit_test_setup(test_mpich_hostfile_as_host_list, one_morph_variable),
    cmocka_unit_test_setup(test_mpich_hostfile_errors, one_morph_variable),
    cmocka_unit_test(test_flavour_names),
    cmocka_unit_test_setup(test_env_wrapper_unwrapped, one_morph_variable),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
