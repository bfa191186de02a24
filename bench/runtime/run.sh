#!/usr/bin/env bash
# Reconfiguration benchmark of libmorph (issue 2, item 8). Builds nothing:
# MORPH_BUILD must hold a built tree (bench/run.sh configures and builds).
#
#   bench/runtime/run.sh [--quick | --ratios] [--out DIR]
#
# 1. Reconfiguration cost, per data size and size change, side by side:
#      live            morph run, live mechanism, MORPH_SPAWN_PAUSE=0 (shrinks
#                      follow an expansion: the leavers are spawned joiners)
#      live-world      live 4->2 of a job started at 4 (leavers of the initial
#                      world)
#      live-pause      the same with the default pause before the spawn (2->4)
#      relaunch-ompi   morph run, relaunch mechanism, Open MPI
#      relaunch-mpich  morph run, relaunch mechanism, MPICH
#      bare            plain MPI: spawn + merge + Alltoallv (bench-bare.c)
#      respawn         paper 000: spawn all new processes, move all data
#    Sizes 1, 16, 256, 1024 MiB (--quick: 1, 16); changes 2->4, 4->2, 2->8,
#    8->2, 3->5. The largest size's 2->4 / 4->2 runs are done 5 times
#    (medians; --quick: once). --ratios: only what the target keys need
#    (bare 2->4, live 2->4->2 at 1 GiB, or BENCH_RATIOS_MIB, 5 times side
#    by side; no point benchmark), for a loaded machine where the full run
#    takes too long.
#    The keys expand_vs_bare, shrink_vs_expand and redist_vs_memcpy are
#    medians of per-sample ratios, printed with min and max (keys.awk).
# 2. Reconfiguration-point overhead: bench-point.c under mpirun and under
#    morph run.
# 3. The application's visible pause at a resize, background spawn against
#    blocking (pause.sh, 64 MiB and 1 GiB, 5 runs; not with --quick or
#    --ratios): its RESULT line, pause_expand_1g_s, pause_expand_vs_blocking.
#
# Output in DIR (default $MORPH_BUILD/bench-out/runtime): raw.csv (every
# measurement), table.csv (medians, phases), table.md, perf-reconf.png,
# perf-bandwidth.png, log/ (every run's output). Prints two RESULT lines.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh" # bench_record
build=${MORPH_BUILD:-$here/../../build-bench}
bin=$build/bin
quick=0
out=""
while [ $# -gt 0 ]; do
  case $1 in
  --quick) quick=1 ;;
  --ratios) quick=2 ;;
  --out) out=$2; shift ;;
  *) echo "bench/runtime: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
out=${out:-$build/bench-out/runtime}
for b in morph-run bench-memcpy bench-reconf.ompi bench-reconf.mpich bench-bare.ompi \
  bench-point.ompi bench-pause.ompi; do
  [ -x "$bin/$b" ] || { echo "bench/runtime: $bin/$b not built (set MORPH_BUILD)" >&2; exit 1; }
done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Every run is on this host: Open MPI's TCP (between a spawned job and its
# parents) stays on loopback. Otherwise it also binds to the bridges that
# emulated clusters add and remove (scripts/cluster.sh), and a run whose
# bridge vanished hangs ("bind on local address ... failed").
export OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo
unset MORPH_SPAWN_PAUSE MORPH_MECHANISM MORPH_PERIOD MORPH_ITERATIONS

if [ $quick = 1 ]; then
  sizes="1 16" reps=1 point_args=(--n 1000 --block 5 --reps 60 --calls 5000)
elif [ $quick = 2 ]; then
  sizes=${BENCH_RATIOS_MIB:-1024} reps=5
else
  sizes="1 16 256 1024" reps=5 point_args=(--n 1000 --block 5 --reps 200 --calls 20000)
