/*
 * The same-host path of the redistribution engine: receivers map the
 * page-aligned ranges of their slices from the senders' memory files
 * (part.h: no byte moves) and read the rest out of the senders' memory
 * with process_vm_readv (local.h has the handshake and its deadlines).
 *
 * Why these two and not named shared-memory segments: a segment has a
 * name that a killed process leaves behind in /dev/shm; memory files have
 * none and reach a peer through pidfd_getfd. Mapping a range hands its
 * pages over at the cost of page tables (1 GiB 2 -> 4: docs/performance.md);
 * where a slice's offsets in the sender's file and in the new part differ
 * modulo the page size no mapping can line them up, and process_vm_readv
 * copies once, as fast as a memcpy into new memory
 * (bench/runtime/bench-local.c). Its condition is ptrace permission over
 * the sender: same user and, under Yama's ptrace_scope 1, the sender's
 * PR_SET_PTRACER_ANY (what Open MPI's vader does for its single copy).
 * A read that is refused or fails falls back to MPI for that pair.
 */
#include "redist/local.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/pidfd.h>
#include <sys/uio.h>
#include <unistd.h>

#include "common/clock.h"
#include "morph/error.h"
#include "redist/part.h"

#define HOST_MAX 256 /* bytes of a processor name we compare */
#define BATCH 256    /* iovecs per process_vm_readv (IOV_MAX is 1024) */

enum { ANSWER_DONE = 1, ANSWER_MPI = 2 };

/* What a sender tells each receiver: where it is and where its data is. */
typedef struct offer {
  char host[HOST_MAX];
  int64_t pid;
  uint64_t base;       /* address of the old part */
  uint64_t nonce_addr; /* address of `nonce` in the sender */
  uint64_t nonce;      /* a receiver that reads this there sees the sender */
  int64_t nfiles;      /* file ranges of the old part a receiver may adopt
                          (part.h), at offsets of the old part */
  struct {
    uint64_t off, len, foff;
    int64_t fd;
  } files[MORPH__PART_FILES];
} offer;

/* What a receiver answers each sender: how it got its slices, and the
 * bytes of the sender's old part it adopted (which the sender must keep
 * at its commit: part.h), whatever the code. */
typedef struct answer {
  int32_t code, n;
  uint64_t off[MORPH__PART_FILES], len[MORPH__PART_FILES];
} answer;

/* Bytes [src, src + len) of a sender's old part, adopted, not copied. */
typedef struct span {
  uint64_t src, len;
} span;

/* One remote peer of a plan list: its slices are v[first..end). */
typedef struct peer {
  int rank;
  size_t first, end;
  int via_mpi;
  int settled; /* offer handled (senders) / answer in (receivers) */
  answer ans;  /* to a sender / from a receiver */
  offer in;    /* a sender's offer */
} peer;

struct morph__local {
  MPI_Comm comm;
  int me, tag, enabled;
  int64_t es, pulled;
  const morph__plan *plan;
  const char *old_buf;
  char *new_buf;
  morph__part *old_part;       /* NULL: plain memory, nothing to adopt */
  morph__part *new_part;       /* NULL: nothing can be adopted into it */
  offer mine;
  volatile uint64_t nonce;
  peer *to, *from; /* receivers of this process's slices; its senders */
  int nto, nfrom;
  MPI_Request *reqs; /* [offers in | answers in | offers out | answers out] */
  MPI_Status *stats; /* real statuses: MPICH's MPI_STATUSES_IGNORE trips
                        gcc 12's -Wstringop-overflow */
};

/* Remote peers of a slice list with bytes to exchange, one entry each. */
static int collect_peers(const morph__slice *v, size_t n, int me, peer **out, int *nout)
{
  *out = calloc(n + 1, sizeof **out);
  *nout = 0;
  if (!*out)
    return MORPH_ENOMEM;
  for (size_t i = 0, j; i < n; i = j) {
    int64_t count = 0;
    for (j = i; j < n && v[j].peer == v[i].peer; j++)
      count += v[j].count;
    if (v[i].peer != me && count > 0)
      (*out)[(*nout)++] = (peer){.rank = v[i].peer, .first = i, .end = j, .via_mpi = 1};
  }
  return MORPH_OK;
}

static void local_free(morph__local *l)
{
  free(l->to);
  free(l->from);
  free(l->reqs);
  free(l->stats);
  free(l);
}

/* This process's offer. The nonce only has to differ from whatever another
 * process (or one in another pid namespace) holds at the same address. */
