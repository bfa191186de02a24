#!/usr/bin/env bash
# Reproduces the Elastic MPI thesis's comparison (paper 002, Tables 5.2 and
# 5.4) on this machine with apps/adapt-solver, the Elastic MPI front-end's
# port of the thesis's solver structure (docs/reproduction-elastic.md):
#   calls     the time of each Elastic MPI call, one job under a random
#             schedule (Table 5.2; morph run, no morphd);
#   single    one job against morphd: static at the full size (fcfs),
#             elastic with the thesis's stepping scheduler (stepping) and
#             with its MPI-to-compute-time rule (mtct) (Table 5.4);
#   workload  the same JOBS jobs, submitted STAGGER s apart, against
#             morphd: static rigid at 4 and at 8 slots (fcfs) against
#             elastic (mtct, 1..8): makespan and CPU-hours of the whole set.
# Every campaign runs its own morphd with SLOTS slots; morph report gives
# the makespan and the allocated slot-seconds (the CPU time: one process
# per slot). The workload grows 6x over a run as the tsunami's does
# (Fig. 5.6a), with emulated strong-scaling work and an emulated
# communication cost that grows with the process count.
#
#   bench/reproduce-elastic.sh [--quick] [--out DIR]
#
# MORPH_BUILD: a built tree (default build-bench, built when missing). DIR
# (default $MORPH_BUILD/bench-out/elastic) gets results.csv (one line per
# campaign), table.md, every campaign's morph report (CSV, Gantt chart) and
# log/. Prints RESULT lines. --quick: shorter jobs, 3 of them.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
bench_init reproduce-elastic build-bench
quick=0 out=
bench_parse "quick,out:" "[--quick] [--out DIR]" "$@"
bench_build adapt-solver.ompi morph-run morph-daemon morph-submit morph-status morph-report
out=${out:-$build/bench-out/elastic}
rm -rf "$out"
mkdir -p "$out/log"
# Two shared cores: spawned processes must yield when idle as the
# oversubscribed initial ones do, or their busy polling slows every run.
export OMPI_MCA_mpi_yield_when_idle=1
# One host: MPI traffic stays on the loopback. Emulated clusters of other
# users of the machine add and remove 198.18.0.0/24 bridges; a process that
# picked one up at start-up later fails to bind to it ("Cannot assign
# requested address") and its collectives hang.
export OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo
unset MORPH_SPAWN_PAUSE MORPH_MECHANISM MORPH_PERIOD MORPH_ITERATIONS

SLOTS=8
JOBS=4 STAGGER=6 ITERS=200
[ $quick = 1 ] && JOBS=3 STAGGER=4 ITERS=100
app="$bin/adapt-solver.ompi --size 4000 --iters $ITERS --work-ms 80 --serial-ms 2 --grow 6 \
--comm-ms 4 --timing 1"
# mtct reads a job's MPI time only after a resize has settled: a job is
# left alone for 3 s after each change (the inhibitor, paper 000's
# scheduling period).
MTCT="-p mtct --param sched_period=3"
STEPPING="-p stepping --param step_period=3 --param step_units=2"
FCFS="-p fcfs"
ELASTIC=(--min 1 --max "$SLOTS" --pref 1)

daemon_dir=""
stop_daemon() {
  if [ -n "$daemon_dir" ] && [ -S "$daemon_dir/morphd.sock" ]; then
    "$bin/morph-daemon" -d "$daemon_dir" --stop --kill-jobs >/dev/null 2>&1 || true
  fi
  daemon_dir=""
}
trap stop_daemon EXIT

# campaign LABEL NJOBS "POLICY OPTIONS" SUBMIT-OPTIONS...: a morphd of its
# own, NJOBS jobs submitted STAGGER s apart, waits for all, morph report.
# Appends label,jobs,makespan_s,cpu_s,cpu_hours,resizes,avg_wait_s to
# results.csv.
campaign() {
  local label=$1 njobs=$2 policy=$3
  shift 3
  daemon_dir=$out/$label
  mkdir -p "$daemon_dir"
  # shellcheck disable=SC2086
  "$bin/morph-daemon" -d "$daemon_dir" -n $SLOTS $policy -i 1 >"$out/log/$label-morphd.log" 2>&1 &
  for _ in $(seq 100); do [ -S "$daemon_dir/morphd.sock" ] && break; sleep 0.1; done
  for j in $(seq "$njobs"); do
    [ "$j" -gt 1 ] && sleep "$STAGGER"
    # shellcheck disable=SC2086
    "$bin/morph-submit" -d "$daemon_dir" -q "$@" -J "$label-$j" -o "$out/log/$label-$j.out" \
      -- $app >/dev/null
  done
  local done_re="$njobs completed"
  for _ in $(seq 1200); do
    "$bin/morph-status" -d "$daemon_dir" 2>/dev/null | grep -q "$done_re" && break
    if "$bin/morph-status" -d "$daemon_dir" 2>/dev/null | grep -q " [1-9][0-9]* failed"; then
      echo "reproduce-elastic: $label: a job failed" >&2
      break
    fi
    sleep 0.5
  done
  "$bin/morph-status" -d "$daemon_dir" -a >"$out/log/$label-status.txt" 2>&1 || true
  "$bin/morph-report" -d "$daemon_dir" -q -o "$out/$label" >"$out/log/$label-report.txt" 2>&1
  stop_daemon
  for j in $(seq "$njobs"); do
    grep -q "^CHECK PASSED" "$out/log/$label-$j.out" || {
      echo "reproduce-elastic: $label-$j: no CHECK PASSED" >&2
      tail -20 "$out/log/$label-$j.out" >&2
      exit 1
    }
  done
  awk -F, -v l="$label" '{v[$1] = $2}
    END {printf "%s,%d,%.1f,%.1f,%.5f,%d,%.1f\n", l, v["completed"], v["makespan_s"],
         v["busy_slots_s"], v["busy_slots_s"] / 3600, v["resizes"], v["avg_wait_s"]}' \
    "$out/$label/morphd-summary.csv" >>"$out/results.csv"
  tail -1 "$out/results.csv" | awk -F, '{printf "RESULT campaign=%s jobs=%s makespan_s=%s cpu_s=%s cpu_hours=%s resizes=%s avg_wait_s=%s\n", $1, $2, $3, $4, $5, $6, $7}'
}

