#!/usr/bin/env bash
# Efficiency from measurement, end to end, for real (docs/workload-comparison.md,
# section "Efficiency-driven policies on live measurements").
#
# Two malleable jobs of the example applications on morphd's embedded
# backend (6 oversubscribed slots on this machine), once per policy:
#   A  jacobi, asks for 4 slots (min 1, pref 2, max 6), with a large serial
#      part (--work-ms 240 --serial-ms 80): the other ranks wait for it in
#      MPI, so its MPI-to-loop ratio (MTCT) rises as it grows, 0.4 on 2
#      slots, 0.57 on 4, 0.67 on 6: its efficiency falls with its size;
#   B  heat, submitted at 20 s, asks for 2 slots (min 1, pref 2, max 4),
#      all parallel work (--work-ms 400): MTCT near 0 at any size.
# libmorph measures MPI time (libmorph-prof) and iteration time and reports
# them in PROGRESS; morphd hands them to the policy (src/rms/sched.c). The
# script polls `morph status --json` every 0.5 s for sizes and measurements,
# and ends with one line per policy
#   RESULT efficiency policy=... a_sizes=4>2 b_sizes=2>4 a_mtct_before_shrink=...
#          a_shrunk_while_b_ran=0|1 b_grew_after=0|1 makespan_s=... slot_s=...
#          a_completion_s=... b_completion_s=...
# The plots go to docs/img/efficiency-<policy>.png.
# Options: --out DIR (raw data; default a temporary folder),
# --policies "P1 P2 ..." (default: dmr+easy mtct+easy edmr+easy).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${MORPH_BUILD:-$root/build}
slots=6 out= policies="dmr+easy mtct+easy edmr+easy"
while [ $# -gt 0 ]; do
  case $1 in
    --out) out=$2; shift 2 ;;
    --policies) policies=$2; shift 2 ;;
    *) echo "efficiency.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
cmake -S "$root" -B "$build" > /dev/null
cmake --build "$build" -j2 --target morph morph-daemon morph-run morph-workload morph-status \
  morph-report jacobi.ompi heat.ompi > /dev/null
