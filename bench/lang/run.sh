#!/usr/bin/env bash
# What the Fortran and Python bindings cost against C (docs/fortran.md,
# docs/python.md). Builds nothing: MORPH_BUILD must hold a built tree
# (bench/run.sh configures and builds).
#
#   bench/lang/run.sh [--quick] [--out DIR]
#
# Every round runs C, Fortran and Python one after the other, so that the
# load of the shared machine hits the three alike, and the keys are medians
# of per-round ratios against C:
# 1. The point: point.c, point.f90, point.py under mpirun -n 2 (one block
#    registration; medians over 21 batches of the ns per call, inhibited:
#    the path of nearly every point, and uninhibited).
# 2. A live 2 -> 4 -> 2 of MIB MiB under `morph run` (MORPH_SPAWN_PAUSE=0):
#    bench/runtime's bench-reconf, reconf.f90, reconf.py; a resize's time
#    is spawn + redistribution + commit + settle from the run's report (the
#    decision's wait is the schedule's, not the language's).
# Full run: 1024 MiB, 5 rounds, 2000 calls per batch; --quick: 64 MiB, 1
# round, 500 calls. Output in DIR (default $MORPH_BUILD/bench-out/lang):
# point.csv, resize.csv, perf-lang.png, log/. Prints one RESULT line:
#   check_ns_c check_ns_fortran check_ns_python (inhibited, medians)
#   uninhibited_ns_c uninhibited_ns_fortran uninhibited_ns_python
#   check_fortran_vs_c check_python_vs_c
#   expand_c_s expand_fortran_s expand_python_s (2 -> 4 medians)
#   expand_fortran_vs_c (target <= 1.05) expand_python_vs_c (target <= 1.1)
#   shrink_fortran_vs_c shrink_python_vs_c  data_mib rounds failed_runs
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
bench_init bench/lang build-bench
quick=0 ratios=0 out=""
# --ratios is bench/runtime's "target keys only"; here every key is one.
bench_parse "quick,ratios,out:" "[--quick] [--out DIR]" "$@"
out=${out:-$build/bench-out/lang}
py=/usr/bin/python3 # Debian's, with its mpi4py
for b in morph-run bench-reconf.ompi bench-lang-point.ompi bench-lang-point-f.ompi \
  bench-lang-reconf-f.ompi; do
  [ -x "$bin/$b" ] || { echo "bench/lang: $bin/$b not built (set MORPH_BUILD)" >&2; exit 1; }
done
[ -f "$build/python/morph/__init__.py" ] || { echo "bench/lang: no Python package in $build/python" >&2; exit 1; }
export PYTHONPATH=$build/python${PYTHONPATH:+:$PYTHONPATH}
# Every run is on this host (bench/runtime/run.sh says why).
export OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo
unset MORPH_SPAWN_PAUSE MORPH_MECHANISM MORPH_PERIOD MORPH_ITERATIONS
if [ $quick = 1 ]; then
  mib=64 rounds=1 calls=500
else
  mib=1024 rounds=5 calls=2000
fi
rm -rf "$out"
mkdir -p "$out/log"
echo "round,lang,check_ns,uninhibited_ns" > "$out/point.csv"
echo "round,lang,old,new,spawn,redist,commit,settle,total" > "$out/resize.csv"
tag=bench-lang-$$
failures=0

# Processes carry BENCH_LANG_TAG, so that leftovers of a run that timed out
# are found and killed by pid.
cleanup() {
  local pids
  pids=$(grep -l "BENCH_LANG_TAG=$tag" /proc/[0-9]*/environ 2>/dev/null | cut -d/ -f3 || true)
  [ -n "$pids" ] && kill -KILL $pids 2>/dev/null
  return 0
}
trap cleanup EXIT

# run NAME SECONDS COMMAND...: output in log/NAME.out and .err.
run() {
  local name=$1 secs=$2
  shift 2
  if ! env BENCH_LANG_TAG="$tag" timeout -k 5 "$secs" "$@" > "$out/log/$name.out" \
    2> "$out/log/$name.err"; then
    echo "bench/lang: $name failed, see $out/log/$name.err" >&2
    failures=$((failures + 1))
    cleanup
    return 1
  fi
}

program() { # LANG KIND: the command of that language's program
  case $1-$2 in
  c-point) echo "$bin/bench-lang-point.ompi" ;;
  fortran-point) echo "$bin/bench-lang-point-f.ompi" ;;
  python-point) echo "$py $here/point.py" ;;
  c-reconf) echo "$bin/bench-reconf.ompi" ;;
  fortran-reconf) echo "$bin/bench-lang-reconf-f.ompi" ;;
  python-reconf) echo "$py $here/reconf.py" ;;
  esac
}

