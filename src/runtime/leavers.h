/*
 * Which processes leave in a shrink. No MPI: the caller gathers every
 * rank's host name first, and every process computes the same answer.
 */
#ifndef MORPH_RUNTIME_LEAVERS_H
#define MORPH_RUNTIME_LEAVERS_H

/*
 * Marks nleave ranks of n in leave[] (1: leaves). `hosts` names the hosts
 * whose processes should leave, one entry per leaver (proto/hosts.h:
 * "node3:2,node2"); host_of[r] is rank r's host. For each named host, its
 * highest ranks leave; what the names leave unsaid (no names, fewer
 * entries than leavers, a host without enough processes) is taken from the
 * highest ranks left. Rank 0 never leaves: it is the job's contact with
 * its launcher. So without names the highest ranks leave, as in a shrink
 * that keeps ranks 0..n-nleave-1.
 * Returns how many named entries could not be honoured (0: all), or
 * MORPH_EINVAL (nleave outside [0, n-1], malformed hosts; leave[] all 0),
 * MORPH_ENOMEM.
 */
int morph__leavers_choose(const char *const *host_of, int n, int nleave, const char *hosts,
                          unsigned char *leave);

/*
 * Marks in hold[] the leavers that must stay as placeholders: per pair
 * (job_of, host_of) that this shrink empties while the job keeps a stayer
 * anywhere, its lowest-ranked leaver. job_of[r] is rank r's launcher job
 * (Open MPI: the job a spawn created); "" means none is needed for r.
 * Why: Open MPI 4.1's daemon on a host forgets a job once its last process
 * there ends, and a later spawn onto that host whose parents include that
 * job's processes fails (docs/cluster.md). Returns the number held.
 */
int morph__leavers_hold(const char *const *host_of, const char *const *job_of, int n,
                        const unsigned char *leave, unsigned char *hold);

#endif /* MORPH_RUNTIME_LEAVERS_H */
