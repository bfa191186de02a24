/*
 * Leveled logging to stderr, prefixed with the component and, where known,
 * the rank. The level comes from the documented variable MORPH_LOG
 * (error, warn, info, debug; default warn) read once per process.
 */
#ifndef MORPH_COMMON_LOG_H
#define MORPH_COMMON_LOG_H

enum morph__log_level { MORPH_LOG_ERROR, MORPH_LOG_WARN, MORPH_LOG_INFO, MORPH_LOG_DEBUG };

/* True if messages of this level are printed. */
int morph__log_enabled(enum morph__log_level level);

/* Prints "morph[<who>]: <message>\n" to stderr if the level is enabled. */
void morph__log(enum morph__log_level level, const char *who, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