static void make_offer(morph__local *l, const void *old_buf)
{
  char name[MPI_MAX_PROCESSOR_NAME + 1] = "";
  int len = 0;
  MPI_Get_processor_name(name, &len);
  snprintf(l->mine.host, sizeof l->mine.host, "%.*s", HOST_MAX - 1, name);
  l->mine.pid = (int64_t)getpid();
  l->mine.base = (uint64_t)(uintptr_t)old_buf;
  l->nonce = ((uint64_t)(morph__now() * 1e9) ^ ((uint64_t)getpid() << 40) ^
              (uint64_t)(uintptr_t)l) | 1;
  l->mine.nonce = l->nonce;
  l->mine.nonce_addr = (uint64_t)(uintptr_t)&l->nonce;
  morph__part_file f[MORPH__PART_FILES];
  int n = l->old_part ? morph__part_files(l->old_part, f) : 0;
  for (int k = 0; k < n; k++) {
    l->mine.files[k].off = f[k].off, l->mine.files[k].len = f[k].len;
    l->mine.files[k].foff = f[k].foff, l->mine.files[k].fd = f[k].fd;
  }
  l->mine.nfiles = n;
}

/* Receives of offers (from senders) first, then of answers (from
 * receivers): a peer that is both sends its offer before its answer. */
static int post_handshake(morph__local *l)
{
  MPI_Request *r = l->reqs;
  int rc = MPI_SUCCESS;
  for (int k = 0; k < l->nfrom && rc == MPI_SUCCESS; k++)
    rc = MPI_Irecv(&l->from[k].in, (int)sizeof(offer), MPI_BYTE, l->from[k].rank, l->tag, l->comm,
                   &r[k]);
  for (int k = 0; k < l->nto && rc == MPI_SUCCESS; k++)
    rc = MPI_Irecv(&l->to[k].ans, (int)sizeof(answer), MPI_BYTE, l->to[k].rank, l->tag, l->comm,
                   &r[l->nfrom + k]);
  for (int k = 0; k < l->nto && rc == MPI_SUCCESS; k++)
    rc = MPI_Isend(&l->mine, (int)sizeof(offer), MPI_BYTE, l->to[k].rank, l->tag, l->comm,
                   &r[l->nfrom + l->nto + k]);
  return rc == MPI_SUCCESS ? MORPH_OK : MORPH_EMPI;
}

int morph__local_open(morph__local **out, MPI_Comm comm, int me, const morph__plan *plan,
                      const morph__redist_bufs *b, int64_t es, int tag)
{
  *out = NULL;
  morph__local *l = calloc(1, sizeof *l);
  if (!l)
    return MORPH_ENOMEM;
  *l = (morph__local){.comm = comm, .me = me, .tag = tag, .es = es, .plan = plan,
                      .old_buf = b->old_buf, .new_buf = b->new_buf, .old_part = b->old_part,
                      .new_part = b->new_part};
  const char *env = getenv("MORPH_REDIST_LOCAL");
  l->enabled = !env || strcmp(env, "0") != 0;
  int rc = collect_peers(plan->send, plan->nsend, me, &l->to, &l->nto);
  if (rc == MORPH_OK)
    rc = collect_peers(plan->recv, plan->nrecv, me, &l->from, &l->nfrom);
  size_t nreq = 2 * ((size_t)l->nto + (size_t)l->nfrom);
  l->reqs = malloc((nreq + 1) * sizeof *l->reqs);
  l->stats = malloc((nreq + 1) * sizeof *l->stats);
  if (rc == MORPH_OK && (!l->reqs || !l->stats))
    rc = MORPH_ENOMEM;
  for (size_t k = 0; rc == MORPH_OK && k < nreq; k++)
    l->reqs[k] = MPI_REQUEST_NULL;
  if (l->old_part)
    morph__part_forget(l->old_part);
  make_offer(l, b->old_buf);
  /* Under Yama's ptrace_scope 1 only a declared tracer may read us; the
   * call fails harmlessly (EINVAL) where Yama is absent. */
  if (rc == MORPH_OK && l->nto > 0)
    prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
  if (rc == MORPH_OK)
    rc = post_handshake(l);
  if (rc != MORPH_OK) {
    /* Only the first post can fail in practice; nothing else is pending. */
    local_free(l);
    return rc;
  }
  *out = l;
  return MORPH_OK;
}

