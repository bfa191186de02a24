#!/usr/bin/env bash
# Soak test of the reconfiguration runtime: one job of each example
# application under every (MPI, mechanism) pair that exists here, each
# resized again and again to random sizes 1..8 by a `morph run` schedule,
# its result checked at the end (CHECK PASSED: the data survived every
# resize). Open MPI runs live (spawn; relaunch once a spawn has hung) and
# relaunch alone; MPICH as packaged has
# no dynamic processes, so it runs relaunch only (docs/performance.md).
#
#   bench/soak.sh [--cycles N] [--seed S] [--build DIR]
#   bench/soak.sh --hosts N [--cycles C] [--seed S] [--build DIR]   (soak-hosts.sh)
#
# N resizes in total (default 1000), spread over the jobs; the seed
# (printed; default: the time) fixes every size. A resize that rolls back
# is allowed, but each job's rollbacks must be followed by a successful
# resize. A job that does not end within its time limit is a hang (its
# launcher's and job's output are kept under the work folder, printed).
# Last line:
#   RESULT soak_cycles=... soak_failures=... soak_hangs=... soak_rollbacks=... soak_s=...
# Exit status 0 only when there was no failure and no hang.
set -uo pipefail
# --hosts N: the cross-host soak, on an emulated cluster of its own.
for a in "$@"; do
  [ "$a" = --hosts ] || [ "${a#--hosts=}" != "$a" ] && exec bash "$(dirname "$0")/soak-hosts.sh" "$@"
done
. "$(dirname "$0")/lib.sh"
bench_init bench/soak.sh
cycles=1000 seed=$(date +%s)
bench_parse "cycles:,seed:,build:" "[--cycles N] [--seed S] [--build DIR]" "$@"
# One host: Open MPI's TCP stays on loopback. Otherwise it also uses the
# bridges that emulated clusters add and remove (scripts/cluster.sh), and a
# job whose bridge vanished stalls: the 1,000-cycle run of 23 Nov hung in an
# nbody 4 -> 5 spawn with "readv failed: Connection timed out" while other
# sessions' clusters came and went.
export OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo
# Absolute: each job runs in a folder of its own.
build=$(cd "$build" 2>/dev/null && pwd) || { echo "soak: no build folder $build" >&2; exit 2; }
bin=$build/bin
[ -x "$bin/morph-run" ] || { echo "soak: no $bin/morph-run (build first)" >&2; exit 2; }
work=$(mktemp -d /tmp/morph-soak.XXXXXX)
export MORPH_CHECKPOINT_DIR=$work
RANDOM=$seed
echo "soak: seed $seed, $cycles resizes, work folder $work"

. "$(dirname "$0")/soak-apps.sh"

# sched: k random sizes 1..8, each different from the one before (set
# here, not echoed: a subshell would not advance the seeded RANDOM). The
# last is a shrink to 1, from 2..8: a spawn that hangs in the last grow is
# rolled back like any other, and the rule "every rollback is followed by
# a successful resize" must still be checkable (a shrink spawns nothing;
# after a hung spawn it is a relaunch).
schedule() {
  local prev=$1 size i low
  sched=""
  for i in $(seq 1 "$k"); do
    size=$prev low=1
    [ "$i" -eq $((k - 1)) ] && low=2
    while [ "$size" = "$prev" ] || [ "$size" -lt $low ]; do size=$((RANDOM % 8 + 1)); done
    [ "$i" -eq "$k" ] && [ "$k" -gt 1 ] && size=1
    sched="$sched${sched:+,}$size@it$((i * STEP))"
    prev=$size
  done
}

# The report's outcomes ("ok" or an error name), one per resize.
outcomes() { awk -F, 'NR > 1 { print $9 }' "$1"; }

total=0 failures=0 hangs=0 rollbacks=0 jobs=0
# ompi:auto is live, and relaunch after a spawn that hung (a hung spawn
# thread cannot be taken back, so the runtime refuses live from then on:
# forced live could never resize again after a rollback).
combos="ompi:auto ompi:relaunch mpich:relaunch"
apps="jacobi heat cg nbody farm"
njobs=$(( $(echo $combos | wc -w) * $(echo $apps | wc -w) ))
t0=$(date +%s.%N)
n=0
for combo in $combos; do
  fl=${combo%%:*} mech=${combo#*:}
  for app in $apps; do
    k=$(( cycles / njobs + (n < cycles % njobs ? 1 : 0) ))
    n=$((n + 1))
    [ "$k" -gt 0 ] || continue
    d=$work/$n-$app-$fl-$mech
    mkdir -p "$d"
    start=$((RANDOM % 8 + 1))
    schedule "$start"
    # Generous: under load a relaunch restart took up to 24 s here; a hang
    # is a job that does not end at all, not a slow one.
    limit=$((120 + 40 * k))
    ( cd "$d" && timeout -k 10 $((limit + 20)) "$bin/morph-run" --job-id "soak-$$-$n" -n "$start" \
        --mechanism "$mech" --timeout "$limit" --report r.csv --schedule "$sched" \
        -- "$bin/$app.$fl" $(app_args "$app") > out 2> err )
    rc=$?
    jobs=$((jobs + 1))
    done_k=$(outcomes "$d/r.csv" 2>/dev/null | wc -l)
    rb=$(outcomes "$d/r.csv" 2>/dev/null | grep -vc '^ok$')
    last_ok=$(outcomes "$d/r.csv" 2>/dev/null | grep -n '^ok$' | tail -1 | cut -d: -f1)
    last_rb=$(outcomes "$d/r.csv" 2>/dev/null | grep -vn '^ok$' | tail -1 | cut -d: -f1)
    total=$((total + done_k)) rollbacks=$((rollbacks + rb))
    soak_verdict "$rc" "$d/out" "$k" "$done_k" "$last_ok" "$last_rb" "$limit"
    printf 'soak: %-7s %-6s %-9s %2d -> [%s]: %d resizes, %d rolled back: %s\n' "$app" "$fl" \
      "$mech" "$start" "$sched" "$done_k" "$rb" "$verdict"
    if [ "$verdict" != ok ]; then
      echo "  kept: $d"; tail -5 "$d/err" | sed 's/^/  | /'
    else
      rm -rf "$d"
    fi
  done
done
secs=$(echo "$(date +%s.%N) - $t0" | bc)
[ $failures -eq 0 ] && [ $hangs -eq 0 ] && rm -rf "$work"
printf 'RESULT soak_cycles=%d soak_failures=%d soak_hangs=%d soak_rollbacks=%d soak_s=%.0f\n' \
  "$total" "$failures" "$hangs" "$rollbacks" "$secs"
[ $failures -eq 0 ] && [ $hangs -eq 0 ]
