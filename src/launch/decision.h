/*
 * The end of the outstanding decision (r->dec). Whichever part learns how
 * a reconfiguration ended (the job's ACK, the leavers' departure, the
 * relaunched job's HELLO, the job's end) completes it here: it is counted,
 * reported and forwarded to morphd, and the next decision may go out.
 */
#ifndef MORPH_LAUNCH_DECISION_H
#define MORPH_LAUNCH_DECISION_H

#include "launch.h"

/* Completes the decision with `outcome` and the job's size now; `note`
 * (NULL: none) is added to the text of the ACK. */
void morph__launch_decision_done(struct morph__launch *r, int outcome, int new_size,
                                 const char *note);

/* The job went away before acknowledging the decision: it is complete
 * with MORPH_ECONN at the current size, `why` in its text. */
void morph__launch_decision_lost(struct morph__launch *r, const char *why);

/* The job ended or was stopped with a decision active: complete it as well
 * as can be said (never acknowledged: MORPH_ECONN; a relaunch under way:
 * MORPH_EABORTED; a live shrink whose leavers were watched: done). */
void morph__launch_decision_abandon(struct morph__launch *r, const char *why);

#endif
