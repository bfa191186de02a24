#!/usr/bin/env bash
# Simulation versus reality on one small workload (docs/sim-vs-real.md).
#
# Ten jobs of the example applications, each emulating strong-scaling work
# (--work-ms W --serial-ms S: an iteration sleeps S + W/P ms on P
# processes), submitted 3 s apart to 6 oversubscribed slots, in a fixed and
# a flexible variant:
#   1. calibrate: each application once under `morph run` at its request,
#      grown and shrunk once (--report CSV): its overhead beyond the
#      emulated work (start-up, MPI, check, teardown) and the cost of an
#      expansion and a shrink on this machine;
#   2. write the workload files with Amdahl models from that calibration
#      (t(n) = overhead + iterations x (S + W/n));
#   3. run both variants for real on morphd (like bench/workload.sh) and in
#      `morph sim` with the same policy, interval and slots;
# and ends with
#   RESULT sim_vs_real_completion_fixed=<sim/real makespan>
#          sim_vs_real_completion_flexible=<sim/real makespan>
# Options: --slots N (6), --out DIR (default a temporary folder),
# --sim-only (reuse DIR's calibration and real runs; only simulate again).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/bench/lib.sh" # bench_record
build=${MORPH_BUILD:-$root/build}
slots=6 out= sim_only=0 gap=3 njobs=10
while [ $# -gt 0 ]; do
  case $1 in
    --slots) slots=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --sim-only) sim_only=1; shift ;;
    -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
    *) echo "sim-vs-real.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
