#!/usr/bin/env bash
# morph across hosts, measured for real on the emulated cluster
# (docs/cluster.md; its keys in docs/performance.md, its records in bench/results/cluster/).
#
#   bench/cluster.sh [--runs R] [--mib M] [--jobs J] [--quick]
#                    [--workload | --no-workload] [--out DIR]
#
# Its own cluster instance (scripts/cluster.sh --name bench-cluster-<pid>,
# node1..node3 of 2 slots), taken down on every way out. Everything runs
# on the head as on a cluster's login node: mpirun reaches the nodes over
# ssh, Open MPI's TCP is pinned to the instance's own /27 (its bridge and
# the nodes' eth0), so other instances' bridges coming and going do not
# touch it.
#
# 1. Resizes, R runs (default 5; --quick 3), each run side by side:
#      bare    hand-written MPI: mpirun -n 2 on node1, MPI_Comm_spawn of 2
#              onto node2 (info host=node2:2), merge, one Alltoallv of M MiB
#              (default 64) to the 4-process layout (bench-bare --host)
#      morph   morph run -n 2 on node1 (hostfile node1..3, rank 0 reaching
#              morph run over TCP), schedule 4 then 2: live expand onto
#              node2 and shrink off it, the same M MiB (bench-reconf),
#              MORPH_SPAWN_PAUSE=0 as the bare spawn has no pause
#      morphd  morphd on the head with node1..3 as its pool: Jacobi (2-4)
#              grows onto a second host, a rigid 4-process job arrives and
#              Jacobi shrinks off a whole host; the rigid job starts there
#              once the host is checked empty (rms/gone.c)
#    then the wire between node1 and node2 against morph's cross-host
#    redistribution, R runs (bench/cluster-wire.sh on this instance; its
#    keys tcp_wire_mib_s, mpi_p2p_mib_s, cross_host_redist_mib_s,
#    cross_host_redist_vs_wire, bare_cross_host_redist_mib_s)
#    Keys (median of the R runs, with min and max):
#      cross_host_expand_s        morph's 2 -> 4 onto node2 (spawn, merge,
#                                 redistribution, commit: morph run's report)
#      cross_host_expand_vs_bare  per run, morph's expand over bare's
#      cross_host_shrink_s        morph's 4 -> 2 off node2 (until the leavers
#                                 are gone, counted on node2)
#      host_release_s             morphd: the shrink's ACK -> the waiting job
#                                 started on the freed host (journal times)
# 2. A workload (unless --no-workload; --workload: only it): J jobs
#    (default 20) of the example applications (apps/), submitted 4 s apart
#    to morphd on the three hosts of 3 slots (embedded backend, policy
#    dmr+easy), run twice:
#      fixed     every job rigid at its request: 3 processes (one host) or
#                6 (two hosts)
#      flexible  every job moldable from 3 to its request and malleable
#                within 3-9 processes (one to three hosts)
#    with --work-ms strong scaling (a grown job finishes sooner); --quick:
#    half the work per job (a few minutes in all). morph report makes
#    the CSV and plots of each run (DIR/report/<kind>-*); every job must
#    print CHECK PASSED.
#
# Output in DIR (default $MORPH_BUILD/bench-out/cluster): resizes.csv,
# resizes.png, report/, logs. Ends with
#   RESULT hosts=3 cross_host_expand_s=.. (_min, _max) cross_host_expand_vs_bare=..
#          cross_host_shrink_s=.. host_release_s=.. tcp_wire_mib_s=.. mpi_p2p_mib_s=..
#          cross_host_redist_mib_s=.. cross_host_redist_vs_wire=..
#          cluster_flexible_vs_fixed_completion=<makespan fixed / flexible> runs=R mib=M jobs=J
set -euo pipefail
. "$(dirname "$0")/lib.sh"
bench_init bench/cluster.sh
runs= mib=64 jobs=20 quick=0 workload=0 no_workload=0 out=
bench_parse "runs:,mib:,jobs:,quick,workload,no-workload,out:" \
  "[--runs R] [--mib M] [--jobs J] [--quick] [--workload | --no-workload] [--out DIR]" "$@"
