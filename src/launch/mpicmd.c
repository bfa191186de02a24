#include "mpicmd.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/hostfile.h"
#include "morph/error.h"

extern char **environ;

static const char *const mpi_names[] = {"auto", "openmpi", "mpich"};
/* [AUTO] is only a fallback: the flavour is always decided before launching. */
static const char *const launchers[] = {"mpirun", "mpirun.openmpi", "mpiexec.mpich"};

int morph__launch_mpi_parse(const char *name)
{
  for (int i = 0; i < 3; i++)
    if (!strcmp(name, mpi_names[i]))
      return i;
  return -1;
}

const char *morph__launch_mpi_name(enum morph__launch_mpi mpi)
{
  return (unsigned)mpi < 3 ? mpi_names[mpi] : "?";
}

int morph__launch_which(const char *prog, char *out, size_t size)
{
  if (strchr(prog, '/')) {
    /* Not snprintf: UBSan's null checks make gcc see a NULL prog there. */
    size_t n = strlen(prog);
    if (n >= size)
      return -1;
    memcpy(out, prog, n + 1);
    return access(prog, X_OK) == 0 ? 0 : -1;
  }
  const char *path = getenv("PATH");
  char *copy = strdup(path ? path : "/usr/bin:/bin"), *save = NULL;
  int found = -1;
  if (!copy)
    return -1;
  for (char *d = strtok_r(copy, ":", &save); d && found; d = strtok_r(NULL, ":", &save)) {
    snprintf(out, size, "%s/%s", *d ? d : ".", prog);
    found = access(out, X_OK) == 0 ? 0 : -1;
  }
  free(copy);
  return found;
}

static int ends_with(const char *s, const char *suffix)
{
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && !strcmp(s + n - k, suffix);
}

/* Runs `ldd path` and keeps the start of its output in buf. */
static int run_ldd(const char *path, char *buf, size_t size)
{
  int fd[2];
  if (pipe(fd) != 0)
    return -1;
  pid_t pid = fork();
  if (pid == 0) {
    dup2(fd[1], 1);
    close(fd[0]);
    execlp("ldd", "ldd", path, (char *)NULL);
    _exit(127);
  }
  close(fd[1]);
  size_t len = 0;
  ssize_t n;
  while (pid > 0 && len < size - 1 && (n = read(fd[0], buf + len, size - 1 - len)) > 0)
    len += (size_t)n;
  buf[len] = '\0';
  close(fd[0]);
  int st = 0;
  if (pid > 0)
    waitpid(pid, &st, 0);
  return pid > 0 ? 0 : -1;
}

static enum morph__launch_mpi first_installed(char *why, size_t whysize)
{
  char path[PATH_MAX];
  int found = morph__launch_which(launchers[MORPH__LAUNCH_MPI_OPENMPI], path, sizeof path) == 0;
  enum morph__launch_mpi mpi = found ? MORPH__LAUNCH_MPI_OPENMPI : MORPH__LAUNCH_MPI_MPICH;
  snprintf(why, whysize, "no MPI library found in the program; %s is installed",
           launchers[mpi]);
  return mpi;
}

enum morph__launch_mpi morph__launch_mpi_detect(const char *app, char *why, size_t whysize)
{
  char path[PATH_MAX], out[16384];
  if (ends_with(app, ".ompi") || ends_with(app, ".mpich")) {
    snprintf(why, whysize, "program name ends with %s", strrchr(app, '.'));
    return ends_with(app, ".ompi") ? MORPH__LAUNCH_MPI_OPENMPI : MORPH__LAUNCH_MPI_MPICH;
  }
  if (morph__launch_which(app, path, sizeof path) == 0 && run_ldd(path, out, sizeof out) == 0) {
    /* MPICH's library is libmpich.so; Open MPI's is libmpi.so. */
    if (strstr(out, "libmpich.so")) {
      snprintf(why, whysize, "the program links libmpich");
      return MORPH__LAUNCH_MPI_MPICH;
    }
    if (strstr(out, "libmpi.so")) {
      snprintf(why, whysize, "the program links Open MPI's libmpi");
      return MORPH__LAUNCH_MPI_OPENMPI;
    }
  }
  return first_installed(why, whysize);
}

void morph__launch_mpi_prepare_env(enum morph__launch_mpi mpi)
{
  /* Open MPI refuses to start as root unless told it is meant. */
  if (mpi == MORPH__LAUNCH_MPI_OPENMPI && geteuid() == 0) {
    setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 0);
    setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 0);
  }
}

