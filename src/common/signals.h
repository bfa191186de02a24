/*
 * The stop signals of a long-running program (morphd, morph run): SIGINT,
 * SIGTERM and SIGHUP set a flag that its loop reads; SIGPIPE is ignored (a
 * peer that went away is an error return, not a death). The flag is the
 * one piece of static state a signal handler can reach; it holds nothing
 * else.
 */
#ifndef MORPH_COMMON_SIGNALS_H
#define MORPH_COMMON_SIGNALS_H

/* Installs the handlers, without SA_RESTART so that a blocking poll()
 * returns at once and the loop sees the flag. Call once, from main. */
void morph__signals_install(void);

/* The last stop signal received, 0 if none. */
int morph__signal_pending(void);

#endif