point() { # ROUND LANG
  local name="point-$2-$1"
  # shellcheck disable=SC2046
  run "$name" 120 mpirun.openmpi --oversubscribe -n 2 $(program "$2" point) "$calls" || return 0
  awk -v r="$1" -v l="$2" '/^POINT / { for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
    print r "," l "," v["check_ns"] "," v["uninhibited_ns"] }' "$out/log/$name.out" >> "$out/point.csv"
}

resize() { # ROUND LANG: a live 2 -> 4 -> 2, every row of its report
  local name="resize-$2-$1" secs=$((120 + mib / 4))
  # shellcheck disable=SC2046
  run "$name" "$secs" env MORPH_SPAWN_PAUSE=0 "$bin/morph-run" --job-id "$tag-$name" \
    --timeout "$secs" --mechanism live --report "$out/log/$name.csv" -n 2 \
    --schedule "4@it10,2@it20" -- $(program "$2" reconf) --bytes $((mib << 20)) --iters 30 \
    --sleep-ms 10 || return 0
  grep -q "^CHECK PASSED" "$out/log/$name.out" || {
    echo "bench/lang: $name: data check failed" >&2
    failures=$((failures + 1))
    return 0
  }
  awk -F, -v r="$1" -v l="$2" 'NR > 1 && $9 == "ok" {
      printf "%s,%s,%d,%d,%s,%s,%s,%s,%.6f\n", r, l, $5, $6, $11, $12, $13, $14, $11 + $12 + $13 + $14 }
    NR > 1 && $9 != "ok" { print "bench/lang: a resize failed: " $9 > "/dev/stderr" }' \
    "$out/log/$name.csv" >> "$out/resize.csv"
}

start=$(date +%s)
for r in $(seq 1 "$rounds"); do
  echo "bench/lang: round $r of $rounds ($mib MiB)" >&2
  for lang in c fortran python; do point "$r" "$lang"; done
  for lang in c fortran python; do resize "$r" "$lang"; done
done
cleanup

# values FILE COLUMN LANG [OLD NEW]: a language's values of a column, one
# per round; ratios: the same divided by C's of the same round.
values() {
  awk -F, -v c="$2" -v l="$3" -v o="${4:-}" -v n="${5:-}" '
    NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
    $2 == l && (o == "" || ($3 == o && $4 == n)) { print $col[c] }' "$1"
}
ratios() {
  awk -F, -v c="$2" -v l="$3" -v o="${4:-}" -v n="${5:-}" '
    NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
    (o == "" || ($3 == o && $4 == n)) { x[$1, $2] = $col[c]; rs[$1] = 1 }
    END { for (r in rs) if (x[r, "c"] > 0 && x[r, l] != "") print x[r, l] / x[r, "c"] }' "$1"
}
med() { values "$@" | bench_stats | cut -d" " -f1; }
ratio() { ratios "$@" | bench_stats | cut -d" " -f1; }

bash "$here/plot.sh" "$out" || echo "bench/lang: plot failed" >&2
column -s, -t "$out/resize.csv" >&2 || true
echo "bench/lang: $((3 * 2 * rounds)) runs in $(($(date +%s) - start)) s, $failures failed; output in $out" >&2
P=$out/point.csv R=$out/resize.csv
result=$(echo "RESULT check_ns_c=$(med "$P" check_ns c) check_ns_fortran=$(med "$P" check_ns fortran)" \
  "check_ns_python=$(med "$P" check_ns python) uninhibited_ns_c=$(med "$P" uninhibited_ns c)" \
  "uninhibited_ns_fortran=$(med "$P" uninhibited_ns fortran)" \
  "uninhibited_ns_python=$(med "$P" uninhibited_ns python)" \
  "check_fortran_vs_c=$(ratio "$P" check_ns fortran) check_python_vs_c=$(ratio "$P" check_ns python)" \
  "expand_c_s=$(med "$R" total c 2 4) expand_fortran_s=$(med "$R" total fortran 2 4)" \
  "expand_python_s=$(med "$R" total python 2 4)" \
  "expand_fortran_vs_c=$(ratio "$R" total fortran 2 4) expand_python_vs_c=$(ratio "$R" total python 2 4)" \
  "shrink_fortran_vs_c=$(ratio "$R" total fortran 4 2) shrink_python_vs_c=$(ratio "$R" total python 4 2)" \
  "data_mib=$mib rounds=$rounds failed_runs=$failures")
echo "$result"
bench_record lang "$result" "$out/resize.csv"
[ "$failures" = 0 ]
