#!/usr/bin/env bash
# The cross-host soak (bench/soak.sh --hosts N runs this): on an emulated
# cluster of its own (scripts/cluster.sh, N nodes of 3 slots each), one
# job of each example application (and the DMR front-end) under Open MPI
# (auto: live, relaunch after a spawn that hung) and MPICH (relaunch), each
# resized again and again to random sizes 1..3N with random `onto` / `off`
# hosts, its result checked at the end (CHECK PASSED).
#
#   bench/soak.sh --hosts N [--cycles C] [--seed S] [--build DIR] [--instance NAME]
#
# --instance NAME runs on that instance, already up with N nodes (the
# suite's shared one): it is neither brought up nor taken down here.
#
# C resizes in total (default 500) spread over the jobs; the seed (printed)
# fixes every size and host. The schedule follows where the processes are
# (a grow puts joiners on hosts with free slots, a shrink takes leavers
# from hosts that have them, never node1's last: rank 0 lives there). A
# resize may roll back if a successful one follows; a job that outlives
# its time limit is a hang (its folder is kept under the work folder). Last
# line:
#   RESULT xsoak_cycles= xsoak_failures= xsoak_hangs= xsoak_live_share=
#          xsoak_relaunch_p95_s= xsoak_s=
# (live share: of the Open MPI resizes, those done live; relaunch p95: of
# every successful relaunch, checkpoint to restart, seconds). Exit 0 only
# without failure and hang.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
bench_init bench/soak.sh
hosts=3 cycles=500 seed=$(date +%s) instance=""
bench_parse "hosts:,cycles:,seed:,build:,instance:" "--hosts N [--cycles C] [--seed S] [--build DIR] [--instance NAME]" "$@"
build=$(cd "$build" 2>/dev/null && pwd) || { echo "soak: no build folder $build" >&2; exit 2; }
bin=$build/bin
[ -x "$bin/morph-run" ] || { echo "soak: no $bin/morph-run (build first)" >&2; exit 2; }
case $build in /tmp/*) echo "soak: the build is under /tmp, private on each host" >&2; exit 2 ;; esac
[ "$EUID" -eq 0 ] || { echo "soak --hosts: an emulated cluster needs root" >&2; exit 77; }
SLOTS=3
# The instance: --instance (up, the caller's), else $MORPH_CLUSTER (one's
# own name on a shared machine), else xsoak-PID, brought up and down here.
name=${instance:-${MORPH_CLUSTER:-xsoak-$$}}
CL="bash $root/scripts/cluster.sh --name $name"
# Not under /tmp: each host has its own.
if [ -n "$instance" ]; then
  [[ $(timeout 10 $CL status 2>/dev/null) == "cluster $name: $hosts nodes "* ]] ||
    { echo "soak: instance $name is not up with $hosts nodes" >&2; exit 1; }
  work=$(mktemp -d "$build/soak-hosts.XXXXXX")
else
  # An instance already up is someone else's run: never taken down here.
  [ -e "${MORPH_CLUSTER_ROOT:-/run/morph-cluster}/$name" ] &&
    { echo "soak: cluster instance $name exists already (another run?)" >&2; exit 1; }
  work=$(mktemp -d "$build/soak-hosts.XXXXXX")
  trap 'timeout 180 $CL down >/dev/null 2>&1 || echo "soak: instance $name not down" >&2' EXIT
  trap 'exit 130' INT TERM
  timeout 120 $CL up "$hosts" >/dev/null || { echo "soak: cluster $name did not come up" >&2; exit 1; }
fi
eval "$($CL env)"
hf=$work/hostfile
for ((h = 1; h <= hosts; h++)); do echo "node$h slots=$SLOTS"; done >"$hf"
export MORPH_CHECKPOINT_DIR=$work
RANDOM=$seed
echo "soak: seed $seed, $cycles resizes on $hosts hosts ($name), work folder $work"

. "$(dirname "$0")/soak-apps.sh"

# spread COUNT: COUNT processes over the hosts, at random, each host at
# most its entry of avail[]; "node2:1+node3:2" in $clause, cnt[] updated
# by $sign. Not in a subshell: the seeded RANDOM must advance.
spread() {
  local left=$1 h pick
  local -a got=()
  clause=""
  while [ "$left" -gt 0 ]; do
    local -a can=()
    for ((h = 1; h <= hosts; h++)); do [ "${avail[h]}" -gt "${got[h]:-0}" ] && can+=("$h"); done
    pick=${can[RANDOM % ${#can[@]}]}
    got[pick]=$(( ${got[pick]:-0} + 1 )) left=$((left - 1))
  done
  for ((h = 1; h <= hosts; h++)); do
    [ "${got[h]:-0}" -gt 0 ] || continue
    clause="$clause${clause:++}node$h:${got[h]}"
    cnt[h]=$(( cnt[h] + sign * got[h] ))
  done
}

# schedule START: k entries of random sizes 1..hosts*SLOTS with hosts
# named, following cnt[] (the processes per host); in $sched.
schedule() {
  local prev=$1 size i h change
  sched=""
  for i in $(seq 1 "$k"); do
    size=$prev
    while [ "$size" = "$prev" ]; do size=$((RANDOM % (hosts * SLOTS) + 1)); done
    change=$((size - prev))
    for ((h = 1; h <= hosts; h++)); do
      if [ $change -gt 0 ]; then avail[h]=$((SLOTS - cnt[h])); else avail[h]=$((cnt[h] - (h == 1))); fi
    done
    if [ $change -gt 0 ]; then sign=1; spread $change; word=onto; else sign=-1; spread $((-change)); word=off; fi
    sched="$sched${sched:+,}$size@it$((i * STEP)) $word $clause"
    prev=$size
  done
}

# Report rows: mechanism,outcome,seconds of a relaunch (checkpoint to restart).
rows() { awk -F, 'NR > 1 { print $7 "," $9 "," ($11 + $12 + $13 + $14) }' "$1" 2>/dev/null; }

total=0 failures=0 hangs=0 ompi_rows=0 ompi_live=0 jobs=0
: >"$work/relaunch_s"
combos="ompi:auto mpich:relaunch"
apps="jacobi heat cg nbody farm test-dmr-front-end"
njobs=$(( $(echo $combos | wc -w) * $(echo $apps | wc -w) ))
t0=$(date +%s.%N)
n=0
for combo in $combos; do
  fl=${combo%%:*} mech=${combo#*:}
  for app in $apps; do
    k=$(( cycles / njobs + (n < cycles % njobs ? 1 : 0) ))
    n=$((n + 1))
    [ "$k" -gt 0 ] && [ -x "$bin/$app.$fl" ] || continue
    d=$work/$n-$app-$fl
    mkdir -p "$d"
    start=$((RANDOM % SLOTS + 1))
    cnt=(0 "$start")
    for ((h = 2; h <= hosts; h++)); do cnt[h]=0; done
    schedule "$start"
    limit=$((150 + 40 * k))
    # shellcheck disable=SC2046
    ( cd "$d" && timeout -k 10 $((limit + 30)) $CL exec head "$bin/morph-run" --job-id "xsoak-$$-$n" \
        --hostfile "$hf" --listen '*:0' -n "$start" --mechanism "$mech" --timeout "$limit" \
        --report r.csv --schedule "$sched" -- "$bin/$app.$fl" $(app_args "$app") >out 2>err )
    rc=$?
    jobs=$((jobs + 1))
    done_k=$(rows "$d/r.csv" | wc -l)
    rb=$(rows "$d/r.csv" | grep -vc ',ok,')
    last_ok=$(rows "$d/r.csv" | grep -n ',ok,' | tail -1 | cut -d: -f1)
    last_rb=$(rows "$d/r.csv" | grep -vn ',ok,' | tail -1 | cut -d: -f1)
    rows "$d/r.csv" | awk -F, '$1 == "relaunch" && $2 == "ok" { print $3 }' >>"$work/relaunch_s"
    if [ "$fl" = ompi ]; then
      ompi_rows=$((ompi_rows + done_k))
      ompi_live=$((ompi_live + $(rows "$d/r.csv" | grep -c '^live,ok,')))
    fi
    total=$((total + done_k))
    soak_verdict "$rc" "$d/out" "$k" "$done_k" "$last_ok" "$last_rb" "$limit"
    printf 'soak: %-18s %-5s %d -> [%s]: %d resizes (%d live), %d rolled back: %s\n' "$app" "$fl" \
      "$start" "$sched" "$done_k" "$(rows "$d/r.csv" | grep -c '^live,ok,')" "$rb" "$verdict"
    if [ "$verdict" != ok ]; then
      echo "  kept: $d"; grep "morph run: \|DMR\|MPI_ABORT" "$d/err" | tail -6 | sed 's/^/  | /'
    else
      rm -rf "$d"
    fi
  done
done
secs=$(echo "$(date +%s.%N) - $t0" | bc)
share=$(bench_ratio "$ompi_live" "$ompi_rows")
p95=$(sort -g "$work/relaunch_s" | awk '{ v[NR] = $1 } END { if (!NR) { print 0; exit }
  i = int(0.95 * NR + 0.999); if (i < 1) i = 1; printf "%.2f", v[i] }')
[ $failures -eq 0 ] && [ $hangs -eq 0 ] && rm -rf "$work"
printf 'RESULT xsoak_cycles=%d xsoak_failures=%d xsoak_hangs=%d xsoak_live_share=%s xsoak_relaunch_p95_s=%s xsoak_s=%.0f\n' \
  "$total" "$failures" "$hangs" "$share" "$p95" "$secs"
[ $failures -eq 0 ] && [ $hangs -eq 0 ]
