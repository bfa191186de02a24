#!/usr/bin/env bash
# End-to-end and fault cases of morphd, one per ctest test:
#   bash cases.sh <case>     (MORPH, QUERY, BIN set by CMake)
# Each case runs a real morphd in its own temporary folder and stops it,
# its jobs and their process groups on exit, whatever happens.
set -euo pipefail
. "$(dirname "$0")/../lib/morphd-case.sh" morphd-test

q() { "$QUERY" "$D/journal.db" "$1"; }

# wait_for SECONDS SQL EXPECTED: polls the journal until SQL prints EXPECTED.
wait_for() {
  local until=$((SECONDS + $1))
  while [ $SECONDS -lt "$until" ]; do
    [ "$(q "$2" 2>/dev/null)" = "$3" ] && return 0
    sleep 0.3
  done
  fail "timed out waiting for [$2] = $3 (got '$(q "$2" 2>/dev/null)')"
}

all_final() { wait_for "$1" "SELECT COUNT(*) FROM jobs WHERE state IN ('pending','starting','running')" 0; }
submit() { "$MORPH" submit -d "$D" -q "$@"; }
passed() { grep -q "^CHECK PASSED" "$D/jobs/$1.out" || fail "job $1 did not pass its check: $(cat "$D/jobs/$1.out" "$D/jobs/$1.err" | tail -5)"; }

# Malleable job grows into free slots, shrinks for a rigid job (which starts
# only after the shrink completed), both finish with correct results, and
# morph report's numbers are the journal's.
case_e2e_malleable_grow_shrink_report() {
  start_daemon --slots 4 --interval 0.5
  a=$(submit --min 1 --pref 1 --max 4 -n 1 -J grow "$BIN/jacobi.ompi" --iters 500 --delay-ms 40)
  wait_for 60 "SELECT size FROM jobs WHERE id = $a" 4
  b=$(submit -n 2 -J rigid "$BIN/jacobi.ompi" --iters 100 --delay-ms 40)
  all_final 150
  [ "$(q "SELECT state FROM jobs ORDER BY id" | tr '\n' ' ')" = "completed completed " ] || fail "states"
  [ "$(q "SELECT COUNT(*) > 0 FROM resizes WHERE job = $a AND op = 'expand' AND state = 'done'")" = 1 ] || fail "no expansion"
  [ "$(q "SELECT COUNT(*) > 0 FROM resizes WHERE job = $a AND op = 'shrink' AND state = 'done'")" = 1 ] || fail "no shrink"
  [ "$(q "SELECT (SELECT start FROM jobs WHERE id = $b) >= (SELECT MIN(done) FROM resizes
         WHERE job = $a AND op = 'shrink' AND state = 'done')")" = 1 ] || fail "rigid job started before the shrink completed"
  passed "$a"; passed "$b"
  "$MORPH" report -d "$D" -o "$T/rep" --no-plots > "$T/report.txt" || fail "report"
  # jobs CSV: name,app,kind,state,submit,start,end,wait,exec,completion,first,last,max,resizes,...
  q "SELECT id, start - submit, end - start, (SELECT COUNT(*) FROM resizes r WHERE r.job = jobs.id
     AND r.op IN ('expand','shrink') AND r.state = 'done') FROM jobs ORDER BY id" | tr '|' ' ' > "$T/journal.txt"
  tail -n +2 "$T/rep/morphd-jobs.csv" | awk -F, '{ split($1, n, ":"); print n[1], $8, $9, $14 }' > "$T/csv.txt"
  paste -d' ' "$T/journal.txt" "$T/csv.txt" | awk '{
      if ($1 != $5 || ($2 - $6) > 0.01 || ($6 - $2) > 0.01 || ($3 - $7) > 0.01 || ($7 - $3) > 0.01 || $4 != $8) bad = 1 }
      END { exit bad }' || fail "report disagrees with the journal: $(paste "$T/journal.txt" "$T/csv.txt")"
  grep -q "2 completed" "$T/report.txt" || fail "report totals: $(cat "$T/report.txt")"
  # Not a Slurm journal: slots, each a quarter of the one node (100 W idle).
  grep -q "^morphd: 2 jobs" "$T/report.txt" || fail "title: $(head -n 3 "$T/report.txt")"
  grep -q "idle 25.0 W, loaded 85.0 W per slot" "$T/report.txt" ||
    fail "energy per slot: $(grep energy "$T/report.txt")"
  echo "PASS: grew, shrank, correct results, report = journal"
}