fi
largest=${sizes##* }
transitions="2:4 4:2 2:8 8:2 3:5"
rm -rf "$out"
mkdir -p "$out/log"
raw=$out/raw.csv
echo "mech,old,new,mib,t_decision,t_spawn,t_redist,t_commit,t_settle,t_restore,bytes_moved" >"$raw"
tag=bench-runtime-$$
nrun=0
failures=0

# Every process a run starts carries BENCH_RUNTIME_TAG in its environment,
# so leftovers of a run that timed out can be found and killed by pid.
leftovers() {
  grep -l "BENCH_RUNTIME_TAG=$tag" /proc/[0-9]*/environ 2>/dev/null | cut -d/ -f3 || true
}
cleanup() {
  local pids
  pids=$(leftovers)
  [ -n "$pids" ] && kill -KILL $pids 2>/dev/null
  rm -f /dev/shm/morph-"$tag"-* 2>/dev/null
  return 0
}
trap cleanup EXIT

# Seconds allowed to one run of SIZE MiB.
limit() { echo $((90 + $1 / 4)); }

# run NAME SECONDS COMMAND...: runs with a time limit, output in log/NAME.
run() {
  local name=$1 secs=$2
  shift 2
  nrun=$((nrun + 1))
  if ! env BENCH_RUNTIME_TAG="$tag" timeout -k 5 "$secs" "$@" >"$out/log/$name.out" \
    2>"$out/log/$name.err"; then
    echo "bench/runtime: $name failed (status $?), see $out/log/$name.err" >&2
    failures=$((failures + 1))
    cleanup
    return 1
  fi
  sleep 0.1 # let mpirun's session files go before the next start
  return 0
}

# bare MECH OLD NEW MIB: one run of the plain-MPI reference.
bare() {
  local mech=$1 o=$2 n=$3 mib=$4 name="$1-$2-$3-$4MiB-$nrun"
  run "$name" "$(limit "$mib")" mpirun.openmpi --oversubscribe -n "$o" "$bin/bench-bare.ompi" \
    --mode "$mech" --old "$o" --new "$n" --bytes $((mib << 20)) || return 0
  awk -v m="$mech" -v mib="$mib" '/^BARE / {
      for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
      if (v["errors"] != 0) { print "data errors" > "/dev/stderr"; exit }
      printf "%s,%d,%d,%d,0,%s,%s,%s,0,0,0\n", m, v["old"], v["new"], mib,
        v["t_spawn"], v["t_redist"], v["t_commit"] }' "$out/log/$name.out" >>"$raw"
}

# morph MECH MPI START SCHEDULE MIB [ENV...]: one morph run; every row of
# its report becomes a line of raw.csv (relaunch rows get the restore time
# that the restarted job printed, in order).
morph() {
  local mech=$1 mpi=$2 start=$3 sched=$4 mib=$5 name="$1-$3-$5MiB-$nrun"
  shift 5
  local last iters mechopt=live
  last=$(echo "$sched" | tr ',' '\n' | tail -n 1 | sed 's/.*@it//')
  iters=$((last + 10))
  case $mech in relaunch*) mechopt=relaunch ;; esac
  run "$name" "$(limit "$mib")" env "$@" "$bin/morph-run" --job-id "$tag-$nrun" \
    --timeout "$(limit "$mib")" --mechanism "$mechopt" --report "$out/log/$name.csv" \
    -n "$start" --schedule "$sched" -- "$bin/bench-reconf.$mpi" --bytes $((mib << 20)) \
    --iters "$iters" --sleep-ms 10 || return 0
  grep -q "CHECK PASSED" "$out/log/$name.out" || {
    echo "bench/runtime: $name: data check failed" >&2
    failures=$((failures + 1))
    return 0
  }
  awk -F, -v m="$mech" -v mib="$mib" -v expect="$(echo "$sched" | tr ',' ' ' | wc -w)" '
    FNR == NR { if ($1 ~ /^RESTORE/) { split($3, kv, "="); rs[++nr] = kv[2] } next }
    FNR > 1 && $9 == "ok" {
      ok++; t = m ~ /^relaunch/ ? rs[++k] : 0
      printf "%s,%d,%d,%d,%s,%s,%s,%s,%s,%s,%s\n", m, $5, $6, mib, $10, $11, $12, $13, $14, t, $15 }
    FNR > 1 && $9 != "ok" { print "row " FNR - 1 " failed: " $9 > "/dev/stderr" }
    END { if (ok != expect) print "only " ok + 0 " of " expect " resizes ok" > "/dev/stderr" }' \
    FS=' ' "$out/log/$name.out" FS=, "$out/log/$name.csv" >>"$raw"
}

