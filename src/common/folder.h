/*
 * Whether a folder can take files: checked by morph run at start and by
 * libmorph before a relaunch's checkpoint, on every process.
 */
#ifndef MORPH_COMMON_FOLDER_H
#define MORPH_COMMON_FOLDER_H

#include <stddef.h>

/* "" in why if `dir` is a folder this process can create files in, else
 * why not: "does not exist", "is not a folder", "is not writable (...)",
 * or the error of stat. */
void morph__folder_writable(const char *dir, char *why, size_t size);

#endif
