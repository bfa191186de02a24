/*
 * A legitimate client during a flood (tests/security/cases.sh,
 * bench/security.sh): every INTERVAL seconds for SECONDS it asks morphd
 * for its status and submits a one-process job, each on a new connection,
 * timing each request from its connection to its answer (this program
 * starts once, so the time is morphd's, not a process start's). Prints
 * one line per request: "status 0.012 3.40" (seconds it took, then seconds
 * since this program started), or "status failed: why".
 *
 *   security-ask ADDR SECONDS INTERVAL     (ADDR: socket path or host:port)
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/clock.h"
#include "morph/error.h"
#include "rms/client.h"

/* One request on a fresh connection; prints its line. */
static void ask(const char *addr, const char *what, json_t *req, double start)
{
  morph__cli c;
  json_t *reply = NULL;
  double t0 = morph__now();
  int rc = morph__cli_paths(&c, "/", addr);
  if (rc == MORPH_OK)
    rc = morph__cli_connect(&c, 0);
  if (rc == MORPH_OK)
    rc = morph__cli_call(&c, req, &reply, 10.0);
  else
    json_decref(req);
  if (rc == MORPH_OK)
    printf("%s %.3f %.2f\n", what, morph__now() - t0, t0 - start);
  else
    printf("%s failed: %s\n", what, c.errmsg);
  fflush(stdout);
  json_decref(reply);
  morph__cli_close(&c);
}

int main(int argc, char **argv)
{
  if (argc != 4) {
    fprintf(stderr, "usage: security-ask ADDR SECONDS INTERVAL\n");
    return 2;
  }
  double start = morph__now(), until = start + atof(argv[2]), every = atof(argv[3]);
  while (morph__now() < until) {
    ask(argv[1], "status", json_pack("{s:s}", "cmd", "status"), start);
    ask(argv[1], "submit", json_pack("{s:s, s:s, s:i, s:i, s:[s], s:s}", "cmd", "submit", "kind",
                                     "fixed", "req_min", 1, "req_max", 1, "argv", "/bin/true",
                                     "cwd", "/"),
        start);
    morph__sleep(every);
  }
  return 0;
}
