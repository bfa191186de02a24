/*
 * A job as morphd keeps it: the submission, where it runs, the resize in
 * flight and what it measured. Shared by the daemon and the journal.
 */
#ifndef MORPH_RMS_JOB_H
#define MORPH_RMS_JOB_H

#include <jansson.h>
#include <stdint.h>
#include <sys/types.h>

#include "morph/workload.h"
#include "rms/alloc.h"

/* Life of a job. STARTING: a START that waits for a shrink of another job
 * (its free part is booked ahead). The last four are final. */
typedef enum morph__jstate {
  MORPH__J_PENDING = 0,
  MORPH__J_STARTING,
  MORPH__J_RUNNING,
  MORPH__J_COMPLETED,
  MORPH__J_FAILED,
  MORPH__J_CANCELLED,
  MORPH__J_REJECTED,
  MORPH__J_STATE_COUNT
} morph__jstate;

/* The operation of a resize record (and of the resize in flight). */
typedef enum morph__rop { MORPH__R_NONE = 0, MORPH__R_START, MORPH__R_EXPAND, MORPH__R_SHRINK } morph__rop;

/* Where a resize in flight is (resize.c): an EXPAND goes GROW -> SENT and,
 * if the job refused it, RELEASE; a SHRINK goes SENT -> RELEASE. */
typedef enum morph__rphase {
  MORPH__P_NONE = 0,
  MORPH__P_GROW,   /* the backend was asked for the new pieces */
  MORPH__P_SENT,   /* RESIZE sent: waiting for the job's ACK */
  MORPH__P_RELEASE /* the job is done; the backend takes pieces back */
} morph__rphase;

#define MORPH__SECRET_HEX 64

typedef struct morph__job {
  int64_t id;
  char name[64];
  uid_t uid;                /* its owner: who submitted it (under Slurm, the
                               Slurm job's user); (uid_t)-1: unknown, an
                               administrator's alone. Its processes run as
                               this user and group. */
  gid_t gid;
  char secret[MORPH__SECRET_HEX + 1]; /* what its morph run proves it is
                               the job's relay with (hex; "": none yet) */
  morph_job_kind kind;
  int req_min, req_max;     /* submission request */
  int min, max, pref;       /* malleability limits */
  int argc;
  char **argv;              /* owned, NULL-terminated */
  char *cwd, *out, *err;    /* owned */
  double submit, start, end; /* wall clock, seconds since the epoch */
  morph__jstate state;
  int exit_status;          /* final jobs; -1 unknown */
  pid_t pid;                /* morph-run; 0 none */
  int adopted;              /* running when this morphd started */
  int size;                 /* processes */
  int ppu;                  /* processes per unit of the backend's view: 1
                               in slot units; under Slurm (node units) the
                               job's processes per node */
  morph__alloc alloc;       /* slots the job's processes hold */
  morph__alloc extra;       /* held without processes: an expansion in
                               flight, the free part of a waiting START,
                               pieces being released, or slots of a shrink
                               whose leavers were not seen to exit */
  morph__alloc plan;        /* resize in flight: the pieces it adds or
                               releases; STARTING: the whole START
                               allocation */
  int failed_resizes, resizes;
  int rz_id;                /* resize in flight (0: none) or, STARTING,
                               the shrink it waits for */
  morph__rop rz_op;
  morph__rphase rz_phase;
  int rz_to;
  double rz_deadline;       /* SENT: morph__wall() by which the job must
                               have answered (0: not set yet) */
  int rz_expired;           /* the last resize that timed out (a late ACK
                               of it is only written down) */
  double last_change;
  int cancel;               /* cancel requested: final state CANCELLED */
  int ready;                /* the job itself said HELLO (can resize) */
  unsigned mechanisms;      /* its HELLO's MORPH__MECH_BIT_* (0: not said) */
  int shared_checkpoints;   /* its HELLO named morph run's checkpoint folder,
                               which every host reads: a relaunch may leave
                               hosts (the move off a failing node) */
  int conn;                 /* index of its relay connection, -1 none */
  int64_t iteration;
  double iter_time, mpi_time, mtct_avg, mtct_trend;
  int nprogress;
  char note[256];
  char fault[160];          /* why it must end as failed whatever its exit
                               status (a node it ran on went down) */
  uint64_t *traffic;        /* owned: its communication matrix (morph submit
                               --matrix), traffic_n^2, row-major; NULL: none */
  int traffic_n;
  /* Time limit (limit.c, docs/morphd.md "Time limits"), kept in the
   * journal's limits table. */
  double walltime;          /* requested limit in s at req_max; 0: none */
  double limit_end;         /* running: morph__wall() at which it is stopped */
  double limit_pause;       /* a resize in flight since then (0: none) */
  int limit_size;           /* the size limit_end was set for */
} morph__job;