int morph__launch_argv_push(struct morph__launch_argv *a, const char *s)
{
  if (a->n + 2 > a->cap) {
    int cap = a->cap ? 2 * a->cap : 32;
    char **v = realloc(a->v, (size_t)cap * sizeof *v);
    if (!v)
      return MORPH_ENOMEM;
    a->v = v, a->cap = cap;
  }
  if (!(a->v[a->n] = strdup(s)))
    return MORPH_ENOMEM;
  a->v[++a->n] = NULL;
  return MORPH_OK;
}

void morph__launch_argv_free(struct morph__launch_argv *a)
{
  for (int i = 0; i < a->n; i++)
    free(a->v[i]);
  free(a->v);
  memset(a, 0, sizeof *a);
}

/* True if Open MPI may keep the hostfile's slot counts: it gives them,
 * and names one host only. On several hosts a leaver of a live shrink may
 * stay as a placeholder (docs/runtime.md, "Placeholders"), which Open MPI
 * counts in its host's slots: a later grow onto that host would find it
 * "already filled". */
static int hostfile_keeps_slots(const char *path)
{
  FILE *f = fopen(path, "r");
  char line[1024], first[256] = "", host[256];
  int slots = 0, hosts = 0;
  while (f && fgets(line, sizeof line, f)) {
    line[strcspn(line, "#")] = '\0';
    slots |= strstr(line, "slots=") != NULL;
    if (sscanf(line, "%255[^ \t\n:]", host) == 1 && strcmp(host, first) != 0)
      hosts++, snprintf(first, sizeof first, "%s", host);
  }
  if (f)
    fclose(f);
  return slots && hosts == 1;
}

/* True if the user set an Open MPI MCA parameter whose name holds `part`,
 * in the environment or with --mpi-arg. */
static int mca_chosen(const struct morph__launch_mpicmd *c, const char *part)
{
  for (char **e = environ; *e; e++)
    if (strncmp(*e, "OMPI_MCA_", 9) == 0 && strstr(*e, part) && strstr(*e, part) < strchr(*e, '='))
      return 1;
  for (int k = 0; k < c->n_args; k++)
    if (strstr(c->args[k], part))
      return 1;
  return 0;
}

const char *morph__launch_mpi_session_base(const struct morph__launch_mpicmd *c)
{
  if (c->mpi != MORPH__LAUNCH_MPI_OPENMPI || !c->session_base || mca_chosen(c, "tmpdir_base"))
    return NULL;
  return c->session_base;
}

int morph__launch_mpi_recovers(const struct morph__launch_mpicmd *c)
{
  return c->mpi == MORPH__LAUNCH_MPI_OPENMPI && !c->no_recovery;
}

/*
 * Open MPI 4.1 waits up to 600 s for the other side of a PMIx exchange
 * (comm_cid.c, dpm.c: "give them 10 minutes"). When the joiners of a spawn
 * never arrive, the spawn's root sits in that PMIx_Lookup inside
 * opal_progress, and no other thread of the process completes a blocking
 * MPI call meanwhile (measured: a checkpoint's MPI_Allgather waited
 * 271-291 s; the application's own collectives wait too). libmorph gives
 * up on a spawn after its step time limit (MORPH_STEP_TIMEOUT, default
 * 30 s); the exchange is made to give up as soon. Its time-out T is
 * enforced by the daemon's request table (orted/pmix/pmix_server.c,
 * eviction_cbfunc), which every pmix_server_max_wait (2 s) takes 2 s off T
 * and, if T is still positive, 2 s more, expiring only when the second
 * step reaches 0: a request of T s ends after T/2 s when T is a multiple
 * of 4 (600: the 300 s measured) and never when T = 2 mod 4 (10, 30).
 * So T = 4 * ceil(step / 2): the lookup ends one step time after it began.
 */
static int exchange_timeout_args(const struct morph__launch_mpicmd *c, struct morph__launch_argv *a)
{
  if (mca_chosen(c, "pmix_base_exchange_timeout"))
    return MORPH_OK;
  const char *v = getenv("MORPH_STEP_TIMEOUT");
  char *end = NULL;
  double t = v && *v ? strtod(v, &end) : 30;
  if ((end && *end) || !(t >= 1))
    t = 30;
  int half = t > 1800 ? 900 : (int)(t / 2) + ((int)(t / 2) < t / 2);
  char text[32];
  snprintf(text, sizeof text, "%d", 4 * half);
  return morph__launch_argv_push(a, "--mca") |
         morph__launch_argv_push(a, "pmix_base_exchange_timeout") |
         morph__launch_argv_push(a, text);
}