/* Moves v[*i..n) forward by `got` bytes. */
static void advance(struct iovec *v, int n, int *i, size_t got)
{
  while (got > 0 && *i < n) {
    if (got >= v[*i].iov_len) {
      got -= v[*i].iov_len;
      (*i)++;
    } else {
      v[*i].iov_base = (char *)v[*i].iov_base + got;
      v[*i].iov_len -= got;
      got = 0;
    }
  }
}

/* Reads n segments (equal lengths on both sides), partial reads resumed. */
static int read_all(pid_t pid, struct iovec *lv, struct iovec *rv, int n)
{
  for (int a = 0, b = 0; a < n;) {
    ssize_t got = process_vm_readv(pid, lv + a, (unsigned long)(n - a), rv + b,
                                   (unsigned long)(n - b), 0);
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0)
      return -1;
    advance(lv, n, &a, (size_t)got);
    advance(rv, n, &b, (size_t)got);
  }
  return 0;
}

/* 1 if the offer's nonce reads back from its process: same host, same pid
 * namespace, and the kernel lets us read it. */
static int can_read(const morph__local *l, const offer *o)
{
  if (!l->enabled || strncmp(o->host, l->mine.host, HOST_MAX) != 0)
    return 0;
  uint64_t w = 0;
  struct iovec lv = {&w, sizeof w}, rv = {(void *)(uintptr_t)o->nonce_addr, sizeof w};
  return process_vm_readv((pid_t)o->pid, &lv, 1, &rv, 1, 0) == (ssize_t)sizeof w &&
         w == o->nonce;
}

/* A descriptor of this process for file `fd` of the offering process:
 * its own (duplicated), or the sender's through its pidfd; -1 if refused. */
static int file_of(int pidfd, int64_t fd)
{
  return pidfd < 0 ? fcntl((int)fd, F_DUPFD_CLOEXEC, 0) : pidfd_getfd(pidfd, (int)fd, 0);
}

/* Smallest range worth a mapping (and one of a part's file slots). */
#define ADOPT_MIN ((uint64_t)64 << 10)

/* Adopts the page-aligned middle of where file range k of offer o meets
 * slice v, when the sender's file offset and the new part's offset agree
 * modulo the page size (a mapping instead of a copy; the ragged ends are
 * copied). Writes the adopted bytes of o's part to *got; 1 if adopted.
 * *pidfd is opened on first use (self: stays -1, the files are this
 * process's own). */
static int adopt_one(morph__local *l, const offer *o, int self, const morph__slice *v, int k,
                     int *pidfd, span *got)
{
  uint64_t pg = morph__part_page(), s = (uint64_t)(v->src_index * l->es);
  uint64_t off = o->files[k].off, fe = off + o->files[k].len;
  uint64_t a = s > off ? s : off, e = s + (uint64_t)(v->count * l->es), b = e < fe ? e : fe;
  uint64_t dst = (uint64_t)(v->dst_index * l->es) + (a - s), foff = o->files[k].foff + (a - off);
  morph__part *np = l->new_part;
  if (a >= b || dst % pg != foff % pg || np->nfiles >= MORPH__PART_FILES)
    return 0;
  uint64_t skip = (pg - foff % pg) % pg;
  a += skip, dst += skip, foff += skip;
  if (a >= b)
    return 0;
  /* A last partial page only where it ends both the sender's range (its
   * file then holds the whole page: part.h) and the new part. */
  uint64_t len = b == fe && dst + (b - a) == np->bytes ? b - a : (b - a) / pg * pg;
  if (len < ADOPT_MIN && len != o->files[k].len)
    return 0;
  if (!self && *pidfd < 0 && (*pidfd = pidfd_open((pid_t)o->pid, 0)) < 0)
    return 0;
  int fd = file_of(self ? -1 : *pidfd, o->files[k].fd);
  if (fd < 0 || morph__part_adopt(np, (size_t)dst, fd, (size_t)foff, (size_t)len) != MORPH_OK)
    return 0;
  *got = (span){a, len};
  return 1;
}

/* Adopts, for every offered file range, its aligned middle in the first
 * of the slices v[first, end) it meets, and lists what was adopted in
 * done (at most MORPH__PART_FILES). The rest is copied. */
static int adopt_files(morph__local *l, const offer *o, int self, size_t first, size_t end,
                       span *done)
{
  int ndone = 0, pidfd = -1;
  const morph__slice *v = l->plan->recv;
  for (int k = 0; l->enabled && l->new_part && k < (int)o->nfiles && k < MORPH__PART_FILES; k++)
    for (size_t i = first; i < end; i++)
      if (adopt_one(l, o, self, &v[i], k, &pidfd, &done[ndone])) {
        ndone++;
        break;
      }
  if (pidfd >= 0)
    close(pidfd);
  return ndone;
}