# One round of everything at one size, references and morph interleaved so
# that a change of the machine's load hits all of them alike.
round() {
  local mib=$1 t
  echo "bench/runtime: $mib MiB" >&2
  for t in $transitions; do bare bare "${t%:*}" "${t#*:}" "$mib"; done
  morph live ompi 2 "4@it10,2@it20" "$mib" MORPH_SPAWN_PAUSE=0
  morph live ompi 2 "8@it10,2@it20" "$mib" MORPH_SPAWN_PAUSE=0
  morph live ompi 3 "5@it10" "$mib" MORPH_SPAWN_PAUSE=0
  morph live-world ompi 4 "2@it10" "$mib"
  for t in $transitions; do bare respawn "${t%:*}" "${t#*:}" "$mib"; done
  morph live-pause ompi 2 "4@it10" "$mib"
  local chain="4@it10,2@it20,8@it30,2@it40,3@it50,5@it60"
  morph relaunch-ompi ompi 2 "$chain" "$mib" MORPH_CHECKPOINT_DIR=/dev/shm
  morph relaunch-mpich mpich 2 "$chain" "$mib" MORPH_CHECKPOINT_DIR=/dev/shm
}

# More samples of the changes the ratios are computed from.
extra_round() {
  local mib=$1
  echo "bench/runtime: $mib MiB, repetition" >&2
  bare bare 2 4 "$mib"
  bare bare 4 2 "$mib"
  morph live ompi 2 "4@it10,2@it20" "$mib" MORPH_SPAWN_PAUSE=0
  morph live-world ompi 4 "2@it10" "$mib"
  bare respawn 2 4 "$mib"
  morph live-pause ompi 2 "4@it10" "$mib"
}

# What the target keys need, and nothing else (--ratios).
ratio_round() {
  echo "bench/runtime: $1 MiB, target keys" >&2
  bare bare 2 4 "$1"
  morph live ompi 2 "4@it10,2@it20" "$1" MORPH_SPAWN_PAUSE=0
}

start=$(date +%s)
"$bin/bench-memcpy" 256 5 >"$out/memcpy.txt"
if [ $quick = 2 ]; then
  for r in $(seq 1 "$reps"); do ratio_round "$largest"; done
else
  for mib in $sizes; do round "$mib"; done
  for r in $(seq 2 "$reps"); do extra_round "$largest"; done
fi
"$bin/bench-memcpy" 256 5 >>"$out/memcpy.txt"

[ $quick = 2 ] || echo "bench/runtime: reconfiguration point" >&2
[ $quick = 2 ] || run point-mpirun 120 mpirun.openmpi --oversubscribe -n 2 "$bin/bench-point.ompi" \
  "${point_args[@]}" || true
[ $quick = 2 ] || run point-morphrun 120 "$bin/morph-run" --job-id "$tag-point" -n 2 -- "$bin/bench-point.ompi" \
  "${point_args[@]}" || true
cleanup

# Medians per (mechanism, change, size) and the phases of the plot:
# spawn (spawn + merge; relaunch: restart until the job says hello),
# redist (relaunch: checkpoint write + restore), commit, settle (live
# shrink: until the leavers are gone).
awk -F, -f "$here/layout.awk" -f "$here/table.awk" "$raw" | sort -t, -k1,1 -k4,4n -k2,2n -k3,3n >"$out/table.body"
{
  echo "mech,old,new,mib,n,spawn,redist,commit,settle,total,redist_gbs,window_gbs"
  cat "$out/table.body"
} >"$out/table.csv"
rm -f "$out/table.body"

# The keys, from the largest size of this run.
best() { # KEY: the best value of KEY in memcpy.txt (two measurements)
  awk -v k="$1" '{ for (i = 1; i <= NF; i++) if (index($i, k "=") == 1) { split($i, kv, "=");
    if (kv[2] > b) b = kv[2] } } END { print b + 0 }' "$out/memcpy.txt"
}
memcpy_gbs=$(best hot_gbs)
cold_gbs=$(best cold_gbs)
huge_gbs=$(best huge_gbs)
get() { # MECH OLD NEW COLUMN -> value at the largest size, or nan
  awk -F, -v m="$1" -v o="$2" -v n="$3" -v c="$4" -v s="$largest" '
    NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
    $1 == m && $2 == o && $3 == n && $4 == s { v = $col[c] }
    END { print v == "" ? "nan" : v }' "$out/table.csv"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "nan" || b == "nan" || b + 0 == 0)
  print "nan"; else printf "%.3f", a / b }'; }
