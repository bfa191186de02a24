/* The base of a job's Open MPI session folders (launch/session.h): its
 * name, and its removal here and on every host of the hostfile through
 * the launcher's agent (here a fake agent that runs the command on this
 * host and notes the host it was asked for). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/clock.h"
#include "launch/session.h"
#include "morph/error.h"

static char dir[] = "/tmp/test-launch-session-XXXXXX";

static void write_file(const char *path, const char *text, int mode)
{
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
  chmod(path, (mode_t)mode);
}

static void test_name_unique_and_shell_safe(void **state)
{
  (void)state;
  char name[256], want[64], host[256] = "";
  setenv("TMPDIR", "/var/tmp", 1);
  assert_int_equal(morph__launch_session_name(name, sizeof name), MORPH_OK);
  gethostname(host, sizeof host - 1);
  host[strcspn(host, ".")] = '\0';
  snprintf(want, sizeof want, "-%ld-", (long)getpid());
  assert_int_equal(strncmp(name, "/var/tmp/morph-", 15), 0);
  assert_non_null(strstr(name, host));
  /* The pid, then 8 random hex digits: another user cannot guess it. */
  const char *tail = name + strlen(name) - 8;
  assert_memory_equal(tail - strlen(want), want, strlen(want));
  assert_int_equal(strspn(tail, "0123456789abcdef"), 8);
  char again[256];
  assert_int_equal(morph__launch_session_name(again, sizeof again), MORPH_OK);
  assert_string_not_equal(name, again);
  /* A TMPDIR a shell would read otherwise is not used. */
  setenv("TMPDIR", "/tmp/a b'c", 1);
  assert_int_equal(morph__launch_session_name(name, sizeof name), MORPH_OK);
  assert_int_equal(strncmp(name, "/tmp/morph-", 11), 0);
  unsetenv("TMPDIR");
  assert_int_equal(morph__launch_session_name(name, 8), MORPH_EINVAL);
}

static void test_removed_here_and_on_every_host(void **state)
{
  (void)state;
  char base[512], deep[600], agent[600], log[600], hosts[600], cmd[1400];
  snprintf(base, sizeof base, "%s/morph-h-1", dir);
  snprintf(deep, sizeof deep, "%s/ompi.h.0/jf.1", base);
  snprintf(log, sizeof log, "%s/agent.log", dir);
  snprintf(agent, sizeof agent, "%s/agent", dir);
  snprintf(hosts, sizeof hosts, "%s/hosts", dir);
  snprintf(cmd, sizeof cmd, "mkdir -p %s && touch %s/x", deep, deep);
  assert_int_equal(system(cmd), 0);
  snprintf(cmd, sizeof cmd, "#!/bin/sh\necho \"$1\" >> %s\nshift\nexec sh -c \"$*\"\n", log);
  write_file(agent, cmd, 0755);
  write_file(hosts, "# two hosts\nnode1 slots=2\n\nnode2:2\n", 0644);
  setenv("OMPI_MCA_plm_rsh_agent", agent, 1);
  assert_int_equal(morph__launch_session_remove(base, hosts, NULL, 10.0), 0);
  assert_int_equal(access(base, F_OK), -1);
  FILE *f = fopen(log, "r");
  assert_non_null(f);
  char seen[64] = "", line[32];
  while (fgets(line, sizeof line, f))
    strncat(seen, line, sizeof seen - strlen(seen) - 1);
  fclose(f);
  assert_true(!strcmp(seen, "node1\nnode2\n") || !strcmp(seen, "node2\nnode1\n"));
  unlink(log);

  /* Without a hostfile: this host only, no agent. */
  assert_int_equal(mkdir(base, 0700), 0);
  assert_int_equal(morph__launch_session_remove(base, NULL, NULL, 10.0), 0);
  assert_int_equal(access(base, F_OK), -1);
  assert_int_equal(access(log, F_OK), -1);
}

/* A host that does not answer costs the time limit, not more, and is
 * counted. */
static void test_silent_host_bounded(void **state)
{
  (void)state;
  char base[512], agent[600], hosts[600];
  snprintf(base, sizeof base, "%s/morph-h-2", dir);
  snprintf(agent, sizeof agent, "%s/slow-agent", dir);
  snprintf(hosts, sizeof hosts, "%s/hosts", dir);
  write_file(agent, "#!/bin/sh\nexec sleep 30\n", 0755);
  write_file(hosts, "node1\nnode2\n", 0644);
  setenv("OMPI_MCA_plm_rsh_agent", agent, 1);
  double t0 = morph__now();
  assert_int_equal(morph__launch_session_remove(base, hosts, NULL, 0.3), 2);
  assert_true(morph__now() - t0 < 5.0);
}