# A malformed workload file: the error names the file, the line and the field.
case_bad_workload_names_line_and_field() {
  cat > "$T/w.json" << 'EOF2'
{"jobs": [
  {"submit": 0, "kind": "malleable", "app": "jacobi", "min": 1, "pref": 1, "max": 2},
  {"submit": 5,
   "kind": "elastic", "app": "cg", "min": 1, "pref": 1, "max": 2}
]}
EOF2
  set +e
  out=$("$MORPH" workload run -d "$T/none" "$T/w.json" 2>&1); rc=$?
  set -e
  [ $rc = 2 ] || fail "exit status $rc, expected 2: $out"
  echo "$out" | grep -q "w.json:4: jobs\[1\].kind: unknown kind 'elastic'" || fail "message: $out"
  echo "PASS: $out"
}

# A request no pool can ever hold is refused at once; the daemon goes on.
case_impossible_request_rejected() {
  start_daemon --slots 2 --interval 0.5
  set +e
  out=$("$MORPH" submit -d "$D" -n 5 "$BIN/jacobi.ompi" 2>&1); rc=$?
  set -e
  [ $rc = 1 ] || fail "exit status $rc: $out"
  echo "$out" | grep -q "needs at least 5 slots; the pool has 2" || fail "message: $out"
  [ "$(q "SELECT state FROM jobs WHERE id = 1")" = rejected ] || fail "not recorded as rejected"
  b=$(submit -n 1-5 "$BIN/jacobi.ompi" --iters 20)
  all_final 60
  [ "$(q "SELECT state || ' ' || size FROM jobs WHERE id = $b")" = "completed 2" ] || fail "moldable job"
  passed "$b"
  echo "PASS: $out"
}

# Unknown job id, and no daemon at all: clear errors, exit status 1.
case_unknown_job_id_and_unreachable_daemon() {
  start_daemon --slots 2
  set +e
  out=$("$MORPH" cancel -d "$D" 999 2>&1); rc=$?
  out2=$("$MORPH" status -d "$T/nowhere" 2>&1); rc2=$?
  set -e
  [ $rc = 1 ] && echo "$out" | grep -q "no job with id 999" || fail "cancel: $rc $out"
  [ $rc2 = 1 ] && [ "$out2" = "morph: cannot reach morphd at $T/nowhere/morphd.sock: is it running? (morph daemon --help)" ] ||
    fail "unreachable: $rc2 $out2"
  echo "PASS: $out / $out2"
}

# The backend is chosen with --backend: one not built yet, or an unknown
# name, is a clear error before anything starts.
case_daemon_backend_choice_errors() {
  set +e
  out=$(env -u SLURM_CONF "$MORPH" daemon -d "$D" --backend slurm 2>&1); rc=$?
  out2=$("$MORPH" daemon -d "$D" --backend pbs 2>&1); rc2=$?
  set -e
  [ $rc = 1 ] && echo "$out" | grep -qE "the slurm backend (needs SLURM_CONF|is not built)" || fail "slurm: $rc $out"
  [ $rc2 = 2 ] && [ "$out2" = "morph daemon: unknown backend 'pbs' (embedded, slurm)" ] || fail "pbs: $rc2 $out2"
  [ ! -e "$D/morphd.sock" ] && [ ! -e "$D/journal.db" ] || fail "left a socket or a journal behind"
  start_daemon --slots 2 --backend embedded
  "$MORPH" status -d "$D" | grep -q "embedded backend" || fail "status does not name the backend"
  echo "PASS: $out / $out2"
}

# A job that crashes is recorded as failed, its slots return, the next runs.
case_job_crash_frees_slots() {
  start_daemon --slots 2 --interval 0.5
  [ -x "$BIN/fake-job" ] || { echo "SKIP: no fake-job"; exit 77; }
  a=$(submit --min 1 --pref 2 --max 2 -n 2 "$BIN/fake-job" --state "$T/fj" --iters 50 --iter-ms 100 --crash-at 5)
  b=$(submit -n 2 "$BIN/jacobi.ompi" --iters 20)
  all_final 90
  [ "$(q "SELECT state, exit_status != 0 FROM jobs WHERE id = $a")" = "failed|1" ] || fail "crash: $(q "SELECT * FROM jobs WHERE id = $a")"
  [ "$(q "SELECT state FROM jobs WHERE id = $b")" = completed ] || fail "next job"
  passed "$b"
  "$MORPH" status -d "$D" | grep -q "2 slots (2 free)" || fail "slots not freed"
  echo "PASS"
}

