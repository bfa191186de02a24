#include "signals.h"

#include <signal.h>
#include <string.h>

/* The only global of morph run: a handler can reach nothing else. It holds
 * the number of the last stopping signal received, 0 if none. */
static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
  stop_signal = sig;
}

void morph__launch_signals_install(void)
{
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  /* No SA_RESTART: poll() must return at once so the loop sees the flag. */
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGHUP, &sa, NULL);
  signal(SIGPIPE, SIG_IGN);
}

int morph__launch_signal_pending(void)
{
  return stop_signal;
}