/* A job family no process of this host uses now: none of its segments. */
static unsigned free_family(void)
{
  char cmd[160];
  for (unsigned fam = 0xfee0; fam < 0xffff; fam++) {
    snprintf(cmd, sizeof cmd, "ls /dev/shm/vader_segment.*.%u.%x????.* >/dev/null 2>&1",
             (unsigned)getuid(), fam);
    if (system(cmd) != 0)
      return fam;
  }
  return 0;
}

/* The job families named by the PMIx lock segments of a session folder
 * are noted once each; their shared-memory segments, which killed
 * processes leave, are removed with the folder, here and (by the script
 * the agent runs) on the hosts; other families' segments stay. */
static void test_segments_of_noted_jobs_removed(void **state)
{
  (void)state;
  char base[512], cmd[2400], seg[3][160], agent[600], hosts[600];
  unsigned fam = free_family(), other = fam + 1;
  assert_true(fam != 0);
  snprintf(base, sizeof base, "%s/morph-h-3", dir);
  snprintf(cmd, sizeof cmd,
           "d=%s/ompi.h.%u/pid.7/pmix_dstor_ds21_7 && mkdir -p $d && touch $d/smlockseg-%u "
           "$d/smseg-%u-0 $d/smlockseg-%u",
           base, (unsigned)getuid(), (fam << 16) | 1, (fam << 16) | 1, (fam << 16) | 2);
  assert_int_equal(system(cmd), 0);
  const char *fmt = "/dev/shm/vader_segment.h.%u.%x.%d";
  snprintf(seg[0], sizeof seg[0], fmt, (unsigned)getuid(), (fam << 16) | 1, 0);
  snprintf(seg[1], sizeof seg[1], fmt, (unsigned)getuid(), (fam << 16) | 2, 3);
  snprintf(seg[2], sizeof seg[2], fmt, (unsigned)getuid(), (other << 16) | 1, 0);
  for (int i = 0; i < 3; i++)
    write_file(seg[i], "", 0600);
  struct morph__launch_shm shm = {.n = 0};
  assert_int_equal(morph__launch_session_note_jobs(base, &shm), 1);
  assert_int_equal(morph__launch_session_note_jobs(base, &shm), 0);
  assert_int_equal(shm.n, 1);
  assert_int_equal(shm.fam[0], fam);
  morph__launch_session_remove_segments(&shm);
  assert_int_equal(access(seg[0], F_OK), -1);
  assert_int_equal(access(seg[1], F_OK), -1);
  assert_int_equal(access(seg[2], F_OK), 0);
  /* On the other hosts, by the script the agent runs: this agent makes a
   * segment again (after the removal here) before it runs the script. */
  snprintf(agent, sizeof agent, "%s/agent", dir);
  snprintf(hosts, sizeof hosts, "%s/hosts", dir);
  snprintf(cmd, sizeof cmd, "#!/bin/sh\nshift\ntouch %s\nexec sh -c \"$*\"\n", seg[1]);
  write_file(agent, cmd, 0755);
  write_file(hosts, "node1\n", 0644);
  setenv("OMPI_MCA_plm_rsh_agent", agent, 1);
  assert_int_equal(morph__launch_session_remove(base, hosts, &shm, 10.0), 0);
  assert_int_equal(access(seg[1], F_OK), -1);
  assert_int_equal(access(base, F_OK), -1);
  assert_int_equal(access(seg[2], F_OK), 0);
  unlink(seg[2]);
}

static int make_dir(void **state)
{
  (void)state;
  return mkdtemp(dir) ? 0 : -1;
}

static int remove_dir(void **state)
{
  (void)state;
  char cmd[128];
  /* With the fake segments of host "h", if a test stopped halfway. */
  snprintf(cmd, sizeof cmd, "rm -rf %s /dev/shm/vader_segment.h.%u.*", dir, (unsigned)getuid());
  return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_name_unique_and_shell_safe),
    cmocka_unit_test(test_removed_here_and_on_every_host),
    cmocka_unit_test(test_silent_host_bounded),
    cmocka_unit_test(test_segments_of_noted_jobs_removed),
  };
  return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