/* Open MPI: -x for every MORPH_* variable (it exports nothing by default),
 * let leavers of a live shrink exit without MPI_Finalize, and keep the job
 * running when a process is lost (--enable-recovery): a joiner or leaver
 * killed inside an adaptation window is then survivable, libmorph rolls
 * back. The joiners of a hung spawn, killed by libmorph, may also end
 * with a non-zero status; orte_abort_on_non_zero_status would then abort
 * the job, so it is off as well. morph run's crash monitor stops the job
 * for losses outside a window, and the job's status comes from its BYE.
 * A job on this host alone (no hostfile) keeps Open MPI's TCP, which
 * connects spawned processes to their parents, on loopback: by default
 * it uses every interface, and one that goes away while the job runs (a
 * container's or an emulated cluster's bridge) stalls the job in readv
 * (seen in the 1,000-cycle soak). A user's own tcp_if_ choice wins.
 * The job's session folders go under a base of its own (session.h: two
 * jobs' orteds racing on a shared one end a job), unless the user chose. */
static int openmpi_args(const struct morph__launch_mpicmd *c, struct morph__launch_argv *a)
{
  int rc = MORPH_OK;
  if (!c->hostfile || !hostfile_keeps_slots(c->hostfile))
    rc |= morph__launch_argv_push(a, "--oversubscribe");
  if (!c->hostfile && !mca_chosen(c, "tcp_if_"))
    for (int k = 0; k < 2; k++)
      rc |= morph__launch_argv_push(a, "--mca") |
            morph__launch_argv_push(a, k ? "oob_tcp_if_include" : "btl_tcp_if_include") |
            morph__launch_argv_push(a, "lo");
  if (morph__launch_mpi_recovers(c))
    rc |= morph__launch_argv_push(a, "--enable-recovery") | morph__launch_argv_push(a, "--mca") |
          morph__launch_argv_push(a, "orte_abort_on_non_zero_status") |
          morph__launch_argv_push(a, "0");
  if (c->hostfile)
    rc |= morph__launch_argv_push(a, "--hostfile") | morph__launch_argv_push(a, c->hostfile);
  if (c->rankfile)
    rc |= morph__launch_argv_push(a, "--rankfile") | morph__launch_argv_push(a, c->rankfile);
  if (morph__launch_mpi_session_base(c))
    rc |= morph__launch_argv_push(a, "--mca") | morph__launch_argv_push(a, "orte_tmpdir_base") |
          morph__launch_argv_push(a, c->session_base);
  rc |= morph__launch_argv_push(a, "--mca") |
        morph__launch_argv_push(a, "orte_allowed_exit_without_sync") |
        morph__launch_argv_push(a, "1") | exchange_timeout_args(c, a);
  for (char **e = environ; *e; e++) {
    if (strncmp(*e, "MORPH_", 6) != 0)
      continue;
    char name[256];
    snprintf(name, sizeof name, "%.*s", (int)strcspn(*e, "="), *e);
    rc |= morph__launch_argv_push(a, "-x") | morph__launch_argv_push(a, name);
  }
  for (int i = 0; i < c->n_env; i++) {
    char name[256];
    snprintf(name, sizeof name, "%.*s", (int)strcspn(c->env[i], "="), c->env[i]);
    rc |= morph__launch_argv_push(a, "-x") | morph__launch_argv_push(a, name);
  }
  return rc ? MORPH_ENOMEM : MORPH_OK;
}