# A reconfiguration that fails leaves the job at its old size; the policy
# stops after max_failed_resizes (3) failures instead of retrying forever.
case_failed_resize_keeps_size_no_endless_retry() {
  [ -x "$BIN/fake-job" ] || { echo "SKIP: no fake-job"; exit 77; }
  start_daemon --slots 4 --interval 0.2
  a=$(submit --min 1 --pref 2 --max 4 -n 2 "$BIN/fake-job" --state "$T/fj" --iters 60 --iter-ms 100 --refuse-size 4)
  all_final 90
  [ "$(q "SELECT COUNT(*) FROM resizes WHERE job = $a AND op = 'expand' AND state = 'failed'")" = 3 ] ||
    fail "failed expansions: $(q "SELECT id, op, to_size, state, text FROM resizes WHERE job = $a")"
  [ "$(q "SELECT COUNT(*) FROM resizes WHERE job = $a AND state = 'done' AND op != 'start'")" = 0 ] || fail "a resize succeeded"
  [ "$(q "SELECT state || ' ' || size || ' ' || failed_resizes FROM jobs WHERE id = $a")" = "completed 2 3" ] ||
    fail "job: $(q "SELECT state, size, failed_resizes FROM jobs WHERE id = $a")"
  echo "PASS"
}

# A job that never answers a grow: after --resize-timeout each try fails
# as timed out, the job keeps its size, the slots of the grow go back (a
# rigid job submitted then starts beside it), the report names the failures.
case_unanswered_grow_times_out_slots_given_back() {
  [ -x "$BIN/fake-job" ] || { echo "SKIP: no fake-job"; exit 77; }
  start_daemon --slots 4 --interval 0.2 --resize-timeout 2
  a=$(submit --min 1 --pref 2 --max 4 -n 2 "$BIN/fake-job" --state "$T/fj" --iters 400 --iter-ms 100 --silent-size 4)
  wait_for 60 "SELECT COUNT(*) FROM resizes WHERE job = $a AND op = 'expand' AND state = 'failed'" 3
  [ "$(q "SELECT DISTINCT outcome || ' ' || text FROM resizes WHERE job = $a AND op = 'expand'")" = \
    "-5 the job did not answer within 2 s" ] || fail "resizes: $(q "SELECT * FROM resizes WHERE job = $a")"
  [ "$(q "SELECT state || ' ' || size FROM jobs WHERE id = $a")" = "running 2" ] || fail "job a"
  b=$(submit -n 2 "$BIN/jacobi.ompi" --iters 20)
  wait_for 30 "SELECT state FROM jobs WHERE id = $b" completed
  [ "$(q "SELECT state FROM jobs WHERE id = $a")" = running ] || fail "b did not run beside a"
  passed "$b"
  "$MORPH" cancel -d "$D" "$a" > /dev/null
  all_final 60
  [ "$(q "SELECT COUNT(*) FROM events WHERE kind = 'invariant'")" = 0 ] || fail "books: $(q "SELECT text FROM events WHERE kind = 'invariant'")"
  "$MORPH" status -d "$D" | grep -q "4 slots (4 free)" || fail "slots not all free: $("$MORPH" status -d "$D")"
  "$MORPH" report -d "$D" -o "$T/rep" --no-plots > "$T/report.txt" || fail "report"
  [ "$(grep -c "expand 2 -> 4 at .*: MORPH_ETIMEDOUT: the job did not answer within 2 s" "$T/report.txt")" = 3 ] ||
    fail "report: $(cat "$T/report.txt")"
  echo "PASS: 3 grows timed out, size 2 kept, slots given back"
}