[ "$workload" = 1 ] && [ "$no_workload" = 1 ] && { echo "$bench_name: --workload or --no-workload" >&2; exit 2; }
[ -n "$runs" ] || { [ "$quick" = 1 ] && runs=3 || runs=5; }
[ "$(id -u)" = 0 ] || { echo "$bench_name needs root (an emulated cluster)" >&2; exit 2; }
case $build in /tmp/*) echo "$bench_name: the build tree is under /tmp, private on each emulated host" >&2; exit 2 ;; esac
apps=(jacobi cg heat farm nbody)
bench_build morph morph-run morph-daemon morph-submit morph-status morph-report morph-workload \
  bench-bare.ompi bench-reconf.ompi bench-wire.ompi "${apps[@]/%/.ompi}"
out=${out:-$build/bench-out/cluster}
rm -rf "$out"
mkdir -p "$out/log"
out=$(cd "$out" && pwd) # the daemons start in another folder

name=bench-cluster-$$
CL="bash $root/scripts/cluster.sh --name $name"
md=
stop_morphd() {
  [ -n "$md" ] || return 0
  timeout 60 $CL exec head "$bin/morph" daemon -d "$md" --stop --kill-jobs >/dev/null 2>&1 ||
    { [ -s "$md/morphd.pid" ] && kill "$(cat "$md/morphd.pid")" 2>/dev/null; } || true
  md=
}
trap 'stop_morphd; timeout 180 $CL down >/dev/null 2>&1 || echo "$bench_name: instance $name not down" >&2' EXIT
trap 'exit 130' INT TERM

echo "$bench_name: cluster $name up (load $(cut -d' ' -f1-3 /proc/loadavg))" >&2
timeout 300 $CL up 3 >"$out/log/up.log"
eval "$($CL env)"
hf=$MORPH_CLUSTER_HOSTFILE
on_head() { $CL exec head "$@"; }

until_log() { # SECONDS PATTERN FILE
  local i
  for ((i = 0; i < $1 * 2; i++)); do grep -q "$2" "$3" 2>/dev/null && return 0; sleep 0.5; done
  echo "$bench_name: no '$2' in $3 within $1 s" >&2
  return 1
}

start_morphd() { # DIR [HOSTFILE]
  md=$1
  mkdir -p "$md"
  $CL daemon head "$md/morphd.pid" "$md/morphd.log" "$bin/morph" daemon -d "$md" \
    --hostfile "${2:-$hf}" -i 1 -p dmr+easy || { echo "$bench_name: morphd did not start" >&2; exit 1; }
  until_log 30 listening "$md/morphd.log"
}

# --- 1. resizes --------------------------------------------------------------
bytes=$((mib << 20))
csv=$out/resizes.csv
echo "run,bare_expand_s,morph_expand_s,morph_shrink_s,expand_vs_bare,morphd_shrink_s,host_release_s" >"$csv"

bare_run() { # R: bare's spawn + merge + redistribution onto node2, in seconds
  local log=$out/log/bare-$1.out
  timeout 300 $CL exec head mpirun --hostfile "$hf" -n 2 "$bin/bench-bare.ompi" --mode bare \
    --old 2 --new 4 --bytes "$bytes" --host node2:2 >"$log" 2>&1 || { echo "bare run $1 failed: $(tail -3 "$log")" >&2; return 1; }
  grep -q '^BARE .*errors=0 hosts=node1,node1,node2,node2$' "$log" ||
    { echo "bare run $1: wrong data or hosts: $(grep BARE "$log")" >&2; return 1; }
  sed -n 's/^BARE .* t_spawn=\([0-9.]*\) t_redist=\([0-9.]*\) t_commit=\([0-9.]*\) .*/\1 \2 \3/p' "$log" |
    awk '{ printf "%.3f\n", $1 + $2 + $3 }'
}

