/*
 * Host lists: where processes are, one entry per process, in the order of
 * the processes. RESIZE names the joiners' hosts (expand) or the hosts
 * whose processes leave (shrink) this way, and ACK says where they really
 * went or were; the launcher keeps a job's placement in the same form.
 *
 * On the wire (docs/protocol.md) a list is comma-separated entries, each a
 * host name optionally followed by ":count": "node2,node2,node3" and
 * "node2:2,node3" are the same list. Written lists use the short form.
 *
 * No MPI, no I/O: used by libmorph, morph run and morphd.
 */
#ifndef MORPH_PROTO_HOSTS_H
#define MORPH_PROTO_HOSTS_H

#include <stddef.h>

#define MORPH__HOST_MAX 64 /* bytes of a host name, terminator included */

/* `count` consecutive processes on `host`. */
typedef struct morph__host_run {
  char host[MORPH__HOST_MAX];
  int count;
} morph__host_run;

/* Runs in process order; consecutive runs never name the same host. */
typedef struct morph__hostlist {
  morph__host_run *v;
  int n, cap;
} morph__hostlist;

void morph__hostlist_init(morph__hostlist *l);
void morph__hostlist_free(morph__hostlist *l);

/* Appends `count` processes on `host` (merged into the last run when it
 * names the same host). count 0 adds nothing. Errors: MORPH_EINVAL (empty
 * or too long a name, negative count), MORPH_ENOMEM; *l is unchanged. */
int morph__hostlist_add(morph__hostlist *l, const char *host, int count);

/* Replaces *l with the list in `text` ("" or NULL: empty). Errors:
 * MORPH_EPARSE (an empty name, a name of MORPH__HOST_MAX bytes or more, a
 * count that is not a whole number from 1 to 1000000), MORPH_ENOMEM; *l is
 * empty then. */
int morph__hostlist_parse(morph__hostlist *l, const char *text);

/* Writes the short form ("node2:2,node3") into buf. Errors: MORPH_EINVAL
 * (it does not fit: buf holds "" then, never a list cut short). */
int morph__hostlist_format(const morph__hostlist *l, char *buf, size_t size);

/* Number of processes in the list. */
int morph__hostlist_total(const morph__hostlist *l);

/* Processes on `host` (morph__host_same). */
int morph__hostlist_on(const morph__hostlist *l, const char *host);

/* 1 if a and b name the same host: equal, or equal up to the first '.'
 * when one of them has no domain ("node1" and "node1.cluster"). */
int morph__host_same(const char *a, const char *b);

#endif /* MORPH_PROTO_HOSTS_H */
