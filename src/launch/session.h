/*
 * Open MPI's session folders of one morph run. Open MPI 4.1 keeps them
 * under <tmpdir base>/ompi.<host>.<uid> on every host of a job: one folder
 * per host and user, shared by every job there. Each orted creates it at
 * start and removes it at its end when it is empty, so an orted that
 * starts while another job's orted ends can see its mkdir fail with
 * EEXIST and the folder gone the moment after: "mkdir ... /tmp/ompi.node3.0
 * File exists" (orte/util/session_dir.c), and its job ends (docs/slurm.md:
 * two Slurm jobs started in the same second). morph run gives its
 * launches a base of their own, the same path on every host (Open MPI
 * passes orte_tmpdir_base on to the remote orteds, which create it), and
 * removes it at the end on this host and on every host of its hostfile.
 */
#ifndef MORPH_LAUNCH_SESSION_H
#define MORPH_LAUNCH_SESSION_H

#include <stddef.h>

/* Writes "<TMPDIR>/morph-<host>-<pid>-<random>" into out (TMPDIR when it
 * is an absolute path of [A-Za-z0-9._/+-] only, else /tmp; the host name
 * without its domain; 8 random hex digits, so that another user cannot
 * make the folder first): unique while this process runs, on any host,
 * and safe to pass to a shell. Errors: MORPH_EINVAL (does not fit). */
int morph__launch_session_name(char *out, size_t size);

/* Removes the folder `base` and all it holds, on this host. */
void morph__launch_session_remove_here(const char *base);

/* Removes, on this host, the folders of this user that morph runs killed
 * with SIGKILL (no handler runs) left in the folder session names go in:
 * their session folders "morph-<this host>-<pid>-*" and socket folders
 * "morph-run-<pid>-*" (server.c) whose pid no longer runs. Returns how
 * many were removed. */
int morph__launch_session_sweep(void);

/* Open MPI's shared-memory segments of a job's processes,
 * /dev/shm/vader_segment.<host>.<uid>.<job id in hex>.<rank>: each process
 * removes its own at its end, but one that is killed (a crash, a joiner
 * of a rolled-back grow, a job stopped) leaves it, and mpirun removes its
 * session folder, where the job ids are, when it ends. So the job
 * families (the upper 16 bits of a job id: one per mpirun, shared by the
 * jobs it spawns) are noted while the job runs and their segments removed
 * once no process of the job is left. */
#define MORPH__LAUNCH_SHM_MAX 32
struct morph__launch_shm {
  unsigned fam[MORPH__LAUNCH_SHM_MAX];
  int n;
};

/* Notes the job families whose PMIx lock segments are in the session
 * folders under base (ompi.<host>.<uid>/pid.N/pmix_dstor_*\/smlockseg-<job
 * id>), at most MORPH__LAUNCH_SHM_MAX in all. Returns how many were new. */
int morph__launch_session_note_jobs(const char *base, struct morph__launch_shm *shm);

/* Removes the segments of the noted families on this host. */
void morph__launch_session_remove_segments(const struct morph__launch_shm *shm);

/* Removes `base` and the segments of the families in shm (NULL: none) on
 * this host and, through the agent Open MPI uses (common/hostcmd.h), on
 * every host of `hostfile` (NULL: none), all at once, waiting at most
 * limit_s seconds; sessions still running then are killed. Returns how
 * many hosts did not confirm the removal. */
int morph__launch_session_remove(const char *base, const char *hostfile,
                                 const struct morph__launch_shm *shm, double limit_s);

#endif /* MORPH_LAUNCH_SESSION_H */
