#include "common/folder.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void morph__folder_writable(const char *dir, char *why, size_t size)
{
  struct stat st;
  why[0] = '\0';
  if (stat(dir, &st) != 0)
    snprintf(why, size, "%s", errno == ENOENT ? "does not exist" : strerror(errno));
  else if (!S_ISDIR(st.st_mode))
    snprintf(why, size, "is not a folder");
  else if (access(dir, W_OK | X_OK) != 0)
    snprintf(why, size, "is not writable (%s)", strerror(errno));
}
