#!/usr/bin/env bash
# The time a resize costs the application's loop, with the redistribution
# blocking (morph_point) and overlapped with computation
# (morph_begin_overlap): apps/jacobi, whose constant matrix A and vector b
# move in the background while the loop keeps iterating at the old size,
# live under Open MPI, one expansion 2 -> 3 and one shrink 3 -> 2 per run.
#
#   bench/overlap.sh [--runs R] [--size N] [--build DIR]
#
# R runs of each mode (default 5), alternating so that machine load hits
# both alike; N the order of the system (default 4000: A is 122 MiB). Each
# resize's loss is what jacobi prints (RESIZE ... lost_s=): the time from
# the start of the iteration that opened the window to the end of the
# commit, less the iterations computed meanwhile at their median time
# before the resize. MORPH_SPAWN_PAUSE=0: the pause is a guard, not a cost
# of the data path. A rolled-back resize (Open MPI spawn hang) is dropped
# and counted. Last line (median, [min,max] of the runs; ratio of medians,
# overlapped / blocking):
#   RESULT overlap_expand_blocking_s=M[a,b] overlap_expand_overlapped_s=...
#     overlap_expand_ratio=... overlap_shrink_blocking_s=...
#     overlap_shrink_overlapped_s=... overlap_shrink_ratio=... runs=R size=N
#     dropped=D
set -uo pipefail
. "$(dirname "$0")/lib.sh"
bench_init bench/overlap.sh
runs=5 size=4000
bench_parse "runs:,size:,build:" "[--runs R] [--size N] [--build DIR]" "$@"
for f in "$build/bin/morph-run" "$build/bin/jacobi.ompi"; do
  [ -x "$f" ] || { echo "overlap.sh: $f missing: build first (--build DIR)" >&2; exit 2; }
done
export MORPH_SPAWN_PAUSE=0
work=$(mktemp -d /tmp/bench-overlap-XXXXXX)
trap 'rm -rf "$work"' EXIT
raw=$work/raw # mode,resize,lost_s
dropped=0

# one_run MODE OVERLAP_LIMIT: appends this run's losses to $raw.
one_run() {
  local out=$work/out
  timeout 300 "$build/bin/morph-run" -n 2 --mechanism live --timeout 280 \
    --schedule "3@it20,2@it50" -- "$build/bin/jacobi.ompi" --size "$size" --iters 80 \
    --no-check --overlap "$2" >"$out" 2>&1
  local got
  got=$(sed -n 's/^RESIZE \([0-9]*\)->\([0-9]*\) lost_s=\([0-9.-]*\) .*/\1,\2,\3/p' "$out")
  for want in 2,3 3,2; do
    local row
    row=$(printf '%s\n' "$got" | grep "^$want," | head -1)
    if [ -z "$row" ]; then
      dropped=$((dropped + 1))
      continue
    fi
    local kind=expand
    [ "$want" = 3,2 ] && kind=shrink
    echo "$1,$kind,${row##*,}" >>"$raw"
  done
  grep '^RESIZE' "$out" | sed "s/^/  $1: /"
}

for i in $(seq 1 "$runs"); do
  echo "run $i/$runs"
  one_run blocking 0
  one_run overlapped 20
done

# stat MODE KIND: "median[min,max]" of that column (awk, sorted).
stat() {
  awk -F, -v m="$1" -v k="$2" '$1 == m && $2 == k { print $3 }' "$raw" | sort -g |
    awk '{ v[NR] = $1 } END {
      if (NR == 0) { print "nan[nan,nan]"; exit }
      med = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
      printf "%.3f[%.3f,%.3f]\n", med, v[1], v[NR] }'
}
ratio() { awk -v a="${1%%[*}" -v b="${2%%[*}" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }
line="RESULT"
for kind in expand shrink; do
  b=$(stat blocking $kind) o=$(stat overlapped $kind)
  line="$line overlap_${kind}_blocking_s=$b overlap_${kind}_overlapped_s=$o"
  line="$line overlap_${kind}_ratio=$(ratio "$o" "$b")"
done
echo "$line runs=$runs size=$size dropped=$dropped"
bench_record overlap "$line runs=$runs size=$size dropped=$dropped"
