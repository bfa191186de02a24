#!/usr/bin/env bash
# Reproduces paper 003's dynamic-environment experiment (Fig. 7) with
# apps/pcm-master-worker through the PCM front-end
# (docs/reproduction-pcm.md). The processors available change every PHASE
# iterations, 8 -> 12 -> 16 -> 15 -> 10 -> 8; three ways to run the same
# 6 * PHASE iterations:
#   malleable  split/merge + migration: the decision module keeps one
#              component per available processor (paper 003 IV-B.3, the
#              rule of morphd's granularity policy), so morph run's
#              schedule resizes the job one iteration after each change;
#   migration  migration only: a fixed 16 components (even on 8 and 16
#              processors, as in the paper), spread over what is available;
#   static     the best static granularity of each phase (one component per
#              processor), each phase run on its own, no reconfiguration.
# The processors are emulated (2 cores here): see the app's header and the
# doc. Every run is checked (CHECK PASSED) against a serial computation.
#
#   bench/reproduce-pcm.sh [--quick] [--out DIR]
#
# MORPH_BUILD: a built tree (default build-bench, built when missing). DIR
# (default $MORPH_BUILD/bench-out/pcm) gets iterations.csv (run, it, procs,
# comps, seconds), phases.csv, table.md, pcm.png and log/. Prints RESULT
# lines. --quick: 2 iterations per phase, a tenth of the work.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
bench_init reproduce-pcm build-bench
quick=0 out=
bench_parse "quick,out:" "[--quick] [--out DIR]" "$@"
bench_build pcm-master-worker.ompi morph-run morph
out=${out:-$build/bench-out/pcm}
rm -rf "$out"
mkdir -p "$out/log"
export OMPI_MCA_mpi_yield_when_idle=1
export OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo
unset MORPH_SPAWN_PAUSE MORPH_MECHANISM MORPH_PERIOD MORPH_ITERATIONS

ENV=(8 12 16 15 10 8)
PHASE=6 WORK=16000 STARS=4800
[ $quick = 1 ] && PHASE=2 WORK=1600 STARS=960
ITERS=$((PHASE * ${#ENV[@]}))
app=$bin/pcm-master-worker.ompi
echo "run,it,procs,comps,seconds" >"$out/iterations.csv"

# run NAME MORPH-RUN-ARGS... -- APP-ARGS...: one job, its iteration lines
# appended to iterations.csv.
run() {
  local name=$1
  shift
  local log=$out/log/$name.log
  "$bin/morph-run" --timeout 600 "$@" >"$log" 2>&1 || true
  if ! grep -q '^CHECK PASSED' "$log"; then
    echo "reproduce-pcm: run $name did not pass its check (log: $log)" >&2
    tail -5 "$log" >&2
    exit 1
  fi
  awk -v r="$name" '/^mw it /{print r "," $3 "," $5 "," $7 "," $9}' "$log" >>"$out/iterations.csv"
}

# The decision module: one component per available processor, decided
# one iteration after the environment changed (morph's iteration count
# runs one ahead of the loop index: entry it(N+1) applies at loop index N).
sched=""
for ((p = 1; p < ${#ENV[@]}; p++)); do
  sched+="${sched:+,}${ENV[p]}@it$((p * PHASE + 1))"
done
common=(--size "$STARS" --iters "$ITERS" --phase-iters "$PHASE" --work-ms "$WORK")
run malleable -n "${ENV[0]}" --schedule "$sched" -- "$app" "${common[@]}"
run migration -n 16 -- "$app" "${common[@]}"
for p in $(printf '%s\n' "${ENV[@]}" | sort -un); do
  # One more iteration than a phase: the first (start-up) is left out.
  run "static-$p" -n "$p" -- "$app" --size "$STARS" --iters $((PHASE + 1)) --procs "$p" \
    --work-ms "$WORK"
done

# Per phase: mean seconds per iteration of each way, all iterations and
# steady ones (the phase's first iteration, where a resize lands, left
# out); the static run of a phase's processor count stands for it.
awk -F, -v phase="$PHASE" -v env="${ENV[*]}" '
  BEGIN { n = split(env, E, " ") }
  NR == 1 { next }
  $1 ~ /^static-/ { if ($2 > 0) { sp = substr($1, 8); st[sp] += $5; sn[sp]++ }; next }
  { ph = int($2 / phase) + 1; t[$1, ph] += $5; c[$1, ph]++; tot[$1] += $5
    if ($2 % phase) { s[$1, ph] += $5; k[$1, ph]++ } }
  END {
    print "phase,procs,malleable,malleable_steady,migration,migration_steady,static" > "'"$out"'/phases.csv"
    for (ph = 1; ph <= n; ph++) {
      p = E[ph]; opt = st[p] / sn[p]; otot += opt * phase
      ms = s["malleable", ph] / k["malleable", ph]; gs = s["migration", ph] / k["migration", ph]
      mst += ms * phase; gst += gs * phase
      printf "%d,%d,%.4f,%.4f,%.4f,%.4f,%.4f\n", ph, p, t["malleable", ph] / c["malleable", ph], ms,
        t["migration", ph] / c["migration", ph], gs, opt > "'"$out"'/phases.csv"
    }
    printf "RESULT total_malleable_s=%.2f total_migration_s=%.2f total_static_best_s=%.2f\n", tot["malleable"], tot["migration"], otot
    printf "RESULT steady_malleable_s=%.2f steady_migration_s=%.2f\n", mst, gst
    printf "RESULT malleable_vs_optimal_pct=%.1f malleable_vs_migration_pct=%.1f steady_malleable_vs_optimal_pct=%.1f steady_malleable_vs_migration_pct=%.1f\n", 100 * (tot["malleable"] / otot - 1), 100 * (1 - tot["malleable"] / tot["migration"]), 100 * (mst / otot - 1), 100 * (1 - mst / gst)
  }' "$out/iterations.csv" | tee "$out/results.txt"
bench_record reproduce-pcm "$(cat "$out/results.txt")" "$out/phases.csv"

{
  echo "| phase | processors | malleable (s/it) | steady | migration only (s/it) | steady | best static (s/it) |"
  echo "|---:|---:|---:|---:|---:|---:|---:|"
  tail -n +2 "$out/phases.csv" | awk -F, '{printf "| %d | %d | %.3f | %.3f | %.3f | %.3f | %.3f |\n", $1, $2, $3, $4, $5, $6, $7}'
} >"$out/table.md"
cat "$out/table.md"

if command -v gnuplot >/dev/null; then
  grep '^malleable,' "$out/iterations.csv" | cut -d, -f2,5 | tr , ' ' >"$out/malleable.dat"
  grep '^migration,' "$out/iterations.csv" | cut -d, -f2,5 | tr , ' ' >"$out/migration.dat"
  tail -n +2 "$out/phases.csv" | awk -F, -v ph="$PHASE" '{print ($1 - 1) * ph, $7; print $1 * ph - 0.001, $7}' >"$out/static.dat"
  gnuplot <<EOF
set terminal pngcairo size 900,500
set output '$out/pcm.png'
set title "Paper 003 dynamic environment (8 -> 12 -> 16 -> 15 -> 10 -> 8 emulated processors)"
set xlabel 'iteration'
set ylabel 'iteration time (s)'
set logscale y
set key top right
plot '$out/malleable.dat' with linespoints title 'split/merge + migration', \
     '$out/migration.dat' with linespoints title 'migration only (16 components)', \
     '$out/static.dat' with lines lw 2 title 'best static granularity per phase'
EOF
  echo "reproduce-pcm: plot $out/pcm.png"
fi
