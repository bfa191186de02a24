#include "fuzz_input.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

char *morph__fuzz_text(const uint8_t *data, size_t size)
{
  char *s = malloc(size + 1);
  if (s) {
    memcpy(s, data, size);
    s[size] = '\0';
  }
  return s;
}

/* One memory file per process, kept open: libFuzzer calls the harness
 * millions of times. */
int morph__fuzz_file(const uint8_t *data, size_t size, char *path, size_t pathsize)
{
  static int fd = -1;
  if (fd < 0 && (fd = memfd_create("morph-fuzz", 0)) < 0)
    return -1;
  if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
    return -1;
  snprintf(path, pathsize, "/proc/self/fd/%d", fd);
  return 0;
}