live_x=$(get live 2 4 total)
keys=$(awk -F, -v mib="$largest" -v cold="$cold_gbs" -v huge="$huge_gbs" -f "$here/layout.awk" \
  -f "$here/keys.awk" "$raw")
key_default=$(ratio "$(get live-pause 2 4 total)" "$(get bare 2 4 total)")
key_shrink_world=$(ratio "$(get live-world 4 2 total)" "$live_x")
key_redist_hot=$(ratio "$(get live 2 4 redist_gbs)" "$memcpy_gbs")
key_window=$(ratio "$(get live 2 4 window_gbs)" "$memcpy_gbs")
key_respawn=$(ratio "$live_x" "$(get respawn 2 4 total)")
pget() { # LOG KEY
  awk -v k="$2" '/^POINT / { for (i = 2; i <= NF; i++) { split($i, kv, "=");
    if (kv[1] == k) v = kv[2] } } END { print v == "" ? "nan" : v }' "$out/log/$1.out" 2>/dev/null ||
    echo nan
}

bash "$here/table-md.sh" "$out" "$sizes"
bash "$here/plot.sh" "$out" "$sizes" || echo "bench/runtime: plots failed" >&2
column -s, -t "$out/table.csv" >&2 || true
echo "bench/runtime: $nrun runs in $(($(date +%s) - start)) s, $failures failed; output in $out" >&2
reconf="RESULT$keys"
echo "$reconf"
reconf+=$'\n'$(echo "RESULT expand_default_vs_bare=$key_default" \
  "shrink_world_vs_expand=$key_shrink_world live_vs_respawn=$key_respawn" \
  "data_mib=$largest change=2->4,4->2 memcpy_gbs=$memcpy_gbs" \
  "redist_gbs=$(get live 2 4 redist_gbs) redist_vs_memcpy_hot=$key_redist_hot" \
  "window_gbs=$(get live 2 4 window_gbs) redist_vs_memcpy_all_ranks=$key_window" \
  "memcpy_newbuf_gbs=$cold_gbs memcpy_newbuf_huge_gbs=$huge_gbs failed_runs=$failures")
echo "${reconf#*$'\n'}"
[ $quick = 2 ] && { [ "$failures" = 0 ]; exit; }
# The point's cost per iteration from its own measured cost, free of the
# noise that the timed blocks carry on a shared machine.
est() { awk -v ns="$(pget "$1" uninhibited_ns)" -v ms="$(pget "$1" iter_ms)" 'BEGIN {
  if (ns == "nan" || ms == "nan") print "nan"; else printf "%.5f", 1 + ns * 1e-6 / ms }'; }
point=$(echo "RESULT check_vs_nocheck=$(pget point-mpirun check_vs_nocheck)" \
  "check_vs_nocheck_morphrun=$(pget point-morphrun check_vs_nocheck)" \
  "check_ns=$(pget point-mpirun check_ns) check_ns_morphrun=$(pget point-morphrun check_ns)" \
  "iter_ms=$(pget point-mpirun iter_ms) uninhibited_ns=$(pget point-mpirun uninhibited_ns)" \
  "uninhibited_ns_morphrun=$(pget point-morphrun uninhibited_ns)" \
  "check_vs_nocheck_from_ns=$(est point-mpirun) check_vs_nocheck_from_ns_morphrun=$(est point-morphrun)")
echo "$point"
echo "bench/runtime: visible pause, background spawn against blocking" >&2
pause=$(bash "$here/pause.sh" --build "$build" | tail -n 1)
[[ $pause == RESULT* ]] || { pause="RESULT pause_failed=1"; failures=$((failures + 1)); }
echo "$pause"
bench_record runtime "$reconf"$'\n'"$point"$'\n'"$pause" "$out/table.csv"
[ "$failures" = 0 ]