# calls: the solver's own timing line of each call (Table 5.2), under the
# thesis's random scheduler (a fixed random schedule here).
calls() {
  local log=$out/log/calls.out
  # shellcheck disable=SC2086
  "$bin/morph-run" -n 2 --schedule "6@it20,3@it60,8@it100,4@it150,1@it200,5@it250" -- $app \
    >"$log" 2>&1 || { tail -20 "$log" >&2; exit 1; }
  grep -q "^CHECK PASSED" "$log" || { cat "$log" >&2; exit 1; }
  awk '/^timing:/ {printf "RESULT calls init_s=%s probe_s=%s probes=%s begin_s=%s commit_s=%s adapts=%s\n",
                   $3, $6, $10, $12, $15, $19}' "$log" | tr -d '),('
}

echo "label,jobs,makespan_s,cpu_s,cpu_hours,resizes,avg_wait_s" >"$out/results.csv"
calls
campaign single-static-8 1 "$FCFS" -n $SLOTS
campaign single-stepping 1 "$STEPPING" "${ELASTIC[@]}"
campaign single-mtct 1 "$MTCT" "${ELASTIC[@]}"
campaign workload-static-4 "$JOBS" "$FCFS" -n 4
campaign workload-static-8 "$JOBS" "$FCFS" -n $SLOTS
campaign workload-mtct "$JOBS" "$MTCT" "${ELASTIC[@]}"

# table.md: each run beside its static reference.
awk -F, 'NR > 1 {
    m[$1] = $3; c[$1] = $4; row[++n] = $0
  }
  END {
    print "| campaign | jobs | makespan (s) | CPU (slot-s) | CPU-hours | resizes | makespan / static-8 | CPU / static-8 |"
    print "|---|---:|---:|---:|---:|---:|---:|---:|"
    for (i = 1; i <= n; i++) {
      split(row[i], f, ",")
      ref = (f[1] ~ /^single/) ? "single-static-8" : "workload-static-8"
      printf "| %s | %s | %s | %s | %s | %s | %.2f | %.2f |\n", f[1], f[2], f[3], f[4], f[5], f[6],
             f[3] / m[ref], f[4] / c[ref]
    }
  }' "$out/results.csv" >"$out/table.md"
cat "$out/table.md" >&2
result=$(awk -F, 'NR > 1 {m[$1] = $3; c[$1] = $4}
  END {printf "RESULT elastic_single_cpu_vs_static=%.2f elastic_single_time_vs_static=%.2f stepping_cpu_vs_static=%.2f workload_cpu_vs_static8=%.2f workload_makespan_vs_static8=%.2f workload_cpu_vs_static4=%.2f workload_makespan_vs_static4=%.2f\n",
       c["single-mtct"] / c["single-static-8"], m["single-mtct"] / m["single-static-8"],
       c["single-stepping"] / c["single-static-8"],
       c["workload-mtct"] / c["workload-static-8"], m["workload-mtct"] / m["workload-static-8"],
       c["workload-mtct"] / c["workload-static-4"], m["workload-mtct"] / m["workload-static-4"]}' \
  "$out/results.csv")
echo "$result"
bench_record reproduce-elastic "$result" "$out/results.csv"

# elastic.png: slots held over time, as the thesis's Fig. 5.6b: the single
# job's three runs on the left, the workload's on the right (the area
# under a curve is the CPU time).
plot_line() { # CAMPAIGN TITLE: one gnuplot plot element of its timeline
  printf "'%s/%s/morphd-timeline.csv' every ::1 using 1:2 with steps lw 2 title '%s'" "$out" "$1" "$2"
}
if command -v gnuplot >/dev/null; then
  gnuplot <<GP || echo "reproduce-elastic: gnuplot failed, no plot" >&2
set terminal pngcairo size 1200,450 font ',10'
set output '$out/elastic.png'
set datafile separator ','
set key top left
set xlabel 'time (s)'
set ylabel 'slots held (processes)'
set yrange [0:$((SLOTS + 1))]
set multiplot layout 1,2
set title 'one job (Table 5.4)'
plot $(plot_line single-static-8 'static, 8'), $(plot_line single-stepping 'elastic, stepping'), \
     $(plot_line single-mtct 'elastic, mtct')
set title '$JOBS jobs, submitted ${STAGGER} s apart'
plot $(plot_line workload-static-8 'static, 8 each'), $(plot_line workload-static-4 'static, 4 each'), \
     $(plot_line workload-mtct 'elastic, mtct')
unset multiplot
GP
fi