/* The next bytes of [*at, end) of a sender's old part that were not
 * adopted: moves *at to their start and returns their length (0: none). */
static uint64_t next_piece(const span *done, int ndone, uint64_t *at, uint64_t end)
{
  for (int moved = 1; moved;) {
    moved = 0;
    for (int k = 0; k < ndone; k++)
      if (done[k].src <= *at && *at < done[k].src + done[k].len)
        *at = done[k].src + done[k].len, moved = 1;
  }
  uint64_t stop = end;
  for (int k = 0; k < ndone; k++)
    if (done[k].src > *at && done[k].src < stop)
      stop = done[k].src;
  return *at < end ? stop - *at : 0;
}

/* Copies the bytes of slices v[first, end) that were not adopted: from
 * this process's old part (self) or from sender `o` in batches of
 * process_vm_readv. New pages are populated first, in one call per piece
 * (part.c). 0 on success. */
static int copy_pieces(morph__local *l, const offer *o, int self, size_t first, size_t end,
                       const span *done, int ndone)
{
  struct iovec lv[BATCH], rv[BATCH];
  const morph__slice *v = l->plan->recv;
  const char *base = self ? l->old_buf : (const char *)(uintptr_t)o->base;
  int n = 0;
  for (size_t i = first; i < end; i++) {
    uint64_t s = (uint64_t)(v[i].src_index * l->es), e = s + (uint64_t)(v[i].count * l->es);
    for (uint64_t at = s, len; (len = next_piece(done, ndone, &at, e)) > 0; at += len) {
      size_t dst = (size_t)(v[i].dst_index * l->es) + (size_t)(at - s);
      if (l->new_part)
        morph__part_populate(l->new_part, dst, (size_t)len);
      if (self) {
        memcpy(l->new_buf + dst, base + at, (size_t)len);
        continue;
      }
      lv[n] = (struct iovec){l->new_buf + dst, (size_t)len};
      rv[n++] = (struct iovec){(void *)(base + at), (size_t)len};
      if (n == BATCH && read_all((pid_t)o->pid, lv, rv, n) != 0)
        return -1;
      n = n == BATCH ? 0 : n;
    }
  }
  return n > 0 ? read_all((pid_t)o->pid, lv, rv, n) : 0;
}

/* Places slices v[first, end) from offer o: file ranges adopted (listed
 * in a), the rest copied. 0 on success. */
static int place(morph__local *l, const offer *o, int self, size_t first, size_t end, answer *a)
{
  span done[MORPH__PART_FILES];
  int ndone = adopt_files(l, o, self, first, end, done);
  a->n = ndone;
  for (int k = 0; k < ndone; k++)
    a->off[k] = done[k].src, a->len[k] = done[k].len;
  return copy_pieces(l, o, self, first, end, done, ndone);
}

/* Handles sender k's offer: read directly and answer DONE, or leave it to
 * MPI. A read that fails half way is overwritten by the MPI transfer; a
 * file adopted before the failure stays mapped, and the MPI transfer then
 * writes the sender's bytes over the same bytes of the sender's file:
 * the values do not change. */
static int take_offer(morph__local *l, int k)
{
  peer *p = &l->from[k];
  p->settled = 1;
  if (!can_read(l, &p->in) || place(l, &p->in, 0, p->first, p->end, &p->ans) != 0)
    return MORPH_OK;
  for (size_t i = p->first; i < p->end; i++)
    l->pulled += l->plan->recv[i].count * l->es;
  p->via_mpi = 0;
  p->ans.code = ANSWER_DONE;
  MPI_Request *r = &l->reqs[l->nfrom + 2 * l->nto + k];
  return MPI_Isend(&p->ans, (int)sizeof(answer), MPI_BYTE, p->rank, l->tag, l->comm, r) ==
                 MPI_SUCCESS
             ? MORPH_OK
             : MORPH_EMPI;
}

/* Records in the old part the ranges of it that answer a says were
 * adopted (by this process or a receiver): the trim at the commit keeps
 * them (part.h). */
static void keep_adopted(morph__local *l, const answer *a)
{
  for (int k = 0; l->old_part && k < a->n && k < MORPH__PART_FILES; k++)
    morph__part_give(l->old_part, (size_t)a->off[k], (size_t)a->len[k]);
}

