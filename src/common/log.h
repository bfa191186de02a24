/*
 * Two kinds of messages on stderr:
 *  - morph__log: the library's leveled log, prefixed with the component and,
 *    where known, the rank. The level comes from the documented variable
 *    MORPH_LOG (error, warn, info, debug; default warn) read once per
 *    process.
 *  - morph__say: a program's human log ("morph run: ...", "morphd 12:00:01:
 *    ..."), printed when its level is at most the program's -v count. The
 *    program owns its morph__sayer; nothing here is global.
 */
#ifndef MORPH_COMMON_LOG_H
#define MORPH_COMMON_LOG_H

enum morph__log_level { MORPH_LOG_ERROR, MORPH_LOG_WARN, MORPH_LOG_INFO, MORPH_LOG_DEBUG };

/* True if messages of this level are printed. */
int morph__log_enabled(enum morph__log_level level);

/* Prints "morph[<who>]: <message>\n" to stderr if the level is enabled. */
void morph__log(enum morph__log_level level, const char *who, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Who speaks and how much: level 0 messages always print, level 1 with -v,
 * level 2 with -vv. `stamp` adds the wall-clock time (HH:MM:SS), as a
 * daemon's log wants. */
typedef struct morph__sayer {
  const char *prog;
  int verbose;
  int stamp;
} morph__sayer;

/* Prints "<prog>: <message>\n" (or "<prog> HH:MM:SS: ...") to stderr if
 * level <= s->verbose. One write per line, so lines of several processes
 * do not interleave. */
void morph__say(const morph__sayer *s, int level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
