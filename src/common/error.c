/* The error table of morph/error.h: one place for codes, names and texts. */
#include "morph/error.h"

const char *morph_strerror(int err)
{
  switch (err) {
  case MORPH_OK:
    return "success";
#define MORPH__ERR_MSG(name, value, msg) \
  case MORPH_##name:                     \
    return msg;
    MORPH_ERRNO_MAP(MORPH__ERR_MSG)
#undef MORPH__ERR_MSG
  }
  return "unknown error";
}

const char *morph_err_name(int err)
{
  switch (err) {
  case MORPH_OK:
    return "MORPH_OK";
#define MORPH__ERR_NAME(name, value, msg) \
  case MORPH_##name:                      \
    return "MORPH_" #name;
    MORPH_ERRNO_MAP(MORPH__ERR_NAME)
#undef MORPH__ERR_NAME
  }
  return "MORPH_UNKNOWN";
}
