/*
 * Folders and files a service creates on a machine other users share
 * (docs/security.md): a folder that holds state must be the service's own
 * and closed to writers other than it, as OpenSSH's StrictModes and
 * PostgreSQL's data-directory check demand; a file is created or
 * truncated there never through a symbolic link.
 */
#ifndef MORPH_COMMON_SAFEDIR_H
#define MORPH_COMMON_SAFEDIR_H

#include <stddef.h>
#include <sys/types.h>

/* Makes sure `path` is a folder fit to hold our state. A missing one is
 * created with exactly `mode` (its parent must exist). An existing one
 * must be a real folder (not a symbolic link), owned by our effective
 * user, and writable by nobody else (no group or other write bit).
 * Errors: MORPH_EINVAL (not fit: err names the folder and what is wrong,
 * and nothing is changed), MORPH_EIO (it cannot be created or looked at:
 * err says why). */
int morph__dir_own(const char *path, mode_t mode, char *err, size_t errsize);

/* Checks an existing file we are about to use as ours (a journal): it must
 * be a regular file, not a symbolic link, owned by our effective user and
 * writable by nobody else. A missing file is fine (MORPH_OK).
 * Errors: MORPH_EINVAL (err names the file and what is wrong). */
int morph__file_own(const char *path, char *err, size_t errsize);

/* Checks a folder others may share, where we only create files of our
 * own (a checkpoint folder: /tmp, /dev/shm, a shared file system): it
 * must exist, be a real folder (not a symbolic link), belong to our
 * effective user or to root, be writable by nobody else unless it has the
 * sticky bit (then nobody else can remove or rename our files), and be
 * writable by us. Returns MORPH_OK with "" in why, or MORPH_EINVAL with
 * why saying what is wrong ("does not exist", "is a symbolic link", "is
 * not a folder", "belongs to uid N, neither you nor root", "may be
 * written by others (mode M, no sticky bit)", "is not writable (...)")
 * for the caller to put after the folder's name. Called by morph run at
 * start and by libmorph before a relaunch's checkpoint, on every
 * process. */
int morph__dir_usable(const char *path, char *why, size_t size);

/* Opens `path` for writing, truncated, created with `mode` if missing,
 * never through a symbolic link (O_NOFOLLOW) and close-on-exec. Returns
 * the fd, or MORPH_EIO with errno set. */
int morph__file_create(const char *path, mode_t mode);

#endif
