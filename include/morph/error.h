/*
 * morph/error.h - the one error table shared by every part of morph.
 *
 * Every morph function that can fail returns an int: MORPH_OK (zero) on
 * success, or one of the negative codes below. There is exactly one success
 * code. Functions that carry a context object also keep a human-readable
 * message of their last failure in it (see morph_errmsg() in morph.h and the
 * equivalent accessor of each part); morph_strerror() gives the generic text
 * of a code.
 *
 * This header needs no MPI and may be used by the policy engine, the
 * simulator and the tools as well as by applications.
 */
#ifndef MORPH_ERROR_H
#define MORPH_ERROR_H

#ifdef __cplusplus
extern "C" {
#endif

/* X-macro: name, value, generic message. */
#define MORPH_ERRNO_MAP(X)                                                    \
  X(EINVAL, -1, "invalid argument")                                           \
  X(ENOMEM, -2, "out of memory")                                              \
  X(EMPI, -3, "an MPI call failed")                                           \
  X(ESPAWN, -4, "spawning processes failed")                                  \
  X(ETIMEDOUT, -5, "a step did not finish within its time limit")             \
  X(EIO, -6, "input/output error")                                            \
  X(ECONN, -7, "cannot reach the peer (launcher, daemon or job)")             \
  X(EPROTO, -8, "malformed or unexpected protocol message")                   \
  X(ESIZE, -9, "the job cannot take that number of processes")                \
  X(EMISMATCH, -10, "processes disagree (registrations or arguments differ)") \
  X(ESTATE, -11, "call not allowed in the current state")                     \
  X(ENOSYS, -12, "not supported by this MPI or platform")                     \
  X(EABORTED, -13, "reconfiguration rolled back; old size kept")              \
  X(ENOENT, -14, "no such object")                                            \
  X(EPARSE, -15, "malformed input file")                                      \
  X(EEXIST, -16, "object already exists")                                     \
  X(EBUSY, -17, "resource busy")                                              \
  X(EAUTH, -18, "the peer could not be authenticated (MUNGE)")                \
  X(EPERM, -19, "not allowed for this user")

typedef enum morph_err {
  MORPH_OK = 0,
#define MORPH__ERR_ENUM(name, value, msg) MORPH_##name = (value),
  MORPH_ERRNO_MAP(MORPH__ERR_ENUM)
#undef MORPH__ERR_ENUM
} morph_err;

/* Generic message for an error code; never NULL ("unknown error" for codes
 * outside the table). Thread-safe, callable anywhere. */
const char *morph_strerror(int err);

/* Symbolic name of an error code ("MORPH_ETIMEDOUT"); never NULL. */
const char *morph_err_name(int err);

#ifdef __cplusplus
}
#endif
#endif /* MORPH_ERROR_H */
