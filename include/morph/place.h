/*
 * morph/place.h - the placement stage: where the policy engine's actions
 * go. The policy (morph/policy.h) decides how many units each job starts
 * with, gains or gives back; a placement strategy decides which nodes and
 * how many slots on each.
 *
 * Who calls what: a caller (morphd's scheduler, the simulator, tests)
 * builds a snapshot, calls morph_policy_decide(), which emits actions
 * without allocation pieces, then morph_place_actions() on the same
 * snapshot and action list, which fills every action's pieces, and then
 * carries the actions out. morph_policy_actions_check() referees the
 * complete list.
 *
 * Like the policy engine, placement does no I/O in morph_place_actions(),
 * uses no MPI, reads no clock and keeps no globals: one process may hold
 * any number of placements.
 *
 * Strategies (morph_place_names()): "firstfit" (the default) takes the
 * lowest-numbered free units; a resized job's own nodes first. Each
 * strategy is one file of src/place/ behind a small table of operations
 * (docs/place.md says how to add one).
 *
 * Error contract: every function that can fail returns MORPH_OK (0) or a
 * negative MORPH_E* code from morph/error.h. Functions taking a morph_place
 * keep a message of their last failure, read with morph_place_errmsg().
 *
 * Lifetime: morph_place_create() / morph_place_destroy(). The snapshot and
 * the action list belong to the caller; morph_place_actions() reads the
 * snapshot and writes only the list's pieces (and trims EXPANDs limited by
 * `expand_from`, below). A morph_place may be used by
 * one thread at a time; distinct placements are independent.
 */
#ifndef MORPH_PLACE_H
#define MORPH_PLACE_H

#include <stddef.h>

#include <morph/error.h>
#include <morph/policy.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct morph_place morph_place;

/* One strategy parameter, as text (a later strategy's topology, failure
 * estimates, seed ...). Arrays of them keep the API from growing a
 * parameter per strategy. */
typedef struct morph_place_param {
  const char *key;
  const char *value;
} morph_place_param;

/* Creates the strategy called `name` (see morph_place_names()) with
 * nparams parameters (params may be NULL if nparams is 0); they are read
 * during the call only. firstfit takes none.
 * Errors: MORPH_EINVAL for NULL name or out, an unknown name, or a
 * parameter the strategy does not know or accept; MORPH_ENOMEM. On error
 * *out is NULL; morph_place_create_error() gives the message (for an
 * unknown name it lists the known names). */
int morph_place_create(const char *name, const morph_place_param *params, int nparams,
                       morph_place **out);

/* Checks what morph_place_create() checks and writes the message of the
 * first problem into buf ("" if none; truncated to size, NUL-terminated if
 * size > 0). Errors: those morph_place_create() would return, but
 * MORPH_ENOMEM. */
int morph_place_create_error(const char *name, const morph_place_param *params, int nparams,
                             char *buf, size_t size);

/* Frees the placement; NULL is allowed. */
void morph_place_destroy(morph_place *place);

/* The strategy's name ("firstfit"); "" for NULL. */
const char *morph_place_name(const morph_place *place);

/* Message of the last failure ("" if none); never NULL. */
const char *morph_place_errmsg(const morph_place *place);

/* Fills the pieces of every action of `actions` (decided on `snap`), in
 * order, discarding any pieces the list held:
 *   - START: `to` units on UP nodes; EXPAND: `to - from` units on UP
 *     nodes, free ones (the strategy may prefer the job's own nodes),
 *     of index >= the job's `expand_from` only: an EXPAND for more units
 *     than are free there is trimmed, its `to` lowered to what fits, and
 *     one with none free there is removed from the list (the `depends`
 *     of later actions follow) -- the only changes besides the pieces
 *     that placement makes to the list;
 *   - SHRINK: `from - to` units of the job's allocation, never the last
 *     slot of its first piece (the master process: in node units, never
 *     its first node), only on UP nodes if `release` is
 *     MORPH_POLICY_RELEASE_UP;
 *   - units booked by one action are not free for the next; units a
 *     SHRINK releases are free for nobody but the one START that depends
 *     on it, which takes min(to, released) of them and the rest from free
 *     units (what it leaves stays unbooked until the next decision).
 * This is exactly what morph_policy_decide() counted, so placing its
 * actions always succeeds; the errors are for lists from elsewhere.
 * Errors: MORPH_EINVAL for NULL arguments, an inconsistent snapshot in
 * what placement reads (unit, arrays, nodes, the allocation of a job an
 * action resizes; morph_policy_snapshot_check() checks everything) or an
 * action that does not match it
 * (unknown op, job index or id, `from` not the job's size, a job with two
 * actions, `depends` not an earlier SHRINK or a SHRINK serving two STARTs);
 * MORPH_EBUSY when an action does not fit (not enough free units, or not
 * enough units the job may release under its rule); MORPH_ENOMEM. The
 * message names the action. On error every action keeps its fields but has
 * no pieces (alloc_count 0, nallocs 0), and the placement is usable. */
int morph_place_actions(morph_place *place, const morph_policy_snapshot *snap,
                        morph_policy_actions *actions);

/* 1 if snapshot node `node` is about to fail for this placement: its
 * outage probability (tofa, greedy, random: from faults=FILE) is at or
 * above the strategy's threshold (threshold=P, in (0, 1]); 0 otherwise,
 * for a strategy without probabilities and for NULL. A caller that builds
 * snapshots marks such a node DRAINING, so that a policy that shrinks jobs
 * off nodes that leave (granularity) moves malleable jobs off it before it
 * fails, and nothing new is placed there. Never fails. */
int morph_place_failing(const morph_place *place, int node);

/* Sets the outage probability of snapshot node `node` to p (morphd's
 * estimate from its heartbeats) for the strategies that use them (tofa,
 * greedy, random with a topology): placement and morph_place_failing()
 * follow it from the next call on. A faults file given at creation
 * overrides every estimate: then the call changes nothing and returns
 * MORPH_OK. Errors: MORPH_EINVAL (NULL place, node outside the topology,
 * p outside [0, 1]), MORPH_ENOSYS (a strategy without probabilities, or
 * no topology=FILE); nothing changes then. */
int morph_place_outage_set(morph_place *place, int node, double p);

/* The name of snapshot node `node` in the placement's topology
 * (topology=FILE of tofa, greedy, random); NULL without a topology file,
 * for a node outside it and for NULL. Snapshot node i is topology node i:
 * a caller checks that the names are its own hosts (morphd does when it
 * starts), or the placement would choose for the wrong nodes. */
const char *morph_place_node_name(const morph_place *place, int node);

/* Writes the strategy names, separated by ", ", into buf (truncated to
 * size, always NUL-terminated if size > 0). Returns the full length. Never
 * fails. */
size_t morph_place_names(char *buf, size_t size);

/* Number of strategies (never fails), and the name and one-line
 * description of strategy i (NULL if out of range). */
int morph_place_count(void);
const char *morph_place_table_name(int i);
const char *morph_place_table_description(int i);

#ifdef __cplusplus
}
#endif
#endif /* MORPH_PLACE_H */
