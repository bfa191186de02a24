#include "procs.h"

#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct proc {
  pid_t pid, ppid;
  char state;
  int mark; /* 1: descendant of the root */
};

struct table {
  struct proc *p;
  int n, cap;
};

/* Reads pid, state and ppid from /proc/<pid>/stat; the command name sits
 * in parentheses and may itself contain ')' or spaces, hence strrchr. */
static int read_stat(pid_t pid, struct proc *out)
{
  char path[64], line[512];
  snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
  FILE *f = fopen(path, "r");
  if (!f)
    return -1;
  char *ok = fgets(line, sizeof line, f);
  fclose(f);
  char *close = ok ? strrchr(line, ')') : NULL;
  int ppid;
  if (!close || sscanf(close + 1, " %c %d", &out->state, &ppid) != 2)
    return -1;
  out->pid = pid, out->ppid = (pid_t)ppid, out->mark = 0;
  return 0;
}

static int table_add(struct table *t, const struct proc *p)
{
  if (t->n == t->cap) {
    int cap = t->cap ? 2 * t->cap : 256;
    struct proc *np = realloc(t->p, (size_t)cap * sizeof *np);
    if (!np)
      return -1;
    t->p = np, t->cap = cap;
  }
  t->p[t->n++] = *p;
  return 0;
}

static int table_load(struct table *t)
{
  DIR *d = opendir("/proc");
  if (!d)
    return -1;
  struct dirent *e;
  while ((e = readdir(d))) {
    struct proc p;
    if (isdigit((unsigned char)e->d_name[0]) && read_stat((pid_t)atoi(e->d_name), &p) == 0 &&
        table_add(t, &p) != 0)
      break;
  }
  closedir(d);
  return 0;
}

/* Marks the descendants of root: repeated passes until nothing changes,
 * which is cheap for the few hundred processes of a node. */
static void mark_descendants(struct table *t, pid_t root)
{
  for (int changed = 1; changed;) {
    changed = 0;
    for (int i = 0; i < t->n; i++) {
      if (t->p[i].mark)
        continue;
      for (int j = 0; j < t->n && !t->p[i].mark; j++)
        if (t->p[i].ppid == root || (t->p[j].mark && t->p[j].pid == t->p[i].ppid))
          t->p[i].mark = changed = 1;
    }
  }
}

static int load_descendants(struct table *t, pid_t root)
{
  memset(t, 0, sizeof *t);
  if (table_load(t) != 0)
    return -1;
  mark_descendants(t, root);
  return 0;
}

static int runs(pid_t pid, const char *exe)
{
  char path[64], target[PATH_MAX];
  snprintf(path, sizeof path, "/proc/%d/exe", (int)pid);
  ssize_t n = readlink(path, target, sizeof target - 1);
  if (n < 0)
    return 0;
  target[n] = '\0';
  return strcmp(target, exe) == 0;
}

/* Appends pid to *pids at index n, growing the array. */
static int pids_put(pid_t **pids, int *cap, int n, pid_t pid)
{
  if (n == *cap) {
    int c = *cap ? 2 * *cap : 16;
    pid_t *np = realloc(*pids, (size_t)c * sizeof *np);
    if (!np)
      return -1;
    *pids = np, *cap = c;
  }
  (*pids)[n] = pid;
  return 0;
}

/* Counts the running descendants of root that run exe, and lists them
 * when pids is not NULL. */
static int collect(pid_t root, const char *exe, pid_t **pids, int *cap)
{
  struct table t;
  if (load_descendants(&t, root) != 0)
    return -1;
  int count = 0;
  for (int i = 0; i < t.n; i++) {
    if (!t.p[i].mark || t.p[i].state == 'Z' || !runs(t.p[i].pid, exe))
      continue;
    if (pids && pids_put(pids, cap, count, t.p[i].pid) != 0) {
      count = -1;
      break;
    }
    count++;
  }
  free(t.p);
  return count;
}

int morph__launch_procs_count(pid_t root, const char *exe)
{
  return collect(root, exe, NULL, NULL);
}

int morph__launch_procs_list(pid_t root, const char *exe, pid_t **pids, int *cap)
{
  return collect(root, exe, pids, cap);
}

int morph__launch_procs_signal(pid_t root, int sig)
{
  struct table t;
  if (load_descendants(&t, root) != 0)
    return 0;
  int count = 0;
  for (int i = 0; i < t.n; i++)
    if (t.p[i].mark && t.p[i].state != 'Z' && kill(t.p[i].pid, sig) == 0)
      count++;
  free(t.p);
  return count;
}