morph_run() { # R: "expand shrink" of morph run's report, in seconds
  local log=$out/log/morph-$1.out rep=$out/log/morph-$1.csv
  MORPH_SPAWN_PAUSE=0 timeout 300 $CL exec head "$bin/morph" run --hostfile "$hf" --listen '*:0' \
    --job-id "bench-cluster-$$-$1" --report "$rep" -n 2 --schedule "4@it10,2@it20" -- \
    "$bin/bench-reconf.ompi" --bytes "$bytes" --iters 30 --sleep-ms 10 >"$log" 2>&1 ||
    { echo "morph run $1 failed: $(tail -3 "$log")" >&2; return 1; }
  grep -q 'CHECK PASSED' "$log" || { echo "morph run $1: data check failed" >&2; return 1; }
  grep -q '4->2 live ok.*leavers were on node2:2' "$log" ||
    { echo "morph run $1: the joiners were not on node2: $(grep 'morph run' "$log" | tail -3)" >&2; return 1; }
  # report: columns 5, 6 sizes, 9 outcome, 11-14 spawn, redist, commit, settle
  awk -F, 'NR > 1 && $9 == "ok" { t = $11 + $12 + $13 + $14
      if ($5 == 2 && $6 == 4) e = t; if ($5 == 4 && $6 == 2) s = t }
    END { if (e == "" || s == "") exit 1; printf "%.3f %.3f\n", e, s }' "$rep"
}

# morphd_run R: Jacobi grows onto another host, a rigid job makes it shrink
# off one; prints "shrink release" from the journal (seconds).
morphd_run() {
  local a b q
  a=$(on_head "$bin/morph" submit -q -d "$md" -J "grow-$1" --min 2 --pref 2 --max 4 \
    "$bin/jacobi.ompi" --iters 150 --delay-ms 50)
  until_log 120 "job $a: resize [0-9]* done, size 4" "$md/morphd.log" || return 1
  b=$(on_head "$bin/morph" submit -q -d "$md" -J "rigid-$1" -n 4 "$bin/jacobi.ompi" --iters 250 --delay-ms 50)
  until_log 180 "job $a \(completed\|failed\|cancelled\)" "$md/morphd.log" || return 1
  until_log 180 "job $b \(completed\|failed\|cancelled\)" "$md/morphd.log" || return 1
  for j in "$a" "$b"; do
    grep -q '^CHECK PASSED' "$md/jobs/$j.out" || { echo "morphd run $1: job $j's check did not pass" >&2; return 1; }
  done
  q="SELECT printf('%.3f %.3f', r.done - r.decided, j.start - r.done) FROM resizes r, jobs j
     WHERE r.job = $a AND r.op = 'shrink' AND r.state = 'done' AND j.id = $b;"
  sqlite3 "$md/journal.db" "$q"
}

if [ "$workload" = 0 ]; then
  start_morphd "$out/morphd-resize"
  for r in $(seq "$runs"); do
    ok=1
    be=$(bare_run "$r") || ok=0
    read -r me ms < <(morph_run "$r" || echo "- -")
    [ "$me" = - ] && ok=0
    read -r dshr rel < <(morphd_run "$r" || echo "- -")
    [ "$rel" = - ] && ok=0
    echo "$r,$be,$me,$ms,$(bench_ratio "$me" "$be"),$dshr,$rel" >>"$csv"
    echo "$bench_name: run $r: bare $be s, morph expand $me s, shrink $ms s; morphd shrink $dshr s, release $rel s (load $(cut -d' ' -f1 /proc/loadavg))" >&2
    [ "$ok" = 1 ] || echo "$bench_name: run $r incomplete (see $out/log)" >&2
  done
  stop_morphd
  col() { awk -F, -v c="$1" 'NR > 1 && $c != "" && $c != "-" && $c != "0.000" { print $c }' "$csv" | bench_stats; }
  bench_result="RESULT hosts=3"
  bench_row_head "seconds ($runs runs, $mib MiB)"
  bench_row cross_host_expand_s "morph expand 2 -> 4 onto node2" "$(col 3)"
  bench_row cross_host_expand_vs_bare "  morph / bare (per run)" "$(col 5)"
  bench_row bare_expand_s "  bare spawn+merge+Alltoallv onto node2" "$(col 2)"
  bench_row cross_host_shrink_s "morph shrink 4 -> 2 off node2" "$(col 4)"
  bench_row morphd_shrink_s "morphd shrink 4 -> 2 off a host" "$(col 6)"
  bench_row host_release_s "morphd host release (ACK -> next job)" "$(col 7)"
  result="$bench_result runs=$runs mib=$mib"
  bash "$root/bench/cluster-plot.sh" "$csv" "$out/resizes.png" || echo "$bench_name: plot failed" >&2
  wq=
  [ "$quick" = 1 ] && wq=--quick
  wire=$(bash "$root/bench/cluster-wire.sh" --name "$name" --runs "$runs" --mib "$mib" $wq --out "$out/wire" |
    sed -n 's/^RESULT //p') || echo "$bench_name: the wire measurement failed (see $out/wire)" >&2
  result+=$(awk '{ for (i = 1; i <= NF; i++) if ($i !~ /^(load|wire_runs|wire_mib)=/) printf " %s", $i }' <<<"${wire:-}")
