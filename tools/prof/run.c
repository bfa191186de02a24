/*
 * morph prof, the run half: which MPI the program uses, where the
 * profiler library is, and the command line that loads it.
 *
 * With --np the launcher is ours and the preload goes to the MPI processes
 * only (-x for Open MPI's mpirun, -genv for MPICH's mpiexec). Without it
 * the command is run as given with LD_PRELOAD in its environment, so every
 * process it starts (the launcher included) loads the library; the
 * wrappers do nothing in a process that never calls MPI_Init.
 */
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "prof_tool.h"

/* Full path of a command name as execvp would find it. */
static int which(const char *name, char *out, size_t size)
{
  if (strchr(name, '/')) {
    snprintf(out, size, "%s", name);
    return access(out, R_OK) == 0 ? 0 : -1;
  }
  const char *path = getenv("PATH");
  while (path && *path) {
    size_t len = strcspn(path, ":");
    snprintf(out, size, "%.*s/%s", (int)len, path, name);
    if (access(out, X_OK) == 0)
      return 0;
    path += len + (path[len] == ':');
  }
  return -1;
}

/* The libraries a 64-bit ELF program needs (DT_NEEDED) are read from its
 * dynamic section; only those count, not any string in the file (a tool
 * may mention libmpich.so without being linked with it). */
static const char *mpi_of_needed(const char *name)
{
  if (!strncmp(name, "libmpich.so", 11))
    return "mpich";
  if (!strncmp(name, "libmpi.so", 9))
    return "ompi";
  return NULL;
}

static const char *mpi_of_elf(const unsigned char *img, size_t len)
{
  const Elf64_Ehdr *eh = (const Elf64_Ehdr *)img;
  if (len < sizeof *eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
      eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) > len)
    return NULL;
  const Elf64_Shdr *sh = (const Elf64_Shdr *)(img + eh->e_shoff);
  for (int i = 0; i < eh->e_shnum; i++) {
    if (sh[i].sh_type != SHT_DYNAMIC || sh[i].sh_link >= eh->e_shnum)
      continue;
    const Elf64_Shdr *str = &sh[sh[i].sh_link];
    if (sh[i].sh_offset + sh[i].sh_size > len || str->sh_offset + str->sh_size > len)
      return NULL;
    const Elf64_Dyn *d = (const Elf64_Dyn *)(img + sh[i].sh_offset);
    for (size_t k = 0; k < sh[i].sh_size / sizeof *d && d[k].d_tag != DT_NULL; k++) {
      const char *m = d[k].d_tag == DT_NEEDED && d[k].d_un.d_val < str->sh_size
                          ? mpi_of_needed((const char *)img + str->sh_offset + d[k].d_un.d_val)
                          : NULL;
      if (m)
        return m;
    }
  }
  return NULL;
}

/* "ompi" or "mpich" if the file is a program linked with that MPI. */
static const char *mpi_of_file(const char *path)
{
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  struct stat st;
  if (fd < 0)
    return NULL;
  const char *found = NULL;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
    void *img = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (img != MAP_FAILED) {
      found = mpi_of_elf(img, (size_t)st.st_size);
      munmap(img, (size_t)st.st_size);
    }
  }
  close(fd);
  return found;
}

static const char *detect_mpi(const prof_opts *o)
{
  char path[PATH_MAX];
  for (int i = 0; i < o->ncmd; i++) {
    const char *m = which(o->cmd[i], path, sizeof path) == 0 ? mpi_of_file(path) : NULL;
    if (m)
      return m;
  }
  return NULL;
}

/* $MORPH_PROF_LIBDIR/libmorph-prof-<mpi>.so, else beside this program's
 * folder: in the installed library folder (MORPH_PROF_LIBDIR_REL, e.g.
 * ../lib or ../lib/x86_64-linux-gnu) or the build tree's ../lib. */
static int preload_lib(const char *mpi, char *out, size_t size)
{
  char self[PATH_MAX];
  const char *dir = getenv("MORPH_PROF_LIBDIR");
  if (dir && *dir) {
    snprintf(out, size, "%.3800s/libmorph-prof-%s.so", dir, mpi);
  } else {
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n < 0)
      return -1;
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    if (slash)
      *slash = '\0';
    snprintf(out, size, "%.3800s/%s/libmorph-prof-%s.so", self, MORPH_PROF_LIBDIR_REL, mpi);
    if (access(out, R_OK) != 0)
      snprintf(out, size, "%.3800s/../lib/libmorph-prof-%s.so", self, mpi);
  }
  if (access(out, R_OK) != 0) {
    fprintf(stderr, "morph prof: cannot find the profiler library %s: %s\n", out, strerror(errno));
    return -1;
  }
  return 0;
}