# A job that never answers a shrink: the shrink times out, the job keeps
# its size and its slots, so the rigid job that wanted them waits for its end.
case_unanswered_shrink_times_out_job_keeps_slots() {
  [ -x "$BIN/fake-job" ] || { echo "SKIP: no fake-job"; exit 77; }
  start_daemon --slots 4 --interval 0.2 --resize-timeout 2
  a=$(submit --min 1 --pref 2 --max 4 -n 4 "$BIN/fake-job" --state "$T/fj" --iters 100 --iter-ms 100 --silent-size 2)
  wait_for 30 "SELECT state FROM jobs WHERE id = $a" running
  b=$(submit -n 2 "$BIN/jacobi.ompi" --iters 20)
  wait_for 60 "SELECT COUNT(*) > 0 FROM resizes WHERE job = $a AND op = 'shrink' AND state = 'failed' AND outcome = -5" 1
  all_final 90
  [ "$(q "SELECT COUNT(*) FROM resizes WHERE job = $a AND op = 'shrink' AND state = 'done'")" = 0 ] || fail "a shrink succeeded"
  [ "$(q "SELECT MAX(size) = 4 AND MIN(size) IN (0, 4) FROM sizes WHERE job = $a")" = 1 ] || fail "sizes: $(q "SELECT size FROM sizes WHERE job = $a")"
  [ "$(q "SELECT (SELECT start FROM jobs WHERE id = $b) >= (SELECT end FROM jobs WHERE id = $a)")" = 1 ] ||
    fail "b started on slots a still held"
  [ "$(q "SELECT COUNT(*) FROM events WHERE kind = 'invariant'")" = 0 ] || fail "books"
  passed "$b"
  echo "PASS: shrink timed out, size 4 kept, b waited for the end of a"
}

# A job that answers a grow only after the timeout: the resize is closed as
# timed out, the late answer is journaled as a 'late' event and changes
# nothing (size, books).
case_late_ack_after_timeout_only_journaled() {
  [ -x "$BIN/fake-job" ] || { echo "SKIP: no fake-job"; exit 77; }
  start_daemon --slots 4 --interval 0.2 --resize-timeout 2 --param max_failed_resizes=1
  a=$(submit --min 1 --pref 2 --max 4 -n 2 "$BIN/fake-job" --state "$T/fj" --iters 120 --iter-ms 100 --late-size 4 --late-ms 4000)
  wait_for 60 "SELECT COUNT(*) FROM events WHERE job = $a AND kind = 'late'" 1
  [ "$(q "SELECT outcome FROM resizes WHERE job = $a AND op = 'expand'")" = -5 ] || fail "resize: $(q "SELECT * FROM resizes WHERE job = $a")"
  q "SELECT text FROM events WHERE job = $a AND kind = 'late'" | grep -q "after its timeout: .*size 2 -> 2" ||
    fail "late event: $(q "SELECT text FROM events WHERE job = $a AND kind = 'late'")"
  [ "$(q "SELECT size FROM jobs WHERE id = $a")" = 2 ] || fail "size changed"
  all_final 90
  [ "$(q "SELECT COUNT(*) FROM events WHERE kind = 'invariant'")" = 0 ] || fail "books"
  echo "PASS: late ACK journaled, nothing changed"
}

# morphd killed (SIGKILL) with a job running: the job goes on at its size;
# a new morphd on the same folder reattaches it and records its end.
case_killed_daemon_job_continues_and_reattaches() {
  start_daemon --slots 4 --interval 0.5
  a=$(submit --min 1 --pref 2 --max 2 -n 2 "$BIN/jacobi.ompi" --iters 400 --delay-ms 40)
  wait_for 30 "SELECT state FROM jobs WHERE id = $a" running
  sleep 3
  pid=$(q "SELECT pid FROM jobs WHERE id = $a")
  kill -9 "$daemon_pid"; wait "$daemon_pid" 2>/dev/null || true
  sleep 4
  kill -0 "$pid" 2>/dev/null || fail "the job died with morphd"
  start_daemon --slots 4 --interval 0.5
  wait_for 20 "SELECT COUNT(*) FROM events WHERE job = $a AND kind = 'reattach'" 1
  b=$(submit -n 2 "$BIN/jacobi.ompi" --iters 20)
  all_final 120
  [ "$(q "SELECT COUNT(*), MIN(state), MIN(exit_status) FROM jobs WHERE id = $a")" = "1|completed|0" ] || fail "job record"
  [ "$(q "SELECT state FROM jobs WHERE id = $b")" = completed ] || fail "job after restart"
  passed "$a"; passed "$b"
  echo "PASS"
}