/* This process's own slices, which the plan lists among the received ones
 * under its own rank: its own files adopted at their new place when they
 * land whole and aligned (a shrink's stayer keeps its part without a copy),
 * the rest copied. With MORPH_REDIST_LOCAL=0 everything is copied. */
void morph__local_keep(morph__local *l)
{
  const morph__slice *v = l->plan->recv;
  size_t n = l->plan->nrecv, i = 0, j;
  while (i < n && v[i].peer != l->me)
    i++;
  for (j = i; j < n && v[j].peer == l->me; j++)
    ;
  answer a = {0};
  place(l, &l->mine, 1, i, j, &a);
  keep_adopted(l, &a);
}

/* Senders left to MPI receive into pages populated in one call each. */
static void populate_mpi(morph__local *l)
{
  const morph__slice *v = l->plan->recv;
  for (int k = 0; l->new_part && k < l->nfrom; k++)
    for (size_t i = l->from[k].first; l->from[k].via_mpi && i < l->from[k].end; i++)
      morph__part_populate(l->new_part, (size_t)(v[i].dst_index * l->es),
                           (size_t)(v[i].count * l->es));
}

/* Between two polls of a wait: jobs here often have more processes than
 * cores, and a waiter that spins takes the core from the peer whose copy
 * it waits for. */
static void idle(void)
{
  sched_yield();
}

int morph__local_pull(morph__local *l, double deadline)
{
  for (int left = l->nfrom; left > 0;) {
    for (int k = 0; k < l->nfrom; k++) {
      int got = 0;
      if (l->from[k].settled)
        continue;
      if (MPI_Test(&l->reqs[k], &got, MPI_STATUS_IGNORE) != MPI_SUCCESS)
        return MORPH_EMPI;
      int rc = got ? take_offer(l, k) : MORPH_OK;
      if (rc != MORPH_OK)
        return rc;
      left -= got;
    }
    /* Late senders go through MPI: a late offer still lands in its
     * pending receive, and the MPI answer makes the sender send. */
    if (left > 0 && deadline > 0 && morph__now() > deadline)
      break;
    if (left > 0)
      idle();
  }
  for (int k = 0; k < l->nfrom; k++)
    l->from[k].settled = 1;
  populate_mpi(l);
  return MORPH_OK;
}

/* The peer entry of `rank` in a list sorted by rank. */
static const peer *find_peer(const peer *v, int n, int rank)
{
  int lo = 0, hi = n;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (v[mid].rank < rank)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < n && v[lo].rank == rank ? &v[lo] : NULL;
}

int morph__local_via_mpi(const morph__local *l, int peer, int sending)
{
  if (!l)
    return 1;
  const struct peer *p = sending ? find_peer(l->to, l->nto, peer)
                                 : find_peer(l->from, l->nfrom, peer);
  return !p || p->via_mpi;
}

int morph__local_answers(morph__local *l, double deadline)
{
  for (int k = 0; k < l->nfrom; k++) {
    peer *p = &l->from[k];
    if (!p->via_mpi)
      continue;
    p->ans.code = ANSWER_MPI;
    if (MPI_Isend(&p->ans, (int)sizeof(answer), MPI_BYTE, p->rank, l->tag, l->comm,
                  &l->reqs[l->nfrom + 2 * l->nto + k]) != MPI_SUCCESS)
      return MORPH_EMPI;
  }
  for (;;) {
    int done = 0;
    if (MPI_Testall(l->nto, l->reqs + l->nfrom, &done, l->stats) != MPI_SUCCESS)
      return MORPH_EMPI;
    if (done)
      break;
    if (deadline > 0 && morph__now() > deadline)
      return MORPH_ETIMEDOUT;
    idle();
  }
  for (int k = 0; k < l->nto; k++) {
    l->to[k].via_mpi = l->to[k].ans.code != ANSWER_DONE;
    keep_adopted(l, &l->to[k].ans);
  }
  return MORPH_OK;
}

int64_t morph__local_pulled(const morph__local *l)
{
  return l ? l->pulled : 0;
}

int morph__local_close(morph__local *l, int abandon, double deadline)
{
  if (!l || abandon)
    return MORPH_OK;
  int n = 2 * (l->nto + l->nfrom);
  for (;;) {
    int done = 0;
    if (MPI_Testall(n, l->reqs, &done, l->stats) != MPI_SUCCESS)
      return MORPH_EMPI;
    if (done)
      break;
    if (deadline > 0 && morph__now() > deadline)
      return MORPH_ETIMEDOUT; /* left allocated: MPI still owns it */
    idle();
  }
  local_free(l);
  return MORPH_OK;
}
