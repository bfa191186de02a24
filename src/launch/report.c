#include "report.h"

#include <errno.h>
#include <string.h>

#include "morph/error.h"
#include "state.h"

static const char header[] =
  "seq,time,iteration,requested,old,new,mechanism,outcome,error,"
  "t_decision,t_spawn,t_redist,t_commit,t_settle,bytes\n";

int morph__launch_report_open(struct morph__launch *r)
{
  if (!r->opt->report)
    return MORPH_OK;
  r->report = fopen(r->opt->report, "w");
  if (!r->report) {
    morph__say(&r->log, 0, "cannot write the report %s: %s", r->opt->report, strerror(errno));
    return MORPH_EIO;
  }
  fputs(header, r->report);
  fflush(r->report);
  return MORPH_OK;
}

void morph__launch_report_close(struct morph__launch *r)
{
  if (r->report)
    fclose(r->report);
  r->report = NULL;
}

static void write_row(struct morph__launch *r, const morph__msg *a, double t_settle)
{
  if (!r->report)
    return;
  fprintf(r->report, "%d,%.3f,%lld,%d,%d,%d,%s,%d,%s,%.6f,%.6f,%.6f,%.6f,%.6f,%lld\n", r->seq,
          morph__launch_clock(r), (long long)a->iteration, r->dec.size, a->old_size, a->new_size,
          morph__launch_mech_name(a->mechanism), a->outcome,
          a->outcome ? morph_err_name(a->outcome) : "ok", a->t_decision, a->t_spawn, a->t_redist,
          a->t_commit, t_settle, (long long)a->bytes);
  /* Flushed per row: the report must survive morph run being killed. */
  fflush(r->report);
}

/* The phases of a successful resize, in the words of its mechanism, and
 * where the joiners went or the leavers were when the job says so. */
static void phases(const morph__msg *a, int move, double t_settle, char *buf, size_t size)
{
  int n;
  if (move) {
    snprintf(buf, size, "spawn %.2f, redist %.2f, movers gone after %.2f; %s", a->t_spawn,
             a->t_redist, a->t_commit + t_settle, a->text);
    return;
  }
  if (a->mechanism == MORPH__LAUNCH_MECH_RELAUNCH)
    n = snprintf(buf, size, "checkpoint %.2f, restart %.2f", a->t_spawn + a->t_redist + a->t_commit,
                 t_settle);
  else if (a->new_size < a->old_size)
    n = snprintf(buf, size, "redist %.2f, leavers gone after %.2f", a->t_redist,
                 a->t_commit + t_settle);
  else
    n = snprintf(buf, size, "spawn %.2f, redist %.2f", a->t_spawn, a->t_redist);
  if (a->hosts[0] && n > 0 && (size_t)n < size && a->mechanism != MORPH__LAUNCH_MECH_RELAUNCH)
    snprintf(buf + n, size - (size_t)n, "; %s on %s",
             a->new_size < a->old_size ? "leavers were" : "joiners", a->hosts);
}

void morph__launch_report_resize(struct morph__launch *r, const morph__msg *a, double t_settle)
{
  write_row(r, a, t_settle);
  double total = a->t_decision + a->t_spawn + a->t_redist + a->t_commit + t_settle;
  const char *mech = morph__launch_mech_name(a->mechanism);
  if (a->outcome == MORPH_OK) {
    char ph[768];
    phases(a, r->dec.move, t_settle, ph, sizeof ph);
    morph__say(&r->log, 0, "job %d->%d %s ok in %.2f s (%s)", a->old_size, a->new_size, mech, total,
               ph);
    return;
  }
  morph__say(&r->log, 0, "job %d->%d %s failed: %s%s%s; running with %d processes", a->old_size,
             r->dec.size, mech, morph_err_name(a->outcome), a->text[0] ? ": " : "", a->text,
             r->size);
}