# Many jobs and decisions every 0.1 s: starts waiting for shrinks, expansions
# in flight and periodic decisions compete for slots; no slot is ever held
# twice (the daemon checks its books after every decision) and every job
# finishes correctly.
case_racing_decisions_never_double_book() {
  start_daemon --slots 4 --interval 0.1
  for i in 1 2 3 4 5 6; do
    submit --min 1 --pref 1 --max 3 -n 1 "$BIN/jacobi.ompi" --iters 120 --delay-ms 25 > /dev/null
  done
  submit -n 2 "$BIN/jacobi.ompi" --iters 60 --delay-ms 25 > /dev/null
  for _ in $(seq 120); do
    "$MORPH" status -d "$D" --json | awk '/"slots": [0-9]/ { s = $2 } /"used"/ { u = $2 }
      END { if (u + 0 > s + 0) exit 1 }' || fail "more slots used than exist"
    [ "$(q "SELECT COUNT(*) FROM jobs WHERE state IN ('pending','starting','running')")" = 0 ] && break
    sleep 0.5
  done
  all_final 120
  [ "$(q "SELECT COUNT(*) FROM events WHERE kind = 'invariant'")" = 0 ] || fail "double booking: $(q "SELECT text FROM events WHERE kind = 'invariant' LIMIT 3")"
  [ "$(q "SELECT COUNT(*) FROM jobs WHERE state = 'completed'")" = 7 ] || fail "not all completed"
  for id in $(q "SELECT id FROM jobs"); do passed "$id"; done
  echo "PASS: $(q "SELECT COUNT(*) FROM resizes WHERE op != 'start'") resizes, no double booking"
}

# listen ADDR PORT: a node's sshd stand-in that accepts and closes every
# connection (a heartbeat answered), in the background; its PID in $!.
listen() {
  python3 -c 'import socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], int(sys.argv[2]))); s.listen(64)
while True: s.accept()[0].close()' "$1" "$2" &
}

# Node monitoring: two nodes (127.0.0.1, 127.0.0.2) answer heartbeats on a
# port of their own; the second stops answering, its outage probability
# rises past the placement's threshold (journaled: nodes table, a 'node'
# event) and it is drained; a morphd restarted on the same journal goes on
# from the journaled window (failing before its first new heartbeat).
case_heartbeat_missed_node_rises_journaled_survives_restart() {
  port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  listen 127.0.0.1 "$port"; l1=$!
  listen 127.0.0.2 "$port"; l2=$!
  trap 'kill $l1 $l2 2>/dev/null || true; cleanup' EXIT
  for _ in $(seq 100); do # python starts slowly under load
    (exec 3<>"/dev/tcp/127.0.0.1/$port" && exec 4<>"/dev/tcp/127.0.0.2/$port") 2>/dev/null && break
    sleep 0.1
  done
  printf '127.0.0.1 slots=2\n127.0.0.2 slots=2\n' > "$T/hosts"
  beat=(--hostfile "$T/hosts" --placement tofa --topology "$T/hosts" --place-param threshold=0.3
        --heartbeat 0.3 --heartbeat-port "$port" --heartbeat-window 10 --interval 0.5)
  start_daemon "${beat[@]}"
  wait_for 20 "SELECT COUNT(*) FROM nodes WHERE beats LIKE '%000' AND p = 0" 2
  kill "$l2"; wait "$l2" 2>/dev/null || true
  wait_for 20 "SELECT COUNT(*) FROM events WHERE kind = 'node' AND text LIKE '127.0.0.2:%failing, draining%'" 1
  p=$(q "SELECT p FROM nodes WHERE host = '127.0.0.2'")
  awk -v p="$p" 'BEGIN { exit !(p >= 0.3) }' || fail "p of the silent node is $p"
  [ "$(q "SELECT p FROM nodes WHERE host = '127.0.0.1'")" = 0.0 ] || fail "the answering node's p rose"
  "$MORPH" status -d "$D" --json | grep -q '"draining"' || fail "the failing node is not drained: $("$MORPH" status -d "$D")"
  kill -9 "$daemon_pid"; wait "$daemon_pid" 2>/dev/null || true
  before=$(q "SELECT MAX(id) FROM events")
  start_daemon "${beat[@]}"
  # Written while the restarted morphd set up, before its 'started' event.
  first=$(q "SELECT MIN(id) FROM events WHERE id > $before AND kind = 'node' AND text LIKE '127.0.0.2:%failing, draining%'")
  started=$(q "SELECT MIN(id) FROM events WHERE id > $before AND kind = 'daemon' AND text LIKE 'started%'")
  [ -n "$first" ] && [ "$first" -lt "$started" ] || fail "the restarted morphd did not resume the window (events: $(q "SELECT id, kind, text FROM events WHERE id > $before"))"
  echo "PASS: silent node at p=$p, journaled, failing again right after the restart"
}