const char *morph__jstate_name(morph__jstate s);
int morph__jstate_parse(const char *name, morph__jstate *s);
int morph__jstate_final(morph__jstate s);
const char *morph__rop_name(morph__rop op);
/* "", "grow", "sent", "release"; parse: unknown text is MORPH__P_NONE. */
const char *morph__rphase_name(morph__rphase p);
morph__rphase morph__rphase_parse(const char *name);

/* A zeroed job with conn -1 and empty allocations. */
void morph__job_init(morph__job *j);
/* Gives the job a new random relay secret. Errors: MORPH_EIO (no random
 * numbers); the secret is unchanged then. */
int morph__job_new_secret(morph__job *j);
/* True if `given` is the job's secret (and it has one). */
int morph__job_secret_ok(const morph__job *j, const char *given);
/* Frees what the job owns (not the struct). */
void morph__job_clear(morph__job *j);
/* The largest communication matrix a job may give (ranks). */
#define MORPH__TRAFFIC_MAX 1024

/* Sets the job's matrix from a JSON array of n * n non-negative integers
 * (row-major; NULL or JSON null: none). Errors: MORPH_EINVAL (why says
 * which entry, or n outside 1..MORPH__TRAFFIC_MAX), MORPH_ENOMEM; the job
 * keeps its matrix then. */
int morph__job_set_traffic(morph__job *j, const json_t *a, int n, char *why, size_t size);
/* The job's matrix as a JSON array (new reference; JSON null if none). */
json_t *morph__job_traffic_json(const morph__job *j);

/*
 * A malleable job's limits in the backend's units. The program sets them
 * in processes (morph_options, DMR_Set_parameters); node units (Slurm)
 * hold ppu processes per node, and the rule is: the minimum rounded up to
 * whole nodes, the maximum down, the preference to the nearest whole node
 * between them (docs/slurm.md, "Limits in nodes"). Returns 1 with the
 * three in units, or 0 when no whole node lies between min and max (e.g.
 * 1..3 processes on nodes of 4): such a job is kept at its size.
 */
int morph__job_unit_limits(const morph__job *j, int *min, int *pref, int *max);

/* Copies argv (argc entries). Errors: MORPH_ENOMEM. */
int morph__job_set_argv(morph__job *j, int argc, const char *const *argv);

/* What a decision changes in a job (state, size, allocations, the resize
 * in flight, start time, pid), noted before the decision so that one the
 * journal did not take can be undone. */
typedef struct morph__job_mark {
  morph__jstate state;
  int size, rz_id, rz_to;
  morph__rop rz_op;
  morph__rphase rz_phase;
  double start, last_change, rz_deadline;
  pid_t pid;
  morph__alloc alloc, extra, plan;
} morph__job_mark;

/* Notes j into m. Errors: MORPH_ENOMEM (m holds nothing then). */
int morph__job_mark_take(morph__job_mark *m, const morph__job *j);
/* Puts j back as noted in m (m stays valid). */
void morph__job_mark_restore(const morph__job_mark *m, morph__job *j);
void morph__job_mark_free(morph__job_mark *m);

#endif
