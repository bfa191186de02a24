/* Folders and files safe on a shared machine (safedir.h). */
#include "common/safedir.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "morph/error.h"

/* What is wrong with st for something of ours, or NULL. */
static const char *unfit(const struct stat *st, int dir)
{
  if (S_ISLNK(st->st_mode))
    return "it is a symbolic link";
  if (dir ? !S_ISDIR(st->st_mode) : !S_ISREG(st->st_mode))
    return dir ? "it is not a folder" : "it is not a regular file";
  if (st->st_uid != geteuid())
    return "it belongs to another user";
  if (st->st_mode & (S_IWGRP | S_IWOTH))
    return "others may write in it";
  return NULL;
}

static int refuse(const char *path, const struct stat *st, const char *what, char *err,
                  size_t errsize)
{
  snprintf(err, errsize, "%s: %s (owner uid %ld, mode %04o; it must be owned by uid %ld and "
           "writable by nobody else): refusing to use it", path, what, (long)st->st_uid,
           (unsigned)(st->st_mode & 07777), (long)geteuid());
  return MORPH_EINVAL;
}

int morph__dir_own(const char *path, mode_t mode, char *err, size_t errsize)
{
  struct stat st;
  if (lstat(path, &st) != 0 && errno == ENOENT) {
    /* mkdir obeys the umask; the mode asked for is set afterwards, on the
     * folder we have just made (mkdir never follows a link). */
    if (mkdir(path, 0700) != 0 || chmod(path, mode) != 0) {
      snprintf(err, errsize, "cannot create the folder %s: %s", path, strerror(errno));
      return MORPH_EIO;
    }
    return MORPH_OK;
  }
  if (lstat(path, &st) != 0) {
    snprintf(err, errsize, "cannot look at %s: %s", path, strerror(errno));
    return MORPH_EIO;
  }
  const char *what = unfit(&st, 1);
  return what ? refuse(path, &st, what, err, errsize) : MORPH_OK;
}

int morph__file_own(const char *path, char *err, size_t errsize)
{
  struct stat st;
  if (lstat(path, &st) != 0)
    return MORPH_OK;
  const char *what = unfit(&st, 0);
  return what ? refuse(path, &st, what, err, errsize) : MORPH_OK;
}

int morph__dir_usable(const char *path, char *why, size_t size)
{
  struct stat st;
  why[0] = '\0';
  if (lstat(path, &st) != 0)
    snprintf(why, size, "%s", errno == ENOENT ? "does not exist" : strerror(errno));
  else if (S_ISLNK(st.st_mode))
    snprintf(why, size, "is a symbolic link (name the folder it points to)");
  else if (!S_ISDIR(st.st_mode))
    snprintf(why, size, "is not a folder");
  else if (st.st_uid != geteuid() && st.st_uid != 0)
    snprintf(why, size, "belongs to uid %ld, neither you nor root", (long)st.st_uid);
  else if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX))
    snprintf(why, size, "may be written by others (mode %04o, no sticky bit)",
             (unsigned)(st.st_mode & 07777));
  else if (access(path, W_OK | X_OK) != 0)
    snprintf(why, size, "is not writable (%s)", strerror(errno));
  return why[0] ? MORPH_EINVAL : MORPH_OK;
}

int morph__file_create(const char *path, mode_t mode)
{
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, mode);
  return fd >= 0 ? fd : MORPH_EIO;
}