# morph submit --matrix: a Matrix Market file (what morph prof writes) is
# sent with the job and journaled (jobs.traffic: "n [row-major counts]"),
# kept across a restart; a malformed one is refused by morph submit with
# the file, line and field, and nothing is queued.
case_submit_matrix_journaled_bad_file_named() {
  start_daemon --slots 4 --interval 0.5
  printf '%%%%MatrixMarket matrix coordinate integer general\n2 2 2\n1 2 700\n2 1 300\n' > "$T/m.mtx"
  a=$(submit --matrix "$T/m.mtx" -n 2 "$BIN/jacobi.ompi" --iters 20)
  [ "$(q "SELECT traffic FROM jobs WHERE id = $a")" = "2 [0,700,300,0]" ] || fail "traffic: $(q "SELECT traffic FROM jobs")"
  printf '%%%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 x 5\n' > "$T/bad.mtx"
  if "$MORPH" submit -d "$D" --matrix "$T/bad.mtx" -n 2 /bin/true > "$T/err" 2>&1; then fail "bad matrix accepted"; fi
  grep -q "bad.mtx:3" "$T/err" || fail "the error does not name file and line: $(cat "$T/err")"
  all_final 60
  kill -9 "$daemon_pid"; wait "$daemon_pid" 2>/dev/null || true
  start_daemon --slots 4 --interval 0.5
  b=$(submit -n 1 "$BIN/jacobi.ompi" --iters 5)
  all_final 60
  [ "$(q "SELECT traffic FROM jobs WHERE id = $a")" = "2 [0,700,300,0]" ] || fail "traffic after restart"
  [ "$(q "SELECT COUNT(*) FROM jobs")" = 2 ] || fail "the refused submission was queued"
  passed "$a"; passed "$b"
  echo "PASS: matrix journaled and kept, bad file named: $(cat "$T/err")"
}

# --checkpoint-dir (the folder of proactive moves by relaunch) must be a
# folder: a missing one is a clear error before anything starts.
case_daemon_checkpoint_dir_not_a_folder() {
  set +e
  out=$("$MORPH" daemon -d "$D" --checkpoint-dir "$T/none" 2>&1); rc=$?
  set -e
  [ $rc = 1 ] && echo "$out" | grep -q -- "--checkpoint-dir $T/none: not a folder" || fail "$rc $out"
  [ ! -e "$D/morphd.sock" ] && [ ! -e "$D/journal.db" ] || fail "left a socket or a journal behind"
  echo "PASS: $out"
}

# A workload's "matrix" (docs/workload.md): resolved against the workload
# file's folder (morph workload runs from another one), sent with the job
# and journaled as morph submit --matrix's is.
case_workload_matrix_journaled() {
  start_daemon --slots 4 --interval 0.5
  mkdir -p "$T/wl"
  printf '%%%%MatrixMarket matrix coordinate integer general\n2 2 2\n1 2 700\n2 1 300\n' > "$T/wl/m.mtx"
  cat > "$T/wl/w.json" << 'EOF2'
{"jobs": [
  {"submit": 0, "kind": "fixed", "app": "jacobi", "request": 2, "min": 2, "pref": 2, "max": 2,
   "args": ["--iters", "20"], "matrix": "m.mtx"}
]}
EOF2
  (cd "$T" && timeout 120 "$MORPH" workload run -d "$D" wl/w.json) > "$T/out" 2>&1 || fail "workload run: $(tail -3 "$T/out")"
  [ "$(q "SELECT traffic FROM jobs WHERE id = 1")" = "2 [0,700,300,0]" ] || fail "traffic: $(q "SELECT traffic FROM jobs")"
  passed 1
  echo "PASS: the workload's matrix journaled: $(q "SELECT traffic FROM jobs WHERE id = 1")"
}

"case_$1"