/* The folder exists, is absolute (the processes may start elsewhere) and
 * holds no files of an earlier run, which would merge into this one. */
static int prepare_dir(const char *dir, char *abs, size_t size)
{
  if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
    fprintf(stderr, "morph prof: cannot create %s: %s\n", dir, strerror(errno));
    return -1;
  }
  if (!realpath(dir, abs) || strlen(abs) >= size) {
    fprintf(stderr, "morph prof: %s: %s\n", dir, strerror(errno));
    return -1;
  }
  DIR *d = opendir(abs);
  struct dirent *e;
  char path[PATH_MAX + 256];
  while (d && (e = readdir(d))) {
    size_t len = strlen(e->d_name);
    if (len > 5 && !strcmp(e->d_name + len - 5, ".prof")) {
      snprintf(path, sizeof path, "%s/%s", abs, e->d_name);
      unlink(path);
    }
  }
  if (d)
    closedir(d);
  return 0;
}

/* argv for the child; with --np the launcher and its options come first. */
static char **child_argv(const prof_opts *o, const char *mpi, const char *lib, const char *dir,
                         char *store, size_t size)
{
  char **a = calloc((size_t)o->ncmd + 16, sizeof *a);
  int k = 0;
  if (!a)
    return NULL;
  if (o->np > 0) {
    int ompi = !strcmp(mpi, "ompi");
    snprintf(store, size, "%d", o->np);
    char *pre = store + 32, *dirv = store + 32 + PATH_MAX + 32;
    a[k++] = ompi ? MORPH_MPIRUN_OMPI : MORPH_MPIRUN_MPICH;
    a[k++] = "-n";
    a[k++] = store;
    if (ompi) {
      snprintf(pre, PATH_MAX + 32, "LD_PRELOAD=%s", lib);
      snprintf(dirv, PATH_MAX + 32, "MORPH_PROF_DIR=%s", dir);
      a[k++] = "--oversubscribe";
      a[k++] = "-x", a[k++] = pre, a[k++] = "-x", a[k++] = dirv;
    } else {
      a[k++] = "-genv", a[k++] = "LD_PRELOAD", a[k++] = (char *)lib;
      a[k++] = "-genv", a[k++] = "MORPH_PROF_DIR", a[k++] = (char *)dir;
    }
  }
  for (int i = 0; i < o->ncmd; i++)
    a[k++] = o->cmd[i];
  return a;
}

static int run_child(char **argv, const char *lib, const char *dir, int preload_env, int *status)
{
  pid_t pid = fork();
  if (pid < 0) {
    fprintf(stderr, "morph prof: fork: %s\n", strerror(errno));
    return 1;
  }
  if (pid == 0) {
    setenv("MORPH_PROF_DIR", dir, 1);
    if (preload_env)
      setenv("LD_PRELOAD", lib, 1);
    execvp(argv[0], argv);
    fprintf(stderr, "morph prof: cannot run %s: %s\n", argv[0], strerror(errno));
    _exit(127);
  }
  int st;
  while (waitpid(pid, &st, 0) < 0)
    if (errno != EINTR)
      return 1;
  *status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  return 0;
}

int prof_run(const prof_opts *o, const char *dir, int *status)
{
  const char *mpi = o->mpi ? o->mpi : detect_mpi(o);
  char lib[PATH_MAX], abs[PATH_MAX], store[2 * PATH_MAX + 128];
  if (!mpi) {
    fprintf(stderr, "morph prof: cannot tell which MPI %s uses (no libmpi or libmpich in its "
                    "program); say it with --mpi ompi|mpich\n", o->cmd[0]);
    return 1;
  }
  if (preload_lib(mpi, lib, sizeof lib) != 0 || prepare_dir(dir, abs, sizeof abs) != 0)
    return 1;
  char **argv = child_argv(o, mpi, lib, abs, store, sizeof store);
  if (!argv) {
    fprintf(stderr, "morph prof: out of memory\n");
    return 1;
  }
  int rc = run_child(argv, lib, abs, o->np == 0, status);
  free(argv);
  return rc;
}