else
  result="RESULT hosts=3"
fi

# --- 2. workload -------------------------------------------------------------
# app|rigid request|min|pref|max|arguments, on the three hosts with 3
# slots each (9). Per iteration (farm: per round) W/P ms on P processes:
# strong scaling, so a job that grows finishes sooner; some jobs ask for
# two hosts (6 processes): fixed, they wait for two free hosts; flexible,
# they start on one and grow, onto a second and a third host, up to 9
# processes, and shrink and grow again as jobs come and go (every grow
# live whatever came before: docs/cluster.md, "Grows across hosts").
# --quick: half the work.
scale=2
[ "$quick" = 1 ] && scale=1
rows=(
  "jacobi|6|3|6|9|--size 72 --iters $((100 * scale)) --work-ms 360 --serial-ms 5"
  "cg|3|3|3|9|--size 36 --work-ms $((225 * scale)) --serial-ms 5"
  "heat|6|3|6|9|--size 36 --iters $((100 * scale)) --work-ms 360 --serial-ms 5"
  "farm|3|3|3|9|--size $((36 * scale)) --per-round 9 --work-ms 1800 --serial-ms 5"
  "nbody|6|3|6|9|--size 72 --iters $((80 * scale)) --work-ms 360 --serial-ms 5"
)
hf3=$out/hosts3
printf 'node1 slots=3\nnode2 slots=3\nnode3 slots=3\n' >"$hf3"

run_workload() { # KIND
  local kind=$1
  bench_write_workload "$kind" "$out/$kind.json" "$jobs" 4 "${rows[@]}"
  start_morphd "$out/$kind" "$hf3"
  echo "$bench_name: $kind workload, $jobs jobs on node1..3 (load $(cut -d' ' -f1 /proc/loadavg))" >&2
  timeout 2400 $CL exec head "$bin/morph" workload run -d "$md" --app-dir "$bin" --every 30 \
    --timeout 2000 "$out/$kind.json" >"$out/log/$kind.log" 2>&1 || echo "$bench_name: $kind workload: $(tail -3 "$out/log/$kind.log")" >&2
  local dir=$md
  stop_morphd
  "$bin/morph" report -d "$dir" -o "$out/report" --prefix "$kind" -q | sed 's/^/  /'
  echo "$kind: $(grep -l '^CHECK PASSED' "$dir"/jobs/*.out 2>/dev/null | wc -l) of $jobs jobs CHECK PASSED," \
    "$(grep -c 'resize [0-9]* done' "$dir/morphd.log") resizes done, $(grep -c 'resize [0-9]* failed' "$dir/morphd.log") failed"
}

if [ "$no_workload" = 0 ]; then
  run_workload fixed
  run_workload flexible
  value() { awk -F, -v k="$2" '$1 == k { print $2 }' "$out/report/$1-summary.csv"; }
  printf "\n%-22s %12s %12s\n" "workload ($jobs jobs)" fixed flexible
  for k in completed makespan_s avg_wait_s avg_exec_s avg_completion_s allocation_rate resizes; do
    printf "%-22s %12s %12s\n" "$k" "$(value fixed "$k")" "$(value flexible "$k")"
  done
  result+=" cluster_flexible_vs_fixed_completion=$(bench_ratio "$(value fixed makespan_s)" "$(value flexible makespan_s)")"
  result+=" cluster_flexible_vs_fixed_wait=$(bench_ratio "$(value fixed avg_wait_s)" "$(value flexible avg_wait_s)")"
  result+=" jobs=$jobs"
fi
echo "files: $out"
echo "$result load=$(cut -d" " -f1 /proc/loadavg)"
