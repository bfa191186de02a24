#!/usr/bin/env bash
# The application's visible pause at a live resize (issue 28): bench-pause
# computes for a fixed time per iteration (busy, 20 ms) and reduces one
# number per iteration; rank 0 adds up, from the iteration whose point sees
# the decision to the end of the first iteration at the new size, the time
# its iterations took beyond the median iteration before. One host, Open
# MPI, live, a 2 -> 4 then a 4 -> 2 per run, side by side:
#   background  the joiners are spawned while the loop goes on (default)
#   blocking    MORPH_SPAWN_BACKGROUND=0: the point waits for the spawn
# MORPH_SPAWN_PAUSE=0 in both: the pause is a guard, not a cost of either.
#
#   bench/runtime/pause.sh [--runs R] [--mib "64 1024"] [--build DIR] [--idle]
#
# --idle: the iterations sleep instead of computing (bench-pause --idle),
# leaving the cores free for the spawn; keys then end in _idle.
#
# Last line (median[min,max] over the runs; the ratio is of medians):
#   RESULT pause_expand_1g_s=.. pause_expand_vs_blocking=.. and per size
#     pause_{expand,shrink}_{bg,blocking}_<M>mib_s=M[a,b] and in_point_... (the
#     part spent inside morph_point) runs=R dropped=D
# pause_expand_1g_s and pause_expand_vs_blocking come from 1024 MiB (else
# from the largest size run). A rolled-back or missing resize is dropped
# and counted.
set -uo pipefail
. "$(dirname "$0")/../lib.sh"
bench_init bench/runtime/pause.sh
runs=5 mib="64 1024" idle=0
bench_parse "runs:,mib:,build:,idle" "[--runs R] [--mib \"64 1024\"] [--build DIR] [--idle]" "$@"
extra=() sfx=""
[ "$idle" = 1 ] && extra=(--idle) sfx=_idle
for f in "$build/bin/morph-run" "$build/bin/bench-pause.ompi"; do
  [ -x "$f" ] || { echo "pause.sh: $f missing: build first (--build DIR)" >&2; exit 2; }
done
export MORPH_SPAWN_PAUSE=0 OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo
work=$(mktemp -d /tmp/bench-pause-XXXXXX)
trap 'rm -rf "$work"' EXIT
raw=$work/raw # mode,mib,kind,pause_s,in_point_s
dropped=0

# one_run MODE MIB: appends this run's pauses to $raw.
one_run() {
  local bg=1 out=$work/out
  [ "$1" = blocking ] && bg=0
  MORPH_SPAWN_BACKGROUND=$bg timeout 300 "$build/bin/morph-run" -n 2 --mechanism live \
    --timeout 280 --schedule "4@it10,2@it60" -- "$build/bin/bench-pause.ompi" \
    --bytes $(($2 << 20)) --at 10,60 --iters 90 --compute-ms 20 "${extra[@]}" >"$out" 2>&1
  grep -q "CHECK PASSED" "$out" || { echo "pause.sh: $1 $2 MiB: data check failed" >&2;
    tail -5 "$out" >&2; }
  local want kind row
  for want in 2,4 4,2; do
    kind="expand"
    [ $want = 4,2 ] && kind=shrink
    row=$(sed -n "s/^PAUSE old=${want%,*} new=${want#*,} pause_s=\([0-9.-]*\) in_point_s=\([0-9.-]*\) .*outcome=0$/\1,\2/p" \
      "$out" | head -1)
    if [ -z "$row" ]; then
      dropped=$((dropped + 1))
      continue
    fi
    echo "$1,$2,$kind,$row" >>"$raw"
  done
  grep '^PAUSE' "$out" | sed "s/^/  $1 $2 MiB: /" >&2
}

for m in $mib; do
  for i in $(seq 1 "$runs"); do
    echo "pause.sh: $m MiB, run $i/$runs" >&2
    one_run background "$m"
    one_run blocking "$m"
  done
done

stat() { # MODE MIB KIND [COLUMN] -> median[min,max]
  awk -F, -v m="$1" -v s="$2" -v k="$3" -v c="${4:-4}" '$1 == m && $2 == s && $3 == k { print $c }' "$raw" |
    bench_stats | awk '$1 == "-" { print "nan[nan,nan]"; next } { printf "%s[%s,%s]\n", $1, $2, $3 }'
}
line="RESULT"
largest=${mib##* }
for m in $mib; do
  for kind in expand shrink; do
    line="$line pause_${kind}_bg_${m}mib_s=$(stat background "$m" $kind)"
    line="$line pause_${kind}_blocking_${m}mib_s=$(stat blocking "$m" $kind)"
    line="$line in_point_${kind}_bg_${m}mib_s=$(stat background "$m" $kind 5)"
    line="$line in_point_${kind}_blocking_${m}mib_s=$(stat blocking "$m" $kind 5)"
  done
done
bg=$(stat background "$largest" expand) blk=$(stat blocking "$largest" expand)
ratio=$(awk -v a="${bg%%[*}" -v b="${blk%%[*}" 'BEGIN { if (a == "nan" || b == "nan" || b <= 0)
  print "nan"; else printf "%.3f", a / b }')
key=pause_expand_1g_s
[ "$largest" = 1024 ] || key=pause_expand_${largest}mib_s
line="RESULT $key=$bg pause_expand_vs_blocking=$ratio ${line#RESULT } runs=$runs dropped=$dropped"
[ -n "$sfx" ] && line=$(echo "$line" | sed -E "s/ ([a-z_0-9]+)=/ \1$sfx=/g")
echo "$line"
