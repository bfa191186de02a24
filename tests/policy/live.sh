#!/usr/bin/env bash
# Policies on live measurements, one ctest test per case:
#   bash live.sh <case>     (MORPH, QUERY, BIN set by CMake)
# Each case runs a real morphd (embedded backend) in its own temporary
# folder with real MPI jobs whose MPI time libmorph measures, and stops the
# daemon, its jobs and their process groups on exit, whatever happens.
set -euo pipefail
. "$(dirname "$0")/../lib/morphd-case.sh" morph-live

q() { "$QUERY" "$D/journal.db" "$1"; }

fail() {
  echo "FAIL: $*"
  [ -f "$D/journal.db" ] && { echo "--- sizes (job t size)"; q "SELECT job, t, size FROM sizes ORDER BY t" | tr '\n' ' '; echo; }
  [ -f "$T/morphd.log" ] && { echo "--- morphd log"; tail -40 "$T/morphd.log"; }
  exit 1
}

# wait_for SECONDS SQL: polls the journal until SQL prints 1.
wait_for() {
  local until=$((SECONDS + $1))
  while [ $SECONDS -lt "$until" ]; do
    [ "$(q "$2" 2>/dev/null)" = 1 ] && return 0
    sleep 0.3
  done
  fail "timed out waiting for [$2]"
}

# measured ID: "size MTCT" of job ID as morphd's status reports them
# (MTCT = MPI time / iteration time, from libmorph's PROGRESS; empty until
# the job has reported both).
measured() {
  "$MORPH" status -d "$D" --json | python3 -c '
import json, sys
for j in json.load(sys.stdin).get("jobs", []):
    if j.get("id") == int(sys.argv[1]) and j.get("iter_time", 0) > 0 and j.get("mpi_time", -1) >= 0:
        print(j["size"], "%.3f" % (j["mpi_time"] / j["iter_time"]))' "$1"
}

submit() { "$MORPH" submit -d "$D" -q "$@"; }
passed() { grep -q "^CHECK PASSED" "$D/jobs/$1.out" || fail "job $1 did not pass its check: $(tail -5 "$D/jobs/$1.out" "$D/jobs/$1.err")"; }

# edmr+easy on two malleable jobs sharing 6 slots. A (jacobi) has a serial
# part its other ranks wait for in MPI_Barrier, so its measured MPI time /
# iteration time (MTCT) is 80 / (80 + 240/P): 0.57 on 4 slots, above
# mtct_upper (0.5). B (heat) is all parallel work, MTCT near 0, below
# mtct_lower (0.2). B starts on the 2 free slots; nothing waits, so the
# only reason to move slots is efficiency: A must shrink to 2 on its
# measurement and B must then grow 2 -> 4 on the freed slots; both results
# correct.
case_edmr_shrinks_falling_efficiency_job_for_better_one() {
  start_daemon --slots 6 --interval 2 -p edmr+easy --param sched_period=4
  a=$(submit --min 1 --pref 2 --max 6 -n 4 -J A "$BIN/jacobi.ompi" --size 64 --iters 400 \
        --work-ms 240 --serial-ms 80)
  local until=$((SECONDS + 60)) m= mtct=
  while [ -z "$m" ] && [ $SECONDS -lt $until ]; do m=$(measured "$a"); sleep 0.5; done
  [ -n "$m" ] || fail "A's MPI time was never measured"
  b=$(submit --min 1 --pref 2 --max 4 -n 2 -J B "$BIN/heat.ompi" --size 32 --iters 200 \
        --work-ms 400 --serial-ms 0)
  wait_for 60 "SELECT state = 'running' FROM jobs WHERE id = $b"
  # A's last measurement on more than 2 slots while B runs: what the
  # policy saw when it took A's slots.
  until=$((SECONDS + 120))
  while [ $SECONDS -lt $until ]; do
    m=$(measured "$a")
    [ -n "$m" ] && [ "${m% *}" -gt 2 ] && mtct=${m#* }
    [ "$(q "SELECT size FROM jobs WHERE id = $b")" = 4 ] && break
    sleep 0.5
  done
  [ -n "$mtct" ] || fail "A was never measured on more than 2 slots while B ran"
  awk -v m="$mtct" 'BEGIN { exit !(m > 0.5) }' || fail "A's measured MTCT was $mtct, not above 0.5"
  # The shrink taken for efficiency: decided after B started (nothing
  # waiting then), A down to 2; B's expansion decided after it was done.
  local shrink="FROM resizes WHERE job = $a AND op = 'shrink' AND state = 'done' AND new_size = 2
                AND decided >= (SELECT start FROM jobs WHERE id = $b)"
  wait_for 10 "SELECT COUNT(*) > 0 $shrink"
  wait_for 10 "SELECT COUNT(*) > 0 FROM resizes WHERE job = $b AND op = 'expand' AND state = 'done'
               AND new_size = 4 AND decided >= (SELECT MIN(done) $shrink)"
  [ "$(q "SELECT COUNT(*) FROM resizes WHERE job = $a AND op = 'expand'
          AND decided >= (SELECT start FROM jobs WHERE id = $b)")" = 0 ] \
    || fail "A grew while B ran, although its MTCT was above mtct_lower"
  wait_for 240 "SELECT COUNT(*) = 0 FROM jobs WHERE state IN ('pending', 'starting', 'running')"
  [ "$(q "SELECT state FROM jobs ORDER BY id" | tr '\n' ' ')" = "completed completed " ] || fail "states"
  passed "$a"; passed "$b"
  echo "PASS: A's measured MTCT $mtct; A shrank to 2 while B ran, B grew 2 -> 4 on the freed slots"
}

"case_$1"
