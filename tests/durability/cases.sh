#!/usr/bin/env bash
# Durability of morphd (journal first, then act), one ctest test per case:
#   bash cases.sh crash POINT   morphd killed at a crash point, restarted
#   bash cases.sh disk_full     the journal's file system full after start
# MORPH, QUERY, BIN are set by CMake. Each case runs a real morphd in its
# own folder (mode 0700) and stops the daemons, jobs and process groups it
# started on exit, whatever happens. bench/crash-points.sh runs the crash
# case for every point.
set -euo pipefail
. "$(dirname "$0")/../lib/morphd-case.sh" morph-durable

q() { "$QUERY" "${J:-$D/journal.db}" "$1"; }

# Besides the library's cleanup: the morph runs named by start markers
# (a job whose pid the journal never got) and their process groups.
cleanup_all() {
  for m in "$D"/jobs/*.started; do
    [ -f "$m" ] && kill -9 -- "-$(cut -d' ' -f1 "$m")" 2>/dev/null || true
  done
  cleanup
}
trap cleanup_all EXIT

# submit NAME ARGS... -- JOB_ARGS...: submits a fake job named NAME whose
# rank 0 writes one line (its pid) to $T/NAME.starts each time it starts,
# so a job started twice shows two; prints the id.
submit() {
  local name=$1 opts=()
  shift
  while [ $# -gt 0 ] && [ "$1" != -- ]; do opts+=("$1"); shift; done
  shift
  mkdir -p "$T/$name.fj"
  : >> "$T/$name.starts"
  "$MORPH" submit -d "$D" -q -J "$name" "${opts[@]}" "$BIN/fake-job" --state "$T/$name.fj" \
    --starts "$T/$name.starts" "$@"
}

# The daemon started with the crash point must die there (SIGKILL).
wait_crash() {
  for _ in $(seq 300); do
    kill -0 "$daemon_pid" 2>/dev/null || { wait "$daemon_pid" 2>/dev/null || true; return 0; }
    sleep 0.1
  done
  fail "morphd did not stop at $1"
}

# Every job of the journal is one of NAMES, completed, started exactly
# once; each of NAMES is there; the journal is intact, the books never
# disagreed, and morph report shows the same jobs.
check_jobs() {
  local names="$*" n=0
  for name in $names; do
    [ "$(q "SELECT state FROM jobs WHERE name = '$name'")" = completed ] ||
      fail "job $name: $(q "SELECT id, state, note FROM jobs WHERE name = '$name'") (lost or not completed)"
    [ "$(wc -l < "$T/$name.starts")" = 1 ] || fail "job $name started $(wc -l < "$T/$name.starts") times"
    n=$((n + 1))
  done
  [ "$(q "SELECT COUNT(*) FROM jobs")" = "$n" ] || fail "jobs: $(q "SELECT id, name, state FROM jobs")"
  [ "$(q "PRAGMA integrity_check")" = ok ] || fail "journal: $(q "PRAGMA integrity_check")"
  [ "$(q "SELECT COUNT(*) FROM events WHERE kind = 'invariant'")" = 0 ] || fail "books: $(q "SELECT text FROM events WHERE kind = 'invariant'")"
  "$MORPH" report -d "$D" -o "$T/rep" --no-plots > "$T/report.txt" || fail "report"
  [ "$(tail -n +2 "$T/rep/morphd-jobs.csv" | cut -d, -f4 | sort | uniq -c | awk '{ print $1, $2 }')" = "$n completed" ] ||
    fail "report: $(cat "$T/rep/morphd-jobs.csv")"
}

# A submission, then the start of the job: one rigid job; after the
# restart a second one. The first is answered (and must exist) unless the
# crash came before the answer; journaled unless it came first of all.
crash_submit_or_start() {
  local point=$1 rc=0 expect="one two"
  MORPH_TEST_CRASH_AT=$point start_daemon --slots 2 --interval 0.2
  submit one -n 1 -- --iters 80 --iter-ms 50 > "$T/one.id" 2> "$T/one.err" || rc=$?
  wait_crash "$point"
  case $point in
    submit-received) [ $rc != 0 ] || fail "answered although morphd died first"; expect=two ;;
    submit-journaled) [ $rc != 0 ] || fail "answered although morphd died before answering" ;;
    *) [ $rc = 0 ] || fail "not answered: $(cat "$T/one.err")" ;;
  esac
  start_daemon --slots 2 --interval 0.2
  submit two -n 1 -- --iters 20 --iter-ms 50 > /dev/null
  journal_wait 90 "SELECT COUNT(*) FROM jobs WHERE state IN ('pending','starting','running')" 0
  check_jobs $expect
}

# A malleable job grown to the 4 slots, then a rigid job that needs 2:
# the decision shrinks the first and starts the second once the shrink's
# slots are free, the point being a step of that.
crash_shrink() {
  local point=$1
  MORPH_TEST_CRASH_AT=$point start_daemon --slots 4 --interval 0.2 --resize-timeout 5
  submit big --min 1 --pref 1 --max 4 -n 2 -- --iters 320 --iter-ms 50 > /dev/null
  journal_wait 60 "SELECT size FROM jobs WHERE name = 'big'" 4
  submit small -n 2 -- --iters 40 --iter-ms 50 > /dev/null
  wait_crash "$point"
  start_daemon --slots 4 --interval 0.2 --resize-timeout 5
  journal_wait 120 "SELECT COUNT(*) FROM jobs WHERE state IN ('pending','starting','running')" 0
  check_jobs big small
}

case_crash() {
  [ -x "$BIN/fake-job" ] || { echo "SKIP: no fake-job"; exit 77; }
  mkdir -m 0700 "$D"
  case $1 in
    submit-*|start-*) crash_submit_or_start "$1" ;;
    *) crash_shrink "$1" ;;
  esac
  echo "PASS: killed at $1, restarted: every job once, none lost, journal intact"
}

# counted STATE: how many jobs morphd itself (from memory) counts in STATE.
counted() {
  "$MORPH" status -d "$D" --all --json |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["counts"][sys.argv[1]])' "$1"
}

# fill: the tmpfs of the journal full (dd until it stops).
fill() { dd if=/dev/zero of="$T/m/fill" bs=4k > /dev/null 2>&1 || true; }

# The journal (--journal) on a small tmpfs, filled once two jobs run: a
# submission is refused naming the journal and the reason, the jobs run to
# their end, and once there is room again their ends are in the journal,
# and after a restart in morph status and morph report. A morphd started
# on the full file system says so in a sentence.
case_disk_full() {
  [ "$(id -u)" = 0 ] || { echo "SKIP: needs root to mount a tmpfs"; exit 77; }
  [ -x "$BIN/fake-job" ] || { echo "SKIP: no fake-job"; exit 77; }
  mkdir -m 0700 "$D" "$T/m"
  mount -t tmpfs -o size=16m,mode=0700 morph-durable "$T/m" || { echo "SKIP: cannot mount a tmpfs"; exit 77; }
  trap 'KEEP=1 cleanup_all; umount "$T/m" 2>/dev/null || umount -l "$T/m"; [ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
  J=$T/m/journal.db
  start_daemon --slots 4 --interval 0.2 --journal "$J"
  a=$(submit a -n 2 -- --iters 100 --iter-ms 50)
  b=$(submit b -n 1 -- --iters 140 --iter-ms 50)
  journal_wait 30 "SELECT COUNT(*) FROM jobs WHERE state = 'running'" 2
  fill
  if out=$(submit c -n 1 -- --iters 5 2>&1); then fail "submitted with the journal's disk full: $out"; fi
  echo "$out" | grep -q "journal $J: .*: disk full; the job is not submitted" ||
    fail "message: $out"
  for _ in $(seq 100); do [ "$(counted running)" = 0 ] && break; sleep 0.3; done
  [ "$(counted completed)" = 2 ] || fail "the running jobs did not finish: $("$MORPH" status -d "$D")"
  [ "$(q "SELECT COUNT(*) FROM jobs WHERE state = 'running'")" = 2 ] || fail "ends written to a full disk?"
  rm -f "$T/m/fill"
  journal_wait 20 "SELECT COUNT(*) FROM jobs WHERE state = 'completed'" 2
  [ "$(grep -c "disk full. New jobs are refused" "$T/morphd.log")" = 1 ] && [ "$(grep -c "can be written again" "$T/morphd.log")" = 1 ] ||
    fail "the log does not say once each that the journal failed and recovered"
  c=$(submit c -n 1 -- --iters 5 --iter-ms 50)
  journal_wait 30 "SELECT state FROM jobs WHERE id = $c" completed
  "$MORPH" daemon -d "$D" --stop > /dev/null
  start_daemon --slots 4 --interval 0.2 --journal "$J"
  [ "$(counted completed)" = 3 ] || fail "status after the restart: $("$MORPH" status -d "$D" --all)"
  "$MORPH" report --journal "$J" -o "$T/rep" --no-plots > /dev/null || fail "report"
  [ "$(tail -n +2 "$T/rep/morphd-jobs.csv" | cut -d, -f4 | sort | uniq -c | awk '{ print $1, $2 }')" = "3 completed" ] ||
    fail "report after the restart: $(cat "$T/rep/morphd-jobs.csv")"
  "$MORPH" daemon -d "$D" --stop > /dev/null
  fill
  if out=$("$MORPH" daemon -d "$D" --journal "$T/m/new.db" 2>&1); then fail "started on a full disk"; fi
  echo "$out" | grep -q "^morph daemon: journal $T/m/new.db: .*: disk full" ||
    fail "start on a full disk: $out"
  echo "PASS: refused: $(echo "$out" | head -1)"
}

"case_$1" "${@:2}"
