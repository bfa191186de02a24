/*
 * rms/slurm: what the backend costs slurmctld, counted by morphd itself,
 * and its budget. Every libslurm call is one RPC (slurm.h, morph__sl_rpc),
 * a load that Slurm answers "no change since" is counted as such, and each
 * takes one token of a budget that grows by RATE a second up to BURST:
 * slurm_load.c takes a picture only when a token is left, so the backend
 * sends RATE RPCs a second on average at most, its grows and shrinks
 * included (they may take the budget below zero: the pictures after them
 * wait). Once a window
 * (MORPH__SL_STAT_WINDOW_S) one line at -v sums it up, for an
 * administrator to compare with sdiag:
 *
 *   slurm: 60 s: 41 RPCs (0.68/s): jobs 30 (22 no change), nodes 8 (0),
 *   job 0, allocations 1, updates 2, kills 0; 30 pictures (22 no change),
 *   load mean 1.9 ms max 7.1 ms, view mean 0.2 ms max 0.9 ms
 */
#include <stdio.h>
#include <string.h>

#include "common/clock.h"
#include "rms/slurm.h"

#define RATE 0.9 /* RPCs a second */
#define BURST 4.0

static const char *const rpc_names[MORPH__SL_RPC_KINDS] = {
  "jobs", "nodes", "job", "allocations", "updates", "kills"};

/* The RPC budget now (tokens accrue at RATE, at most BURST). */
double morph__sl_budget(morph__sl *s)
{
  double now = morph__now();
  if (s->tokens_at == 0)
    s->tokens = BURST;
  else
    s->tokens += (now - s->tokens_at) * RATE;
  if (s->tokens > BURST)
    s->tokens = BURST;
  s->tokens_at = now;
  return s->tokens;
}

void morph__sl_rpc(morph__sl *s, morph__sl_rpc_kind k, int same)
{
  morph__sl_budget(s);
  s->tokens -= 1;
  s->st.rpc[k]++;
  s->st.same[k] += same != 0;
}

void morph__sl_stat_picture(morph__sl *s, int same, double load_ms, double view_ms)
{
  morph__sl_stat *st = &s->st;
  st->pictures++;
  st->pictures_same += same != 0;
  st->load_ms += load_ms, st->view_ms += view_ms;
  if (load_ms > st->load_max)
    st->load_max = load_ms;
  if (view_ms > st->view_max)
    st->view_max = view_ms;
}

/* "jobs 30 (22 no change), nodes 8 (0), job 0, ..." */
static void rpc_list(const morph__sl_stat *st, long *total, char *buf, size_t size)
{
  size_t len = 0;
  *total = 0;
  buf[0] = '\0';
  for (int k = 0; k < MORPH__SL_RPC_KINDS && len < size; k++) {
    int w = k <= MORPH__SL_RPC_NODES
                ? snprintf(buf + len, size - len, "%s%s %ld (%ld no change)", k ? ", " : "",
                           rpc_names[k], st->rpc[k], st->same[k])
                : snprintf(buf + len, size - len, ", %s %ld", rpc_names[k], st->rpc[k]);
    len += w > 0 ? (size_t)w : size;
    *total += st->rpc[k];
  }
}

void morph__sl_stat_tick(morph__sl *s)
{
  morph__sl_stat *st = &s->st;
  double now = morph__now();
  if (st->since == 0)
    st->since = now;
  if (now - st->since < MORPH__SL_STAT_WINDOW_S)
    return;
  char list[512];
  long total;
  rpc_list(st, &total, list, sizeof list);
  double span = now - st->since, n = st->pictures > 0 ? (double)st->pictures : 1;
  morph__say(s->log, 1, "slurm: %.0f s: %ld RPCs (%.2f/s): %s; %ld pictures (%ld no change), "
             "load mean %.1f ms max %.1f ms, view mean %.1f ms max %.1f ms",
             span, total, (double)total / span, list, st->pictures, st->pictures_same,
             st->load_ms / n, st->load_max, st->view_ms / n, st->view_max);
  memset(st, 0, sizeof *st);
  st->since = now;
}
