/*
 * SIGINT, SIGTERM and SIGHUP only raise a flag; the event loop stops the
 * job (forward, grace period, kill) outside the handler, where it may call
 * anything.
 */
#ifndef MORPH_LAUNCH_SIGNALS_H
#define MORPH_LAUNCH_SIGNALS_H

/* Installs the handlers of the stopping signals and ignores SIGPIPE (a
 * peer that went away is seen as a failed send). */
void morph__launch_signals_install(void);

/* The number of the last stopping signal received; 0 if none. */
int morph__launch_signal_pending(void);

#endif
