/*
 * The job <-> launcher protocol (docs/protocol.md): versioned JSON messages,
 * one per line, over a stream connection (transport.h: a local socket, or
 * TCP authenticated with MUNGE between hosts). The job (rank 0 of a malleable
 * application) is the client; the launcher (`morph run`) or the daemon
 * (morphd) is the server. Shared by libmorph and the tools; no MPI here.
 */
#ifndef MORPH_PROTO_PROTOCOL_H
#define MORPH_PROTO_PROTOCOL_H

#include <stddef.h>
#include <stdint.h>

#include "proto/transport.h"

#define MORPH_PROTO_VERSION 1

enum morph__msg_kind {
  MORPH__MSG_HELLO,    /* job -> server: I am running (size, limits) */
  MORPH__MSG_WELCOME,  /* server -> job: accepted (job id) */
  MORPH__MSG_PROGRESS, /* job -> server: iteration, iteration time, MPI time */
  MORPH__MSG_RESIZE,   /* server -> job: decision: go to `size` */
  MORPH__MSG_ACK,      /* job -> server: outcome of a decision */
  MORPH__MSG_LIMITS,   /* job -> server: new min / max / pref */
  MORPH__MSG_BYE,      /* job -> server: the job ends (exit status) */
  MORPH__MSG_ERROR,    /* either way: the other side sent something wrong */
  MORPH__MSG_KIND_COUNT
};

/* Mechanisms a job can carry out (bit mask of 1 << morph_mechanism). */
#define MORPH__MECH_BIT_LIVE (1u << 1)
#define MORPH__MECH_BIT_RELAUNCH (1u << 2)
/* RESIZE's forced mechanism: morph_mechanism's values, without MPI. */
#define MORPH__MECH_RELAUNCH 2

/* One message; which fields are meaningful depends on `kind` (see
 * docs/protocol.md). Unused numeric fields are 0 or -1 as documented. */
typedef struct morph__msg {
  enum morph__msg_kind kind;
  int version;
  char job[64];          /* HELLO, WELCOME: job id (WELCOME assigns it) */
  char secret[72];       /* HELLO from morph run to morphd: the job's relay
                            secret (docs/security.md); WELCOME from morphd:
                            the secret to say in later HELLOs ("": none) */
  long pid;              /* HELLO: pid of rank 0 */
  int size;              /* HELLO, LIMITS: current size; RESIZE: target */
  int min, max, pref;    /* HELLO, LIMITS */
  unsigned mechanisms;   /* HELLO: MORPH__MECH_BIT_* the job can use */
  char mpi[16];          /* HELLO: "openmpi" | "mpich" | ... */
  int64_t iteration;     /* PROGRESS, ACK; RESIZE: at_iteration (-1: now) */
  double iter_time;      /* PROGRESS: mean seconds per iteration */
  double mpi_time;       /* PROGRESS: mean seconds in MPI per iteration */
  int id;                /* RESIZE, ACK: decision id */
  int mechanism;         /* RESIZE: forced morph_mechanism (0: auto); ACK:
                            the one used */
  int outcome;           /* ACK: 0 or the morph error that rolled it back */
  int old_size, new_size;/* ACK */
  double t_decision, t_spawn, t_redist, t_commit; /* ACK, seconds */
  int64_t bytes;         /* ACK: bytes moved */
  char hosts[512];       /* RESIZE: where joiners go (expand) or whose
                            processes leave (shrink), one entry per process
                            (proto/hosts.h; "": the launcher's or the
                            runtime's default); ACK: where they went or
                            were */
  char from[512];        /* RESIZE: a move (size unchanged): the hosts
                            whose processes leave, one entry per process;
                            `hosts` then names where they go; "": a resize */
  char checkpoint[512];  /* ACK of a relaunch: checkpoint to restart from;
                            HELLO from morph run: its checkpoint folder,
                            which every host of the job reads ("": none:
                            each host's own /dev/shm or /tmp) */
  int exit_status;       /* BYE */
  char text[256];        /* ACK, ERROR, BYE: human-readable */
} morph__msg;

/* Resets *m to an empty message of the given kind (numeric fields 0,
 * iteration -1, version MORPH_PROTO_VERSION). */
void morph__msg_init(morph__msg *m, enum morph__msg_kind kind);

/* Name of a kind as it appears on the wire ("hello"); NULL if out of range. */
const char *morph__msg_kind_name(enum morph__msg_kind kind);

/* Encodes *m as one JSON line terminated by '\n' into buf.
 * Returns the length, or MORPH_ENOMEM if it does not fit / cannot be built. */
int morph__msg_encode(const morph__msg *m, char *buf, size_t size);

/* Decodes one line (with or without its '\n') into *m. Unknown fields are
 * ignored (forward compatibility); a newer major version, an unknown kind or
 * a field of the wrong type is MORPH_EPROTO with a message in err. */
int morph__msg_decode(const char *line, morph__msg *m, char *err, size_t errsize);

/* Sends one message. Errors: MORPH_ECONN (peer gone), MORPH_ENOMEM. */
int morph__send(morph__conn *c, const morph__msg *m);

/*
 * Receives one message, waiting at most `timeout` seconds (0: do not wait,
 * only take what has already arrived; negative: wait forever).
 * Returns 1 if *m was filled, 0 if nothing arrived in time,
 * MORPH_ECONN if the peer closed the connection, MORPH_EPROTO for a
 * malformed line (the line is consumed; err says why), MORPH_EAUTH for a
 * line that fails its seal (injected or replayed: close the connection).
 */
int morph__recv(morph__conn *c, morph__msg *m, double timeout, char *err, size_t errsize);

#endif /* MORPH_PROTO_PROTOCOL_H */
