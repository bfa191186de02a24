#!/usr/bin/env bash
# Every crash point of morphd run for real: for each point of
# src/rms/crash.c (MORPH_TEST_CRASH_AT, docs/testing.md) and each
# repetition, a real morphd is killed (SIGKILL) at that point and started
# again on the same folder (tests/durability/cases.sh crash POINT). A run
# fails when a job is lost, a job started twice, a job did not complete,
# the journal is not intact (PRAGMA integrity_check) or morph report
# disagrees with it.
#
#   bench/crash-points.sh [--reps N | --quick] [--points "P1 P2 ..."] [--build DIR] [--out DIR]
#
# N repetitions of each point (default 2; --quick: 1); --points: only those. The build
# folder is --build, else $MORPH_BUILD, else build/. Writes
# OUT/crash-points.csv (point,rep,ok,seconds,why) and OUT/crash-points.png
# (default OUT: a new folder under /tmp, printed). Last line:
#   RESULT crash_points=RUNS crash_points_failed=FAILED crash_point_names=K crash_reps=N
# Exit status 0 only when no run failed, so that another script
# (bench/security.sh) can call it.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
bench_init bench/crash-points.sh
reps=2 points= out= quick=
bench_parse "reps:,quick,points:,build:,out:" '[--reps N | --quick] [--points "P1 P2"] [--build DIR] [--out DIR]' "$@"
[ -z "$quick" ] || reps=1
build=${build:-${MORPH_BUILD:-$root/build}}
build=$(cd "$build" 2>/dev/null && pwd) || { echo "crash-points: no build folder $build" >&2; exit 2; }
bin=$build/bin
bench_build morph morph-run morphd-query fake-job
[ -n "$points" ] || points=$(sed -n 's/^  "\([a-z-]*\)",.*/\1/p' "$root/src/rms/crash.c")
out=${out:-$(mktemp -d /tmp/morph-crash-points.XXXXXX)}
mkdir -p "$out"
csv=$out/crash-points.csv
echo "point,rep,ok,seconds,why" > "$csv"

runs=0 failed=0 k=0
for p in $points; do
  k=$((k + 1))
  for rep in $(seq "$reps"); do
    t0=$(date +%s.%N)
    MORPH=$bin/morph QUERY=$bin/morphd-query BIN=$bin timeout -k 10 300 \
      bash "$root/tests/durability/cases.sh" crash "$p" > "$out/$p-$rep.log" 2>&1
    rc=$?
    s=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
    why=$(grep -m1 '^FAIL' "$out/$p-$rep.log" | tr ',' ';' | cut -c1-160)
    [ $rc = 0 ] || why=${why:-"exit status $rc"}
    runs=$((runs + 1))
    [ $rc = 0 ] || failed=$((failed + 1))
    echo "$p,$rep,$([ $rc = 0 ] && echo 1 || echo 0),$s,$why" >> "$csv"
    printf "%-24s rep %d  %-4s %6s s  %s\n" "$p" "$rep" "$([ $rc = 0 ] && echo ok || echo FAIL)" "$s" "$why"
  done
done

# Seconds per run by point (the kill, the restart and the jobs' run), a
# failed run in red.
awk -F, 'NR > 1 { if (!($1 in n)) n[$1] = ++k; print n[$1], $4, $3 }' "$csv" > "$out/runs.dat"
gnuplot <<GP 2>/dev/null || echo "crash-points: gnuplot failed; CSV only" >&2
set terminal pngcairo size 1000,500 noenhanced
set output '$out/crash-points.png'
set title 'morphd killed at each crash point and restarted ($runs runs, $failed failed)'
set ylabel 'seconds (kill, restart, jobs to their end)'; set grid ytics
set xtics rotate by -45 ('' 0)
set xrange [0:$((k + 1))]; set yrange [0:*]
$(i=0; for p in $points; do i=$((i + 1)); echo "set xtics add ('$p' $i)"; done)
plot '$out/runs.dat' u 1:(\$3 == 1 ? \$2 : 1/0) w p pt 7 lc rgb '#22aa77' t 'ok', \
     '$out/runs.dat' u 1:(\$3 == 0 ? \$2 : 1/0) w p pt 7 lc rgb '#dd2222' t 'failed'
GP
echo "files: $out" >&2
result="RESULT crash_points=$runs crash_points_failed=$failed crash_point_names=$k crash_reps=$reps"
echo "$result"
bench_record crash-points "$result"
[ "$failed" = 0 ]
