#!/usr/bin/env bash
# The same policy code gives the same decisions in morphd and in the
# simulator (issue 24): one small workload of real `morph run` jobs on
# morphd's embedded backend (4 slots), then the same workload in `morph
# sim` with each job's measured run time as its model, the same policy,
# interval and requested times. Every job must start at the same time
# within the real run's noise (decisions every 0.5 s, mpirun start-up),
# in the same order, and the jobs past their limit must be killed in both.
#   bash morphd-vs-sim.sh     (MORPH, QUERY, BIN set by CMake)
#
# The schedule, EASY with requested times: A (2 slots, ~9 s, asks 20 s)
# starts at 0; B (4 slots) waits for it, its reservation at A's limit
# (20 s); C (2 slots, ~3 s, asks 12 s) backfills at 1 (it ends before 20);
# D (2 slots, asks 60 s) may not (it would end after 20 and no slot is
# left over then); E (1 slot, would run 20 s, asks 2 s) backfills when C
# has ended and is killed at its limit; B starts when A ends, D after B.
# On a loaded machine the jobs run longer and the order may differ (then
# C may be killed too): whatever happened for real must happen in the
# simulation. A killed job's processes take a second or two to go (mpirun
# ends them) where the simulator frees its slots at once: part of the
# noise the 1.5 s allow.
set -euo pipefail
. "$(dirname "$0")/../lib/morphd-case.sh" morph-simreal

fail() {
  echo "FAIL: $*"
  [ -f "$T/morphd.log" ] && { echo "--- morphd log"; tail -30 "$T/morphd.log"; }
  exit 1
}
q() { "$QUERY" "$D/journal.db" "$1"; }

POLICY=$("$MORPH" sim --help | sed -n 's/.*--policy NAME (\([^)]*\)).*/\1/p')
job() { # NAME SUBMIT SLOTS ITERS WALLTIME
  printf '{"name": "%s", "submit": %s, "kind": "fixed", "app": "jacobi", "request": %s, ' "$1" "$2" "$3"
  printf '"args": ["--iters", "%s", "--delay-ms", "40"], "walltime": %s}' "$4" "$5"
}
{ echo '{"jobs": ['
  job A 0 2 220 20; echo ,; job B 0.5 4 60 15; echo ,; job C 1 2 50 12; echo ,
  job D 1.5 2 50 60; echo ,; job E 2 1 500 2
  echo ']}'; } > "$T/w.json"
"$MORPH" workload check "$T/w.json" > /dev/null || fail "the workload does not load"

start_daemon --slots 4 --interval 0.5 -p "$POLICY"
(cd "$T" && timeout 120 "$MORPH" workload run -d "$D" --app-dir "$BIN" w.json) > "$T/run.out" 2>&1 &&
  fail "workload run: every job completed, E was not killed: $(tail -3 "$T/run.out")"
[ "$(q "SELECT COUNT(*) FROM jobs WHERE state IN ('pending','starting','running')")" = 0 ] ||
  fail "jobs left running: $(tail -3 "$T/run.out")"
q "SELECT name, submit, start, end, state FROM jobs ORDER BY id" | tr '|' ' ' > "$T/real.txt"
grep -q "^E .* failed$" "$T/real.txt" || fail "E was not stopped: $(cat "$T/real.txt")"
q "SELECT kind FROM events WHERE job = (SELECT id FROM jobs WHERE name = 'E')" | grep -qx timeout ||
  fail "E ended without a timeout event"

# The simulated workload: submit times from the first submission, each
# job's measured run time as a one-point model at its size (a job stopped
# at its limit: longer than the limit, as it would have run), the same
# requested times.
awk 'NR == 1 { t0 = $2 } { print $1, $2 - t0, ($5 == "failed" ? 1000 : $4 - $3) }' \
  "$T/real.txt" > "$T/measured.txt"
{ echo '{"jobs": ['
  sep=
  while read -r name sub run; do
    case $name in A) n=2 wt=20 ;; B) n=4 wt=15 ;; C) n=2 wt=12 ;; D) n=2 wt=60 ;; E) n=1 wt=2 ;; esac
    printf '%s{"name": "%s", "submit": %s, "kind": "fixed", "app": "generic", "request": %s, "walltime": %s,' \
      "$sep" "$name" "$sub" "$n" "$wt"
    printf ' "model": {"type": "table", "sizes": [%s], "times": [%s], "iterations": 0}}\n' "$n" "$run"
    sep=,
  done < "$T/measured.txt"
  echo ']}'; } > "$T/sim.json"
"$MORPH" sim -n 4 -p "$POLICY" -P sizes=any -i 0.5 --estimates requested -o "$T/sim" --name s \
  "$T/sim.json" > "$T/sim.out" || fail "morph sim: $(cat "$T/sim.out")"
killed=$(grep -c " failed$" "$T/real.txt")
grep -q " $killed killed at their time limit" "$T/sim.out" ||
  fail "morphd stopped $killed job(s) at their limit, the simulator: $(grep -o '[0-9]* killed' "$T/sim.out")"

# name real_start sim_start, starts from the first submission.
tail -n +2 "$T/sim/s-jobs.csv" | awk -F, '{ print $1, $6 }' | sort > "$T/sim-starts.txt"
awk 'NR == 1 { t0 = $2 } { print $1, $3 - t0 }' "$T/real.txt" | sort > "$T/real-starts.txt"
join "$T/real-starts.txt" "$T/sim-starts.txt" > "$T/starts.txt"
echo "starts (job real sim, s):"; cat "$T/starts.txt"
[ "$(wc -l < "$T/starts.txt")" = 5 ] || fail "not 5 jobs in both"
awk '{ d = $2 - $3; if (d < -1.5 || d > 1.5) bad = bad " " $1 } END { if (bad) { print bad; exit 1 } }' \
  "$T/starts.txt" > "$T/bad" || fail "start times differ by more than 1.5 s for:$(cat "$T/bad")"
# The same order wherever the real starts are further apart than the noise.
awk '{ n[NR] = $1; r[NR] = $2; s[NR] = $3 }
     END { for (i = 1; i <= NR; i++) for (j = 1; j <= NR; j++)
             if (r[i] + 1.5 < r[j] && s[i] > s[j]) { print n[i], n[j]; exit 1 } }' \
  "$T/starts.txt" > "$T/bad" || fail "not the same order of starts: $(cat "$T/bad")"
order=$(sort -k2 -g "$T/starts.txt" | awk '{ printf "%s", $1 }')
echo "PASS: same starts within 1.5 s, same order ($order), $killed job(s) killed at their limit in both ($POLICY)"
