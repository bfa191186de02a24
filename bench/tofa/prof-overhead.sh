#!/usr/bin/env bash
# The profiler's overhead on Jacobi (issue 10's prof_overhead): run time
# with libmorph-prof counting over without.
#
#   bench/tofa/prof-overhead.sh [--pairs N] [--iters N] [--size N] [--dir DIR]
#
# Each pair runs the two configurations AT THE SAME TIME (2 processes
# each), so that both see the same load from the machine's other users;
# which one starts first alternates. Sequential runs on a shared machine
# measured the neighbours (one configuration ranged 1.03-2.92 s in one
# run; one round of four sequential runs gave 10.4 s plain and 33.9 s
# with the library preloaded but not counting). Prints one line per pair
# and ends with
#   RESULT prof_overhead=MEDIAN prof_overhead_min=MIN prof_overhead_max=MAX
#          prof_pairs=N load_start=L load_end=L
# the ratio (with / without, wall) of each pair, its median, min and max.
# MORPH_BUILD: build folder (default build). Open MPI, one host.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/bench/lib.sh" # bench_record
build=${MORPH_BUILD:-$root/build}
pairs=7 iters=1500 size=1000 dir=""
while [ $# -gt 0 ]; do
  case $1 in
    --pairs) pairs=$2; shift 2 ;;
    --iters) iters=$2; shift 2 ;;
    --size) size=$2; shift 2 ;;
    --dir) dir=$2; shift 2 ;;
    *) echo "usage: $0 [--pairs N] [--iters N] [--size N] [--dir DIR]" >&2; exit 2 ;;
  esac
done
jac=("$build/bin/jacobi.ompi" --size "$size" --iters "$iters" --no-check)
lib=$build/lib/libmorph-prof-ompi.so
[ -x "${jac[0]}" ] && [ -f "$lib" ] || { echo "$0: build jacobi.ompi and morph_prof_preload_ompi in $build first" >&2; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# One host: Open MPI's TCP on loopback only (emulated clusters' bridges
# come and go on this machine).
export OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ranks=${dir:-$tmp/ranks}
mkdir -p "$ranks"

# timed FILE CMD...: the wall seconds of CMD into FILE.
timed() {
  local f=$1 t0 t1
  shift
  t0=$(date +%s.%N)
  "$@" >/dev/null 2>"$f.err" || { echo "$0: failed: $* ($(tail -2 "$f.err"))" >&2; echo fail >"$f"; return; }
  t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f\n", b - a}' >"$f"
}
plain() { timed "$tmp/a" mpirun --oversubscribe -n 2 "${jac[@]}"; }
profiled() { timed "$tmp/b" mpirun --oversubscribe -n 2 -x LD_PRELOAD="$lib" -x MORPH_PROF_DIR="$ranks" "${jac[@]}"; }

load_start=$(cut -d' ' -f1 /proc/loadavg)
: >"$tmp/ratios"
for i in $(seq 1 "$pairs"); do
  if [ $((i % 2)) = 1 ]; then plain & sleep 0.05; profiled & else profiled & sleep 0.05; plain & fi
  wait
  a=$(cat "$tmp/a") b=$(cat "$tmp/b")
  [ "$a" != fail ] && [ "$b" != fail ] || exit 1
  r=$(awk -v a="$a" -v b="$b" 'BEGIN {printf "%.3f", b / a}')
  echo "$r" >>"$tmp/ratios"
  echo "pair $i: without ${a} s, with ${b} s, ratio $r (load $(cut -d' ' -f1 /proc/loadavg))"
done
load_end=$(cut -d' ' -f1 /proc/loadavg)
result=$(sort -g "$tmp/ratios" | awk -v n="$pairs" -v ls="$load_start" -v le="$load_end" '{a[NR] = $1}
  END {m = (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2
       printf "RESULT prof_overhead=%.3f prof_overhead_min=%.3f prof_overhead_max=%.3f prof_pairs=%d load_start=%s load_end=%s\n",
              m, a[1], a[NR], n, ls, le}')
echo "$result"
bench_record prof-overhead "$result"
