#!/usr/bin/env bash
# Measured comparison, fixed versus flexible, for real (docs/workload-comparison.md).
#
# The same 24 jobs of the example applications run twice on morphd with the
# same pool (6 oversubscribed slots on this machine) and policy (dmr+easy):
#   fixed    every job rigid at its request (paper 000 Table 6: "fixed")
#   flexible every job moldable (MIN-REQUEST) and malleable within
#            [min, max] around its preferred size (paper 000: "flexible")
# and the script ends with
#   RESULT flexible_vs_fixed_completion=<makespan fixed / flexible>
#          flexible_vs_fixed_wait=<average wait fixed / flexible> ...
# (ratios > 1: flexible is better). Options: --quick (12 jobs), --slots N,
# --out DIR (CSV, plots, workload files; default a temporary folder).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
bench_init bench/workload.sh
slots=6 quick=0 out=
bench_parse "quick,slots:,out:" "[--quick] [--slots N] [--out DIR]" "$@"
njobs=24
[ "$quick" = 1 ] && njobs=12
bench_build morph morph-daemon morph-workload morph-report morph-submit farm.ompi jacobi.ompi \
  heat.ompi cg.ompi nbody.ompi
out=${out:-$(mktemp -d /tmp/morph-bench.XXXXXX)}
mkdir -p "$out"

# app, rigid request, min, pref, max, arguments. Iterations emulate
# strong-scaling work: --work-ms W --serial-ms S sleep S + W/P ms per
# iteration (farm: per round) on P processes, so every job runs faster when
# it grows, as compute-bound codes would on cores of their own (the 2
# shared cores only hold the sleeping processes). At the rigid request each
# job lasts about as long as with the earlier fixed --delay-ms.
apps=(
  "farm|3|2|3|5|--size 150 --per-round 5 --work-ms 750 --serial-ms 5"
  "jacobi|2|1|2|4|--size 64 --iters 300 --work-ms 100 --serial-ms 5"
  "farm|2|2|2|4|--size 100 --per-round 5 --work-ms 1000 --serial-ms 5"
  "heat|2|1|2|3|--size 32 --iters 300 --work-ms 100 --serial-ms 5"
  "cg|2|1|2|3|--work-ms 300 --serial-ms 5"
  "nbody|2|1|2|3|--size 64 --iters 250 --work-ms 100 --serial-ms 5"
)

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

run() { # kind
  local kind=$1 dir=$out/$1
  rm -rf "$dir"; mkdir -p "$dir"; current=$dir
  bench_write_workload "$kind" "$out/$kind.json" "$njobs" 4 "${apps[@]}"
  "$bin/morph" daemon -d "$dir" --slots "$slots" --interval 2 -p dmr+easy > "$dir/morphd.log" 2>&1 &
  daemon_pid=$!
  for _ in $(seq 50); do [ -S "$dir/morphd.sock" ] && break; sleep 0.1; done
  echo "== $kind: $njobs jobs on $slots slots"
  "$bin/morph" workload run -d "$dir" --app-dir "$bin" --every 30 --timeout 1800 "$out/$kind.json"
  stop_daemon "$dir"
  "$bin/morph" report -d "$dir" -o "$out/report" --prefix "$kind" -q | sed 's/^/  /'
  grep -h "^CHECK" "$dir"/jobs/*.out | cut -d' ' -f1-2 | sort | uniq -c | sed 's/^/  /'
}

value() { # kind key: from <kind>-summary.csv
  awk -F, -v k="$2" '$1 == k { print $2 }' "$out/report/$1-summary.csv"
}

run fixed
run flexible
# Energy of the one node (idle 100 W, loaded 340 W, linear in loaded slots).
joules() { awk -v m="$(value "$1" makespan_s)" -v b="$(value "$1" busy_slots_s)" -v n="$slots" \
  'BEGIN { printf "%.0f", (100 * (n * m - b) + 340 * b) / n }'; }
completion=$(bench_ratio "$(value fixed makespan_s)" "$(value flexible makespan_s)")
wait_r=$(bench_ratio "$(value fixed avg_wait_s)" "$(value flexible avg_wait_s)")
alloc=$(bench_ratio "$(value flexible allocation_rate)" "$(value fixed allocation_rate)")
jobcomp=$(bench_ratio "$(value fixed avg_completion_s)" "$(value flexible avg_completion_s)")
energy=$(bench_ratio "$(joules flexible)" "$(joules fixed)")
echo
printf "%-22s %12s %12s\n" metric fixed flexible
for k in completed makespan_s avg_wait_s avg_exec_s avg_completion_s throughput_jobs_per_s \
         allocation_rate busy_slots_s resizes; do
  printf "%-22s %12s %12s\n" "$k" "$(value fixed "$k")" "$(value flexible "$k")"
done
printf "%-22s %12s %12s\n" energy_j "$(joules fixed)" "$(joules flexible)"
echo "files: $out"
result="RESULT flexible_vs_fixed_completion=$completion flexible_vs_fixed_wait=$wait_r flexible_vs_fixed_allocation=$alloc flexible_vs_fixed_job_completion=$jobcomp energy_flexible_over_fixed=$energy jobs=$njobs slots=$slots"
echo "$result"
bench_record workload "$result"
