/*
 * The relay to morphd (--server): morph run is morphd's client for one
 * job. Without --server every function here does nothing.
 */
#ifndef MORPH_LAUNCH_RELAY_H
#define MORPH_LAUNCH_RELAY_H

#include "launch.h"

/* Takes the job's relay secret from the documented variable
 * MORPH_JOB_SECRET (and removes it from the environment the job
 * inherits), connects and says HELLO; if morphd cannot be reached, the
 * job runs anyway and the tick retries. */
void morph__launch_relay_init(struct morph__launch *r);

/* Reconnects to a lost morphd when it is time to try again. */
void morph__launch_relay_tick(struct morph__launch *r);

/* Reads what morphd sent: its RESIZEs are queued for the job. */
void morph__launch_relay_read(struct morph__launch *r);

/* What morph run adds to every HELLO it sends morphd, its own or the
 * job's: the job id, its relay secret and the checkpoint folder (--checkpoint-dir, or
 * MORPH_CHECKPOINT_DIR as inherited; "": none), which tells morphd that
 * the job can be relaunched without a host it leaves (docs/protocol.md). */
void morph__launch_relay_stamp(const struct morph__launch *r, morph__msg *m);

/* Forwards *m to morphd. With `keep`, a message that cannot be sent now
 * (ACK, LIMITS) waits for the next connection; else it is dropped. */
void morph__launch_relay_send(struct morph__launch *r, const morph__msg *m, int keep);

/* Takes the oldest queued RESIZE from morphd: 1 and *resize, or 0. */
int morph__launch_relay_pop(struct morph__launch *r, morph__msg *resize);

/* Tells morphd how the job ended (one more connection attempt if lost). */
void morph__launch_relay_bye(struct morph__launch *r);

void morph__launch_relay_close(struct morph__launch *r);

#endif