cmake -S "$root" -B "$build" > /dev/null
cmake --build "$build" -j "$(nproc)" > /dev/null
bin=$build/bin
[ "$(id -u)" = 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
out=${out:-$(mktemp -d /tmp/morph-simreal.XXXXXX)}
mkdir -p "$out/cal"

# app, rigid request, min, pref, max, reconfiguration points (iterations;
# farm: rounds; cg: iterations to convergence), W, S (ms), other arguments.
# Problems are small so that the emulated work, not the 2 shared cores,
# sets the pace.
apps=(
  "jacobi|2|1|2|4|240|100|5|--size 64 --iters 240"
  "heat|2|1|2|3|240|100|5|--size 32 --iters 240"
  "cg|2|1|2|3|109|300|5|--size 48"
  "farm|3|2|3|5|30|750|5|--size 150 --per-round 5"
  "nbody|2|1|2|3|200|100|5|--size 64 --iters 200"
)
napps=${#apps[@]}
row() { IFS='|' read -r app req min pref max pts work serial args <<< "${apps[$1]}"; }

now() { date +%s.%N; }

# One calibration run of row i: request size, grown at a quarter of its
# points to min(2 x request, max), back at half. Writes cal/<i>.wall and
# cal/<i>.csv (morph run's reconfiguration report).
calibrate_one() { # i
  local i=$1; row "$i"
  local big=$((2 * req > max ? max : 2 * req)) t0 t1
  t0=$(now)
  timeout 200 "$bin/morph-run" -n "$req" --timeout 180 --report "$out/cal/$i.csv" \
    --schedule "$big@it$((pts / 4)),$req@it$((pts / 2))" -- \
    "$bin/$app.ompi" $args --work-ms "$work" --serial-ms "$serial" > "$out/cal/$i.out" 2>&1
  t1=$(now)
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", b - a }' > "$out/cal/$i.wall"
}

# Overhead of row i in seconds: wall time minus the emulated work of each
# segment between resizes and minus the resizes themselves.
overhead() { # i
  row "$1"
  awk -F, -v wall="$(cat "$out/cal/$1.wall")" -v pts="$pts" -v w="$work" -v s="$serial" \
      -v n0="$req" 'NR > 1 { it[++k] = $3; to[k] = $6; c += $11 + $12 + $13 + $14 }
    END { t = 0; from = 0; n = n0
          for (j = 1; j <= k; j++) { t += (it[j] - from) * (s + w / n); from = it[j]; n = to[j] }
          t += (pts - from) * (s + w / n)
          printf "%.3f\n", wall - t / 1000 - c }' "$out/cal/$1.csv"
}

# Average cost (spawn + redistribution + commit + settle, s) of the
# calibration runs' expansions (dir > 0) or shrinks (dir < 0).
resize_cost() { # dir
  cat "$out"/cal/*.csv | awk -F, -v d="$1" '$1 != "seq" && $8 == 0 && ($6 - $5) * d > 0 {
    c += $11 + $12 + $13 + $14; n++ } END { printf "%.3f\n", n ? c / n : 0 }'
}

calibrate() {
  echo "== calibration: each application at its request, grown and shrunk once"
  local pids=()
  for i in $(seq 0 $((napps - 1))); do
    calibrate_one "$i" & pids+=($!)
    # Three jobs at a time: about as many processes as the workload's 6 slots.
    if [ ${#pids[@]} -eq 3 ]; then wait "${pids[@]}"; pids=(); fi
  done
  [ ${#pids[@]} -eq 0 ] || wait "${pids[@]}"
  for i in $(seq 0 $((napps - 1))); do
    row "$i"; grep -q "^CHECK PASSED" "$out/cal/$i.out" || echo "  $app: no CHECK PASSED"
    echo "$(overhead "$i")" > "$out/cal/$i.overhead"
    printf "  %-7s wall %7s s  overhead %6s s  resizes %s\n" "$app" "$(cat "$out/cal/$i.wall")" \
      "$(cat "$out/cal/$i.overhead")" "$(($(wc -l < "$out/cal/$i.csv") - 1))"
  done
  resize_cost 1 > "$out/cal/expand"
  resize_cost -1 > "$out/cal/shrink"
  echo "  expansion $(cat "$out/cal/expand") s, shrink $(cat "$out/cal/shrink") s"
}

# Amdahl model of row i: t(n) = t1 (f + (1 - f)/n) with t1 = overhead +
# points x (S + W) and f = (overhead + points x S) / t1.
model() { # i
  row "$1"
  awk -v o="$(cat "$out/cal/$1.overhead")" -v p="$pts" -v w="$work" -v s="$serial" 'BEGIN {
    if (o < 0) o = 0; ser = o + p * s / 1000; t1 = ser + p * w / 1000
    printf "{\"type\": \"amdahl\", \"t1\": %.3f, \"serial\": %.5f, \"scale\": 1, \"data_bytes\": 0, \"inhibit\": 0, \"iterations\": %d}", t1, ser / t1, p }'
}

write_workload() { # kind file
  local kind=$1 file=$2 sep=
  { echo "{\"name\": \"simreal-$kind\", \"nodes\": $slots, \"jobs\": ["
    for i in $(seq 0 $((njobs - 1))); do
      row $((i % napps))
      local request=$req a
      [ "$kind" = flexible ] && request="\"$min-$req\""
      a=\"$(echo "$args --work-ms $work --serial-ms $serial" | sed 's/ /", "/g')\"
      echo "$sep {\"name\": \"$app-$i\", \"submit\": $((i * gap)), \"kind\": \"$kind\", \"app\": \"$app\","
      echo "   \"request\": $request, \"min\": $min, \"pref\": $pref, \"max\": $max, \"args\": [$a],"
      echo "   \"model\": $(model $((i % napps)))}"
      sep=,
    done
    echo "]}"; } > "$file"
}

daemon_pid=
stop_daemon() {
  [ -n "$daemon_pid" ] || return 0
  timeout 40 "$bin/morph" daemon -d "$1" --stop --kill-jobs > /dev/null 2>&1 || kill "$daemon_pid" 2>/dev/null || true
  wait "$daemon_pid" 2>/dev/null || true
  daemon_pid=
}
current=
trap 'stop_daemon "$current"' EXIT
trap 'exit 130' INT TERM

real() { # kind
  local kind=$1 dir=$out/real-$1
  rm -rf "$dir"; mkdir -p "$dir"; current=$dir
  "$bin/morph" daemon -d "$dir" --slots "$slots" --interval 2 -p dmr+easy > "$dir/morphd.log" 2>&1 &
  daemon_pid=$!
  for _ in $(seq 50); do [ -S "$dir/morphd.sock" ] && break; sleep 0.1; done
  echo "== real $kind: $njobs jobs on $slots slots"
  "$bin/morph" workload run -d "$dir" --app-dir "$bin" --every 30 --timeout 900 "$out/$kind.json"
  stop_daemon "$dir"
  "$bin/morph" report -d "$dir" -o "$out/report" --prefix "real-$kind" -q > /dev/null
  grep -h "^CHECK" "$dir"/jobs/*.out | cut -d' ' -f1-2 | sort | uniq -c | sed 's/^/  /'
}

# Same slots, policy and decision interval as morphd; morphd resizes to any
# size and has no inhibitor (the models say inhibit 0).
simulate() { # kind
  rm -f "$out/report/sim-$1-summary.csv"
  "$bin/morph-sim" -n "$slots" -p dmr+easy -P sizes=any -i 2 -q \
    --expand-cost "$(cat "$out/cal/expand")" --shrink-cost "$(cat "$out/cal/shrink")" \
    -o "$out/report" --name "sim-$1" "$out/$1.json" ||
    [ -f "$out/report/sim-$1-summary.csv" ] # a missing gnuplot only costs the plots
}

# Mean |sim - real| over the jobs of one variant: end time and execution
# time (morph report names jobs "<id>:<name>", the simulator "<name>").
per_job() { # kind
  awk -F, 'FNR == 1 { next } NR == FNR { sub(/^[0-9]+:/, "", $1); end[$1] = $7; ex[$1] = $9; next }
    ($1 in end) { de += ($7 > end[$1] ? $7 - end[$1] : end[$1] - $7)
                  dx += ($9 > ex[$1] ? $9 - ex[$1] : ex[$1] - $9); n++ }
    END { printf "%.2f s (end), %.2f s (execution) over %d jobs", de / n, dx / n, n }' \
    "$out/report/real-$1-jobs.csv" "$out/report/sim-$1-jobs.csv"
}

value() { awk -F, -v k="$2" '$1 == k { print $2 }' "$out/report/$1-summary.csv"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }'; }

if [ "$sim_only" = 0 ]; then
  calibrate
  for kind in fixed flexible; do write_workload "$kind" "$out/$kind.json"; done
  real fixed
  real flexible
else
  for kind in fixed flexible; do write_workload "$kind" "$out/$kind.json"; done
fi
simulate fixed
simulate flexible
echo
printf "%-18s %10s %10s %10s %10s\n" metric real-fixed sim-fixed real-flex sim-flex
for k in completed makespan_s avg_wait_s avg_exec_s avg_completion_s allocation_rate resizes; do
  printf "%-18s %10s %10s %10s %10s\n" "$k" "$(value real-fixed "$k")" "$(value sim-fixed "$k")" \
    "$(value real-flexible "$k")" "$(value sim-flexible "$k")"
done
for kind in fixed flexible; do echo "per job, $kind: mean |sim - real| $(per_job "$kind")"; done
echo "calibration: expansion $(cat "$out/cal/expand") s, shrink $(cat "$out/cal/shrink") s; files: $out"
fixed=$(ratio "$(value sim-fixed makespan_s)" "$(value real-fixed makespan_s)")
flex=$(ratio "$(value sim-flexible makespan_s)" "$(value real-flexible makespan_s)")
result="RESULT sim_vs_real_completion_fixed=$fixed sim_vs_real_completion_flexible=$flex jobs=$njobs slots=$slots"
echo "$result"
bench_record sim-vs-real "$result"