bin=$build/bin
[ "$(id -u)" = 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
out=${out:-$(mktemp -d /tmp/morph-eff.XXXXXX)}
mkdir -p "$out"

cat > "$out/workload.json" <<'JSON'
{"name": "efficiency", "jobs": [
 {"name": "A", "submit": 0, "kind": "malleable", "app": "jacobi", "request": 4,
  "min": 1, "pref": 2, "max": 6,
  "args": ["--size", "64", "--iters", "500", "--work-ms", "240", "--serial-ms", "80"]},
 {"name": "B", "submit": 20, "kind": "malleable", "app": "heat", "request": 2,
  "min": 1, "pref": 2, "max": 4,
  "args": ["--size", "32", "--iters", "500", "--work-ms", "400", "--serial-ms", "0"]}]}
JSON

daemon_pid= poll_pid=
stop_all() {
  [ -n "$poll_pid" ] && kill "$poll_pid" 2>/dev/null || true
  poll_pid=
  [ -n "$daemon_pid" ] || return 0
  timeout 40 "$bin/morph" daemon -d "$1" --stop --kill-jobs > /dev/null 2>&1 || kill "$daemon_pid" 2>/dev/null || true
  wait "$daemon_pid" 2>/dev/null || true
  daemon_pid=
}
current=
trap 'stop_all "$current"' EXIT
trap 'exit 130' INT TERM

# Every 0.5 s: t,job,state,size,iter_time,mpi_time of each job (one
# Python process for the whole run: starting one per poll takes seconds on
# the loaded machine).
poll() { # dir csv
  python3 - "$bin/morph" "$1" "$2" <<'PY'
import json, subprocess, sys, time
morph, folder, csv = sys.argv[1:4]
t0 = time.time()
with open(csv, "w") as out:
    out.write("t,job,state,size,iter_time,mpi_time\n")
    while True:
        r = subprocess.run([morph, "status", "-d", folder, "--json"], capture_output=True, text=True)
        t = time.time() - t0
        try:
            jobs = json.loads(r.stdout).get("jobs", [])
        except ValueError:
            jobs = []
        for j in jobs:
            out.write("%.2f,%s,%s,%d,%.4f,%.4f\n" % (t, j.get("name"), j.get("state"),
                      j.get("size", 0), j.get("iter_time", 0), j.get("mpi_time", -1)))
        out.flush()
        time.sleep(0.5)
PY
}

run() { # policy
  local pol=$1 tag=${1//+/-} dir=$out/${1//+/-}
  rm -rf "$dir"; mkdir -p "$dir"; current=$dir
  "$bin/morph" daemon -d "$dir" --slots $slots --interval 2 -p "$pol" --param sched_period=4 \
    > "$dir/morphd.log" 2>&1 &
  daemon_pid=$!
  for _ in $(seq 50); do [ -S "$dir/morphd.sock" ] && break; sleep 0.1; done
  poll "$dir" "$out/$tag-poll.csv" &
  poll_pid=$!
  echo "== $pol" >&2
  "$bin/morph" workload run -d "$dir" --app-dir "$bin" --every 30 --timeout 600 \
    "$out/workload.json" >&2
  stop_all "$dir"
  "$bin/morph" report -d "$dir" -o "$out/report" --prefix "$tag" -q > /dev/null 2>&1 || true
  grep -h "^CHECK" "$dir"/jobs/*.out | cut -d' ' -f1-2 | sort | uniq -c | sed 's/^/  /' >&2
}

# What the run shows, from the polled sizes: the sizes each job went
# through, whether A shrank while B ran and B grew after it (the freed slots
# went to the better job), A's MTCT just before its last shrink; makespan,
# completion times and slot-seconds (energy follows them) from the report.
verdict() { # policy
  local tag=${1//+/-}
  awk -F, -v pol="$1" '
    NR == 1 || $3 != "running" || $4 <= 0 { next }
    $2 == "A" { if ($4 != lastA) { seqA = seqA (seqA ? ">" : "") $4
                  if (lastA && $4 < lastA) { mt = amt; if (brun) shrunk = 1 } }
                lastA = $4; if ($5 > 0 && $6 >= 0) amt = $6 / $5 }
    $2 == "B" { brun = 1; if ($4 != lastB) { seqB = seqB (seqB ? ">" : "") $4
                  if (lastB && $4 > lastB && shrunk) grew = 1 }
                lastB = $4 }
    END { printf "policy=%s a_sizes=%s b_sizes=%s a_mtct_before_shrink=%.2f a_shrunk_while_b_ran=%d b_grew_after=%d",
                 pol, seqA, seqB, mt, shrunk, grew }' "$out/$tag-poll.csv"
  local sum=$out/report/$tag-summary.csv
  printf " makespan_s=%s slot_s=%s" "$(awk -F, '$1 == "makespan_s" { print $2 }' "$sum")" \
    "$(awk -F, '$1 == "busy_slots_s" { print $2 }' "$sum")"
  printf " a_completion_s=%s b_completion_s=%s\n" \
    "$(awk -F, 'NR > 1 && $1 ~ /:A$/ { print $10 }' "$out/report/$tag-jobs.csv")" \
    "$(awk -F, 'NR > 1 && $1 ~ /:B$/ { print $10 }' "$out/report/$tag-jobs.csv")"
}

for p in $policies; do
  run "$p"
done

# Plots: per policy, the two jobs' sizes (top) and measured MTCT (bottom).
for p in $policies; do
  tag=${p//+/-}
  for j in A B; do
    awk -F, -v j=$j 'NR > 1 && $2 == j && $3 == "running" && $5 > 0 {
      print $1, $4, ($6 >= 0 ? $6 / $5 : "NaN") }' "$out/$tag-poll.csv" > "$out/$tag-$j.dat"
  done
  gnuplot <<GP || echo "efficiency.sh: gnuplot failed" >&2
set terminal pngcairo size 900,560 noenhanced
set output '$root/docs/img/efficiency-$tag.png'
set multiplot layout 2,1 title 'morphd, policy $p: A (jacobi, 80 ms serial) and B (heat, all parallel)'
set grid; set key top right
set ylabel 'slots'; set yrange [0:6.5]; set xrange [0:*]
plot '$out/$tag-A.dat' u 1:2 w steps lw 3 t 'A size', '$out/$tag-B.dat' u 1:2 w steps lw 3 t 'B size'
set ylabel 'measured MTCT'; set yrange [0:1]; set xlabel 'time (s)'
set arrow 1 from graph 0, first 0.5 to graph 1, first 0.5 nohead dt 2
set arrow 2 from graph 0, first 0.2 to graph 1, first 0.2 nohead dt 3
plot '$out/$tag-A.dat' u 1:3 w lp pt 7 ps 0.4 t 'A: MPI time / loop time', \
     '$out/$tag-B.dat' u 1:3 w lp pt 7 ps 0.4 t 'B: MPI time / loop time'
unset multiplot
GP
done
echo "files: $out" >&2
for p in $policies; do
  echo "RESULT efficiency $(verdict "$p")"
done