/* NAME=VALUE with NAME a shell variable name. */
static int assignment(const char *s)
{
  size_t n = strcspn(s, "=");
  if (n == 0 || s[n] != '=' || (s[0] >= '0' && s[0] <= '9'))
    return 0;
  for (size_t i = 0; i < n; i++)
    if (!(s[i] == '_' || (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z') ||
          (s[i] >= '0' && s[i] <= '9')))
      return 0;
  return 1;
}

int morph__launch_mpi_unwrap_env(struct morph__launch_mpicmd *c)
{
  char **a = c->app;
  if (!a || !a[0] || strcmp(strrchr(a[0], '/') ? strrchr(a[0], '/') + 1 : a[0], "env"))
    return 0;
  int k = 1;
  while (a[k] && assignment(a[k]))
    k++;
  if (k == 1 || !a[k] || a[k][0] == '-')
    return 0;
  for (int i = 1; i < k; i++) {
    size_t n = strcspn(a[i], "=");
    char name[256];
    snprintf(name, sizeof name, "%.*s", (int)n, a[i]);
    setenv(name, a[i] + n + 1, 1);
  }
  c->env = a + 1;
  c->n_env = k - 1;
  c->app = a + k;
  return k - 1;
}

/* Appends one hostfile line (common/hostfile.h: Open MPI's "host slots=n"
 * or hydra's "host:n") as hydra's "host[:n]" to *buf; a host without a
 * count is one process to both. A bad count is MORPH_EINVAL. */
static int hydra_host(const char *line, char **buf, size_t *len)
{
  struct morph__hostline h;
  char why[128];
  int k = morph__hostline_parse(line, &h, why, sizeof why);
  if (k <= 0)
    return k == 0 ? MORPH_OK : MORPH_EINVAL;
  size_t need = *len + strlen(h.host) + 24;
  char *b = realloc(*buf, need);
  if (!b)
    return MORPH_ENOMEM;
  *buf = b;
  *len += (size_t)snprintf(b + *len, need - *len, "%s%s", *len ? "," : "", h.host);
  if (h.slots > 0)
    *len += (size_t)snprintf(b + *len, need - *len, ":%d", h.slots);
  return MORPH_OK;
}

/* Hydra's own hostfile format ("host:n") refuses Open MPI's "slots=",
 * which morph's hostfiles (and morphd's) use: a -hosts list on the
 * command line serves both, with no file to write and remove. */
int morph__launch_hostfile_list(const char *path, char **out)
{
  *out = NULL;
  FILE *f = fopen(path, "r");
  if (!f)
    return MORPH_EIO;
  char line[1024];
  size_t len = 0;
  int rc = MORPH_OK;
  while (rc == MORPH_OK && fgets(line, sizeof line, f))
    rc = hydra_host(line, out, &len);
  fclose(f);
  if (rc == MORPH_OK && len == 0)
    rc = MORPH_EINVAL;
  if (rc != MORPH_OK)
    free(*out), *out = NULL;
  return rc;
}

/* MPICH's hydra passes the whole environment with -genvall (its default;
 * said explicitly so a site configuration cannot turn it off). */
static int mpich_args(const struct morph__launch_mpicmd *c, struct morph__launch_argv *a)
{
  if (morph__launch_argv_push(a, "-genvall"))
    return MORPH_ENOMEM;
  if (!c->hostfile)
    return MORPH_OK;
  char *hosts;
  int rc = morph__launch_hostfile_list(c->hostfile, &hosts);
  if (rc == MORPH_OK)
    rc = morph__launch_argv_push(a, "-hosts") | morph__launch_argv_push(a, hosts) ? MORPH_ENOMEM : MORPH_OK;
  free(hosts);
  return rc;
}

int morph__launch_mpi_command(const struct morph__launch_mpicmd *c, int np,
                              struct morph__launch_argv *out)
{
  char n[32];
  snprintf(n, sizeof n, "%d", np);
  memset(out, 0, sizeof *out);
  if (c->rankfile && c->mpi == MORPH__LAUNCH_MPI_MPICH)
    return MORPH_EINVAL;
  int rc = morph__launch_argv_push(out, c->mpirun ? c->mpirun : launchers[c->mpi]);
  if (rc == MORPH_OK)
    rc = c->mpi == MORPH__LAUNCH_MPI_MPICH ? mpich_args(c, out) : openmpi_args(c, out);
  for (int i = 0; rc == MORPH_OK && i < c->n_args; i++)
    rc = morph__launch_argv_push(out, c->args[i]);
  if (rc == MORPH_OK)
    rc = morph__launch_argv_push(out, "-n") | morph__launch_argv_push(out, n);
  for (char **p = c->app; rc == MORPH_OK && *p; p++)
    rc = morph__launch_argv_push(out, *p);
  if (rc != MORPH_OK)
    morph__launch_argv_free(out);
  return rc == MORPH_OK || rc == MORPH_EIO || rc == MORPH_EINVAL ? rc : MORPH_ENOMEM;
}
