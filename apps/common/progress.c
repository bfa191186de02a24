/* Progress line and error exit shared by the examples (see app.h). */
#include <stdio.h>
#include <unistd.h>

#include "app.h"

void app_try(const morph_ctx *m, int rc, const char *what) {
  if (rc == MORPH_OK)
    return;
  fprintf(stderr, "%s: %s (%s)\n", what, morph_strerror(rc), m ? morph_errmsg(m) : "");
  MPI_Abort(m ? morph_comm(m) : MPI_COMM_WORLD, 2);
}

void app_progress(const morph_ctx *m, int *seen) {
  morph_reconf_report r;
  /* A relaunched job starts over with an empty report: its first point
   * (status JOINING) is the only sign of the reconfiguration. */
  int restarted = morph_get_status(m) == MORPH_JOINING;
  if (morph_last_report(m, &r) != MORPH_OK || (r.seq == *seen && !restarted))
    return;
  *seen = r.seq;
  if (morph_rank(m) != 0)
    return;
  if (restarted)
    printf("it %lld: restarted at %d procs (relaunch)\n", (long long)morph_iteration(m),
           morph_size(m));
  else if (r.outcome != MORPH_OK)
    printf("it %lld: %d -> %d procs failed, kept %d: %s\n", (long long)r.iteration, r.old_size,
           r.requested_size, r.old_size, r.message);
  else
    printf("it %lld: %d -> %d procs (%s, %.3f s)\n", (long long)r.iteration, r.old_size,
           r.new_size, morph_mechanism_name(r.mechanism),
           r.t_decision + r.t_spawn + r.t_redist + r.t_commit);
  fflush(stdout);
}

void app_hosts(const app_args *a, const morph_ctx *m, int *size_seen) {
  if (!a->hosts || morph_size(m) == *size_seen)
    return;
  *size_seen = morph_size(m);
  char host[256] = "?";
  gethostname(host, sizeof host - 1);
  printf("it %lld: rank %d of %d on %s\n", (long long)morph_iteration(m), morph_rank(m),
         morph_size(m), host);
  fflush(stdout);
}
