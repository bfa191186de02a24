#!/bin/bash
# Cases of `morph run`, one per CTest test: cases.sh <case>.
# Each runs the launcher on fake-job (a protocol client started by a real
# mpirun) in a folder of its own and checks exit status, log, report CSV
# and that no process or file is left behind.
# Needs MORPH_RUN, FAKE_JOB and FAKE_MORPHD (set by CMakeLists.txt).
set -u
CASE=$1
T=$(mktemp -d /tmp/test-run-XXXXXX)
mkdir "$T/tmp"
export TMPDIR=$T/tmp # morph run makes its socket folder here: it must be gone at the end
cd "$T" || exit 1
MPI=${MPI:-openmpi}

# Kills what this case started (found by its unique folder) and removes it.
cleanup() {
  local pids
  pids=$(pgrep -f "$T" | grep -vx "$$")
  [ -n "$pids" ] && kill -KILL $pids 2>/dev/null
  [ -n "${MOUNTED:-}" ] && umount "$MOUNTED"
  rm -rf "$T"
}
trap cleanup EXIT

fail() {
  echo "FAIL ($CASE): $*"
  echo "--- stdout"; cat out 2>/dev/null
  echo "--- stderr"; cat err 2>/dev/null
  [ -f r.csv ] && { echo "--- report"; cat r.csv; }
  exit 1
}

# run [morph run options...] -- [fake-job options...]
run() {
  local opts=() ; while [ $# -gt 0 ] && [ "$1" != -- ]; do opts+=("$1"); shift; done
  shift
  timeout 90 "$MORPH_RUN" --mpi "$MPI" --report r.csv "${opts[@]}" \
    "$FAKE_JOB" --state "$T" "$@" >out 2>err
  RC=$?
}

expect_rc() { [ "$RC" -eq "$1" ] || fail "exit status $RC, expected $1"; }
expect_err() { grep -q -- "$1" err || fail "stderr lacks '$1'"; }
expect_out() { grep -q -- "$1" out || fail "stdout lacks '$1'"; }
# row N: the Nth reconfiguration in the report, as "old,new,mechanism,outcome"
row() { awk -F, -v n="$1" 'NR == n + 1 { print $5 "," $6 "," $7 "," $9 }' r.csv; }
expect_row() { [ "$(row "$1")" = "$2" ] || fail "report row $1 is '$(row "$1")', expected '$2'"; }
expect_rows() { [ "$(($(wc -l <r.csv) - 1))" -eq "$1" ] || fail "report has not $1 rows"; }
# column C (by name) of row N
col() { awk -F, -v n="$1" -v c="$2" 'NR == 1 { for (i = 1; i <= NF; i++) k[$i] = i } NR == n + 1 { print $k[c] }' r.csv; }
expect_ge() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a >= b) }' || fail "$3: $1 < $2"; }

no_leftovers() {
  sleep 0.2
  local left
  left=$(pgrep -f "$FAKE_JOB --state $T")
  [ -z "$left" ] || fail "processes left behind: $(ps -o pid,stat,args -p $left | tail -n +2)"
  [ -z "$(ls -A "$T/tmp")" ] || fail "files left in TMPDIR: $(ls -A "$T/tmp")"
}

# Starts morph run in the background; waits until the job has connected.
start_bg() {
  local opts=() ; while [ $# -gt 0 ] && [ "$1" != -- ]; do opts+=("$1"); shift; done
  shift
  "$MORPH_RUN" --mpi "$MPI" "${opts[@]}" "$FAKE_JOB" --state "$T" "$@" >out 2>err &
  BG=$!
  for _ in $(seq 100); do grep -q welcome out 2>/dev/null && return; sleep 0.1; done
  fail "the job did not connect"
}

case_usage_errors() {
  local R="$MORPH_RUN"
  "$R" -n 2 --schedule "4@it100,2@bogus" true 2>err; RC=$?
  expect_rc 2; expect_err "'2@bogus'"
  "$R" --schedule "4@it100" true 2>err; RC=$?
  expect_rc 2; expect_err "-n N"
  "$R" -n 2 --server /x.sock true 2>err; RC=$?
  expect_rc 2; expect_err "--job-id"
  printf '4@it1\n2@t-3\n' >s.txt
  "$R" -n 2 --schedule-file s.txt true 2>err; RC=$?
  expect_rc 2; expect_err "s.txt:2:"; expect_err "'2@t-3'"
  "$R" -n 2 --max 4 --schedule 8@it1 true 2>err; RC=$?
  expect_rc 2; expect_err "outside the job's limits"
  "$R" -n 2 --mpi lam true 2>err; RC=$?
  expect_rc 2; expect_err "unknown MPI"
  "$R" -n 2 2>err; RC=$?
  expect_rc 2; expect_err "no program"
  # MORPH_MIN/MAX/PREF (sbatch --morph sets them) are the limits' defaults;
  # an option overrides its variable; a bad value is refused naming it.
  MORPH_MAX=4 "$R" -n 2 --schedule 8@it1 true 2>err; RC=$?
  expect_rc 2; expect_err "outside the job's limits"
  MORPH_MAX=4 "$R" -n 2 --max 8 --pref 9 true 2>err; RC=$?
  expect_rc 2; expect_err "--pref is outside"
  MORPH_MIN=3 "$R" -n 2 true 2>err; RC=$?
  expect_rc 2; expect_err "-n is outside"
  MORPH_PREF=two "$R" -n 2 true 2>err; RC=$?
  expect_rc 2; expect_err "MORPH_PREF='two' (from the environment)"
  "$R" --help >out; RC=$?
  expect_rc 0; expect_out "usage: morph run"
}

case_flow_iteration() {
  run -n 1 --schedule "3@it20,2@it40,4@it60" -- --iters 100
  expect_rc 0
  expect_rows 3
  expect_row 1 "1,3,live,ok"; expect_row 2 "3,2,live,ok"; expect_row 3 "2,4,live,ok"
  expect_ge "$(col 1 iteration)" 20 "iteration of the first resize"
  expect_ge "$(col 3 iteration)" 60 "iteration of the third resize"
  expect_err "job 1->3 live ok in"
  expect_out "end size=4 iteration=100"
  no_leftovers
}

case_flow_time() {
  run -n 1 --schedule "2@t0.5,3@t1.0" -- --iters 200
  expect_rc 0
  expect_rows 2
  expect_row 1 "1,2,live,ok"; expect_row 2 "2,3,live,ok"
  expect_ge "$(col 1 time)" 0.5 "time of the first resize"
  expect_ge "$(col 2 time)" 1.0 "time of the second resize"
  no_leftovers
}

case_refused_resize() {
  run -n 1 --schedule "5@it10,2@it20" -- --iters 40 --refuse-size 5
  expect_rc 0
  expect_row 1 "1,1,live,MORPH_ESIZE"; expect_row 2 "1,2,live,ok"
  expect_err "failed: MORPH_ESIZE"
}

# A joiner of a live grow that failed is not a process of the job: its
# MPI_Abort (an application's answer to morph_open's error, printed by
# mpirun) is said, and the job goes on at its size after the rollback.
case_joiner_abort_not_the_jobs() {
  run -n 1 --schedule "2@it10,3@it20" -- --iters 40 --joiner-abort-size 2
  expect_rc 0
  expect_row 1 "1,1,live,MORPH_ESPAWN"; expect_row 2 "1,3,live,ok"
  expect_err "rank 1 called MPI_Abort (error code 2) after: morph_open: a step did not finish within its time limit: taken for a joiner of a live grow"
}

case_leavers_verified() {
  run -n 3 --schedule "1@it10" -- --iters 200 --leave-delay-ms 500
  expect_rc 0
  expect_row 1 "3,1,live,ok"
  expect_ge "$(col 1 t_settle)" 0.4 "time until the leavers were gone"
  expect_err "leavers gone after"
  no_leftovers
}

# The next iteration entry must not wait for slow leavers: the job would
# pass its iteration (here: end) before it arrived.
case_next_entry_during_slow_leavers() {
  run -n 3 --schedule "1@it10,2@it15" -- --iters 40 --leave-delay-ms 1500
  expect_rc 0
  expect_rows 2
  expect_row 1 "3,1,live,ok"; expect_row 2 "1,2,live,ok"
  expect_ge "$(col 1 t_settle)" 1.4 "time until the leavers were gone"
  expect_ge "$(col 2 iteration)" 15 "iteration of the second resize"
  no_leftovers
}

# The same with hosts named (issue 23): the early entry must be worded for
# the size the job will have after the shrink (1), not the size before it
# (3, at which "3 onto HOST:2" changes nothing and its hosts were dropped,
# with a false warning).
case_next_entry_hosts_during_slow_leavers() {
  local h
  h=$(hostname)
  run -n 3 --schedule "1@it10 off $h:2,3@it15 onto $h:2" -- --iters 40 --leave-delay-ms 1500
  expect_rc 0
  expect_row 1 "3,1,live,ok"; expect_row 2 "1,3,live,ok"
  expect_out "fake-job: live 1 -> 3 at iteration [0-9]* hosts=$h:2"
  grep -q "do not name every process" err && fail "a false warning: $(grep 'do not name' err)"
  no_leftovers
}

case_leavers_stuck() {
  run -n 3 --leave-timeout 1 --schedule "1@it10" -- --iters 300 --stuck-leavers
  expect_rc 0
  expect_row 1 "3,1,live,MORPH_EBUSY"
  expect_err "still running"
  no_leftovers
}

case_relaunch() {
  run -n 1 --schedule "3@it10:relaunch,2@it30" -- --iters 50
  expect_rc 0
  expect_rows 2
  expect_row 1 "1,3,relaunch,ok"; expect_row 2 "3,2,live,ok"
  expect_out "restart size=3 iteration=10"
  expect_out "end size=2 iteration=50"
  expect_err "job 1->3 relaunch ok"
  [ -z "$(ls ckpt-* 2>/dev/null)" ] || fail "checkpoint left behind"
  no_leftovers
}

case_rollback_failed_start() {
  run -n 2 --schedule "3@it10:relaunch" -- --iters 40 --fail-restart-size 3
  expect_rc 0
  expect_row 1 "2,2,relaunch,MORPH_ESPAWN"
  expect_out "restart size=2 iteration=10"
  expect_err "restarting at 2"
  expect_out "end size=2 iteration=40"
  no_leftovers
}

case_rollback_no_hello() {
  run -n 1 --start-timeout 2 --grace 1 --schedule "3@it10:relaunch" -- --iters 40 \
    --hang-restart-size 3
  expect_rc 0
  expect_row 1 "1,1,relaunch,MORPH_ETIMEDOUT"
  expect_out "end size=1 iteration=40"
  no_leftovers
}

# Rank 0 returns 7 without BYE. mpirun runs with --enable-recovery and
# exits 0 whatever its processes return, so all morph run can say is that
# the job failed: status 1.
case_crash() {
  run -n 1 --schedule "2@it50" -- --iters 100 --crash-at 10
  expect_rc 1
  expect_err "without saying goodbye: status 1"
  no_leftovers
}

# Without recovery mpirun's own status (rank 0's 7) is still the answer.
case_crash_no_recovery() {
  run -n 1 --no-recovery -- --iters 100 --crash-at 10
  expect_rc 7
  expect_err "without saying goodbye: status 7"
  no_leftovers
}

# A follower is killed while a decision is outstanding (sent at once, to be
# applied at an iteration never reached): 2 processes left of 3, fewer than
# both the old and the requested size, so no window can explain it.
case_crash_outside_window() {
  local t0=$SECONDS
  run -n 3 --grace 1 --schedule "4@it100000" -- --iters 100000 --die-rank 2 --die-after-ms 1000
  expect_rc 1
  expect_err "died outside a reconfiguration; stopping the job"
  [ $((SECONDS - t0)) -lt 10 ] || fail "the crash took $((SECONDS - t0)) s to stop the job"
  no_leftovers
}

# The job's outcome comes from its BYE (mpirun's status means nothing under
# --enable-recovery).
case_bye_status() {
  run -n 2 -- --iters 20 --exit-status 3
  expect_rc 3
  no_leftovers
}

# An mpirun that never ends after its processes (as Open MPI's after a
# failed spawn) is stopped 2 s after the job's last process, both after a
# relaunch checkpoint and at the end, not after --exit-timeout.
case_mpirun_lingers() {
  printf '#!/bin/bash\nmpirun.openmpi "$@"\nsleep 100\n' >"$T/lingering-mpirun"
  chmod +x "$T/lingering-mpirun"
  local t0=$SECONDS
  run -v -n 2 --mpirun "$T/lingering-mpirun" --grace 1 --schedule "3@it10:relaunch" -- --iters 30
  expect_rc 0
  expect_row 1 "2,3,relaunch,ok"
  expect_ge 6 "$(col 1 t_settle)" "relaunch time (s)"
  expect_err "no process of the job is left"
  [ $((SECONDS - t0)) -lt 20 ] || fail "took $((SECONDS - t0)) s"
  no_leftovers
}

case_connection_drop_hang() {
  run -n 2 --exit-timeout 1 --grace 1 -- --iters 100 --drop-and-hang
  [ "$RC" -ne 0 ] || fail "exit status 0 for a job that was killed"
  expect_err "dropped without BYE"
  expect_err "still running 1 s after the job ended"
  no_leftovers
}

# A program that never connects: under --enable-recovery mpirun says 0
# whatever it returned, so morph run cannot call it a success; without
# recovery mpirun's status stands.
case_never_connects() {
  timeout 60 "$MORPH_RUN" --mpi "$MPI" -n 2 --schedule 2@it5 sleep 0.3 >out 2>err; RC=$?
  expect_rc 1
  expect_err "without ever connecting"
  expect_err "1 schedule entries were not applied"
  timeout 60 "$MORPH_RUN" --mpi "$MPI" --no-recovery -n 2 sleep 0.3 >out 2>err; RC=$?
  expect_rc 0
  timeout 60 "$MORPH_RUN" --mpi "$MPI" --no-recovery -n 2 false >out 2>err; RC=$?
  expect_rc 1
}

case_timeout() {
  local t0=$SECONDS
  run -n 2 --timeout 1 --grace 1 -- --iters 100000
  expect_rc 124
  [ $((SECONDS - t0)) -lt 15 ] || fail "--timeout 1 took $((SECONDS - t0)) s"
  expect_err "time limit of 1 s reached"
  no_leftovers
}

case_sigterm() {
  start_bg -n 2 --schedule "3@it20" -- --iters 100000
  kill -TERM "$BG"; wait "$BG"; RC=$?
  expect_rc 143
  expect_err "got signal 15"
  no_leftovers
}

case_sigterm_stubborn() {
  start_bg -n 2 --grace 1 -- --iters 100000 --ignore-term
  kill -INT "$BG"; wait "$BG"; RC=$?
  expect_rc 130
  no_leftovers
}

# SIGKILL leaves morph run no chance to remove its socket and session
# folders (a test's clean-up, an OOM kill): the next morph run of the user
# on the host removes those whose process is gone.
case_sigkill_swept() {
  start_bg -n 2 -- --iters 100000
  local pids
  pids=$(pgrep -f "$T" | grep -vx "$$")
  kill -KILL $pids; wait "$BG" 2>/dev/null
  sleep 0.2
  [ -n "$(ls -A "$T/tmp")" ] || fail "the killed run left nothing to sweep"
  run -n 1 -- --iters 5
  expect_rc 0
  no_leftovers
}

case_socket_private() {
  run -n 1 -- --iters 5
  expect_rc 0
  expect_out "socket mode 600"
  expect_out "socket folder mode 700"
  no_leftovers
}

case_upstream_unreachable() {
  run -n 1 --server "$T/none.sock" --job-id j1 --schedule 2@it10 -- --iters 30
  expect_rc 0
  expect_err "cannot reach morphd"
  expect_row 1 "1,2,live,ok"
}

wait_listening() {
  for _ in $(seq 50); do grep -q listening "$1" 2>/dev/null && return; sleep 0.1; done
  fail "fake-morphd did not start"
}

case_upstream_relay() {
  timeout 60 "$FAKE_MORPHD" --socket "$T/d.sock" --resize 3,2 >d.out &
  local d=$!
  wait_listening d.out
  run -n 1 --server "$T/d.sock" --job-id j7 --checkpoint-dir "$T" -- --iters 200
  wait "$d"
  cat d.out >>out
  expect_rc 0
  expect_out '"type":"hello".*"job":"j7"'
  # morph run's HELLO and the job's, forwarded, name its checkpoint folder
  # (morphd relaunches a job off a failing node only then)
  [ "$(grep -c '"type":"hello".*"checkpoint":"'"$T"'"' d.out)" = 2 ] ||
    fail "HELLOs without the checkpoint folder: $(grep '"type":"hello"' d.out)"
  expect_out '"type":"ack".*"id":100.*"new_size":3'
  expect_out '"type":"ack".*"id":101.*"new_size":2'
  expect_out '"type":"progress"'
  expect_out '"type":"bye".*"exit_status":0'
  expect_row 1 "1,3,live,ok"; expect_row 2 "3,2,live,ok"
  no_leftovers
}

case_upstream_reattach() {
  timeout 60 "$FAKE_MORPHD" --socket "$T/d.sock" --resize 3 --exit-after-ack >d1.out &
  local d1=$!
  wait_listening d1.out
  start_bg -n 1 --server "$T/d.sock" --job-id j8 --report r.csv -- --iters 500
  wait "$d1"
  timeout 60 "$FAKE_MORPHD" --socket "$T/d.sock" --resize 2 >d2.out &
  local d2=$!
  wait "$BG"; RC=$?
  wait "$d2"
  cat d1.out d2.out >>out
  expect_rc 0
  expect_err "lost morphd"
  expect_err "reattached to morphd"
  grep -q '"type":"hello".*"job":"j8".*"size":3' d2.out || fail "no HELLO at size 3 after reattach"
  grep -q '"type":"hello".*"checkpoint":"[^"]' d1.out d2.out && fail "a checkpoint folder without one"
  grep -q '"type":"ack".*"id":100.*"new_size":2' d2.out || fail "no ACK of the new daemon's resize"
  # The last ACK the old daemon had is said again: a morphd killed before
  # it read one would otherwise never close that resize.
  grep -q '"type":"ack".*"id":100.*"new_size":3' d2.out || fail "the last ACK was not said again"
  grep -q '"type":"bye"' d2.out || fail "no BYE to the new daemon"
  expect_row 2 "3,2,live,ok"
  no_leftovers
}

# The real thing: jacobi with libmorph, started through the `morph` dispatcher.
# Its own check compares the result with a static run.
app() {
  local fl=$1; shift
  local bin_var=JACOBI_$fl
  local opts=() ; while [ $# -gt 0 ] && [ "$1" != -- ]; do opts+=("$1"); shift; done
  shift
  MORPH_CHECKPOINT_DIR=$T timeout 100 "$MORPH" run --report r.csv "${opts[@]}" \
    "${!bin_var}" "$@" >out 2>err
  RC=$?
}

case_app_ompi_live() {
  app ompi -n 2 --schedule "4@it20,2@it40,3@it60" -- --iters 80 --delay-ms 5
  expect_rc 0
  expect_rows 3
  expect_row 1 "2,4,live,ok"; expect_row 2 "4,2,live,ok"; expect_row 3 "2,3,live,ok"
  expect_out "CHECK PASSED"
  expect_err "job 4->2 live ok"
}

case_app_ompi_relaunch() {
  app ompi -n 2 --schedule "3@it20:relaunch,1@it40:relaunch" -- --iters 60 --delay-ms 5
  expect_rc 0
  expect_row 1 "2,3,relaunch,ok"; expect_row 2 "3,1,relaunch,ok"
  expect_out "CHECK PASSED"
  [ -z "$(ls "$T"/*.ckpt 2>/dev/null)" ] || fail "checkpoint left behind"
}

case_app_mpich_live() {
  # MPICH has no dynamic processes: auto picks relaunch.
  app mpich -n 2 --schedule "4@it20,2@it40" -- --iters 60 --delay-ms 5
  expect_rc 0
  expect_row 1 "2,4,relaunch,ok"; expect_row 2 "4,2,relaunch,ok"
  expect_out "CHECK PASSED"
}

case_app_mpich_relaunch() {
  app mpich -n 3 --mechanism relaunch --schedule "1@it10,4@t1.5" -- --iters 200 --delay-ms 10
  expect_rc 0
  expect_row 1 "3,1,relaunch,ok"; expect_row 2 "1,4,relaunch,ok"
  expect_out "CHECK PASSED"
  [ -z "$(ls "$T"/*.ckpt 2>/dev/null)" ] || fail "checkpoint left behind"
}

case_app_ompi_relay() {
  timeout 60 "$FAKE_MORPHD" --socket "$T/d.sock" --resize 3,1 >d.out &
  local d=$!
  wait_listening d.out
  app ompi -n 2 --server "$T/d.sock" --job-id app1 -- --iters 150 --delay-ms 10
  wait "$d"
  cat d.out >>out
  expect_rc 0
  expect_out '"type":"ack".*"id":100.*"outcome":0.*"new_size":3'
  expect_out '"type":"ack".*"id":101.*"outcome":0.*"new_size":1'
  expect_out '"type":"bye".*"exit_status":0'
  expect_out "CHECK PASSED"
}

# The malleable test program of tests/runtime (every datum verified), run
# as job $JOB so that its processes are found by their environment even
# when other tests run the same program.
JOB=run-test-$$
check_app() {
  [ -n "${RESIZE_CHECK:-}" ] && [ -x "$RESIZE_CHECK" ] || { echo "SKIP: no resize-check.ompi"; exit 77; }
}
job_pids() {
  local f
  for f in $(grep -l "MORPH_JOB_ID=$JOB" /proc/[0-9]*/environ 2>/dev/null); do
    f=${f%/environ}
    [ "$(readlink "$f/exe")" = "$RESIZE_CHECK" ] && echo "${f#/proc/}"
  done
}
# rc_run [morph run options...] -- [resize-check options...]
rc_run() {
  local opts=() ; while [ $# -gt 0 ] && [ "$1" != -- ]; do opts+=("$1"); shift; done
  shift
  MORPH_CHECKPOINT_DIR=$T timeout 100 "$MORPH" run --job-id "$JOB" --report r.csv \
    "${opts[@]}" "$RESIZE_CHECK" "$@" >out 2>err
  RC=$?
}
app_no_leftovers() {
  sleep 0.5
  [ -z "$(job_pids)" ] || fail "processes left behind: $(job_pids)"
  [ -z "$(ls "$T"/*.ckpt 2>/dev/null)" ] || fail "checkpoint left behind"
  no_shm_leftovers
}

# Open MPI's shared-memory segments (/dev/shm/vader_segment.*): those that
# appeared since shm_mark and that no process maps (another test's running
# job maps its own) are the job's leftovers; a killed process leaves its
# own unless morph run removes them (issue 26). They are removed here too.
shm_mark() { ls /dev/shm >"$T/shm.before" 2>/dev/null; }
no_shm_leftovers() {
  [ -f "$T/shm.before" ] || return 0
  local f left=""
  for f in $(ls /dev/shm | grep '^vader_segment\.' | grep -vxFf "$T/shm.before"); do
    grep -qsF "/dev/shm/$f" /proc/[0-9]*/maps || left="$left $f"
  done
  [ -z "$left" ] && return 0
  (cd /dev/shm && rm -f $left)
  fail "shared-memory segments left in /dev/shm:$left"
}

# A rank killed outside any window: the job stops at once (mpirun, with
# --enable-recovery, would let the others wait for it forever).
case_app_ompi_crash() {
  check_app
  shm_mark
  MORPH_CHECKPOINT_DIR=$T timeout 100 "$MORPH" run -v --job-id "$JOB" -n 3 --grace 1 \
    "$RESIZE_CHECK" -n 100000 -s 5 >out 2>err &
  local bg=$! pid
  for _ in $(seq 150); do grep -q "job started" err && break; sleep 0.1; done
  pid=$(job_pids | tail -1)
  [ -n "$pid" ] || fail "no process of the job found"
  local t0=$SECONDS
  kill -KILL "$pid"
  wait "$bg"; RC=$?
  expect_rc 1
  expect_err "process $pid died outside a reconfiguration"
  [ $((SECONDS - t0)) -lt 10 ] || fail "stopping took $((SECONDS - t0)) s"
  app_no_leftovers
}

# A rank calls MPI_Abort while the others go on: with --enable-recovery
# mpirun ends only that process and the job would wait for it for good.
# morph run reads mpirun's report and stops the job, naming the rank, the
# code and the last thing said before (issue 23).
case_app_ompi_abort() {
  check_app
  local t0=$SECONDS
  rc_run -n 3 --grace 1 -- -n 100000 -s 5 --fault abort
  expect_rc 1
  expect_err "rank 2 called MPI_Abort (error code 5) after: resize-check: giving up at iteration 10"
  [ $((SECONDS - t0)) -lt 30 ] || fail "stopping took $((SECONDS - t0)) s"
  app_no_leftovers
}

# small_tmpfs SIZE [OPTIONS]: a tmpfs of SIZE at $T/small (root only:
# else the case is skipped), unmounted by the cleanup.
small_tmpfs() {
  [ "$EUID" -eq 0 ] || { echo "SKIP: mounting a small tmpfs needs root"; exit 77; }
  mkdir -p "$T/small"
  mount -t tmpfs -o "size=$1${2:+,$2}" morph-test "$T/small" || fail "cannot mount a tmpfs"
  MOUNTED=$T/small
}

# A checkpoint folder that would make every relaunch fail is refused at
# start, naming it and why (issue 23): missing, a file, read-only.
case_app_ckpt_dir_refused() {
  check_app
  rc_run -n 2 --checkpoint-dir "$T/none" -- -n 10
  expect_rc 125
  expect_err "checkpoint folder $T/none does not exist"
  small_tmpfs 64k ro
  rc_run -n 2 --checkpoint-dir "$T/small" -- -n 10
  expect_rc 125
  expect_err "checkpoint folder $T/small is not writable (Read-only file system)"
}

# A checkpoint folder others could use to redirect the checkpoint (issue
# 22) is refused at start, naming it and what is wrong: a symbolic link,
# a folder of another user, one others may write without the sticky bit.
# A sticky folder everyone writes (as /tmp) is fine: the job relaunches.
case_app_ckpt_dir_unsafe_refused() {
  check_app
  mkdir -m 0700 "$T/real" && ln -s "$T/real" "$T/link"
  rc_run -n 2 --checkpoint-dir "$T/link" -- -n 10
  expect_rc 125
  expect_err "checkpoint folder $T/link is a symbolic link"
  mkdir -m 0755 "$T/other" && chown 65534 "$T/other"
  rc_run -n 2 --checkpoint-dir "$T/other" -- -n 10
  expect_rc 125
  expect_err "checkpoint folder $T/other belongs to uid 65534, neither you nor root"
  mkdir "$T/open" && chmod 0777 "$T/open"
  rc_run -n 2 --checkpoint-dir "$T/open" -- -n 10
  expect_rc 125
  expect_err "checkpoint folder $T/open may be written by others (mode 0777, no sticky bit)"
  chmod 1777 "$T/open"
  rc_run -n 2 --checkpoint-dir "$T/open" --schedule "3@it5:relaunch" -- -n 20 -s 20
  expect_rc 0
  expect_row 1 "2,3,relaunch,ok"
  expect_out "CHECK PASSED"
}

# A folder too small for the checkpoint: the native API's relaunch is
# rolled back before any data is given up (the file's space is reserved
# first), and the job goes on at its size with its data.
case_app_ompi_ckpt_full() {
  check_app
  small_tmpfs 64k
  rc_run -n 2 --checkpoint-dir "$T/small" --schedule "3@it10:relaunch,1@it30:live" -- -n 40 -g 20000
  expect_rc 0
  expect_row 1 "2,2,relaunch,MORPH_EIO"
  expect_err "holds less than the checkpoint needs"
  expect_out "CHECK PASSED"
  app_no_leftovers
}

# The same for the DMR front-end, whose arrays the checkpoint learns only
# as it writes: the write fails on a full tmpfs after the Send expression,
# the window rolls back and the job goes on at 2 with its arrays (it used
# to end in MPI_Abort: "rolled back after the arrays were redistributed").
case_app_dmr_ckpt_full() {
  [ -n "${DMR_FRONT_END:-}" ] && [ -x "$DMR_FRONT_END" ] || { echo "SKIP: no DMR front-end"; exit 77; }
  small_tmpfs 4k
  timeout 100 "$MORPH" run --job-id "$JOB" --report r.csv --checkpoint-dir "$T/small" -n 2 \
    --schedule "3@it10:relaunch" "$DMR_FRONT_END" 30 >out 2>err
  RC=$?
  expect_rc 0
  expect_row 1 "2,2,relaunch,MORPH_EIO"
  expect_err "No space left on device\|holds less than the checkpoint needs"
  grep -q "DMR:" err && fail "the DMR front-end gave up: $(grep DMR: err)"
  expect_out "CHECK PASSED"
}

# A joiner killed inside the window (with recovery, mpirun keeps the job):
# the grow is rolled back, the monitor does not count it as a crash.
case_app_ompi_joiner_killed() {
  check_app
  shm_mark
  MORPH_STEP_TIMEOUT=5 rc_run -n 2 --schedule "4@it20" -- -n 100 -s 5 --fault joiner-die
  expect_rc 0
  [ "$(row 1 | cut -d, -f1,2,3)" = "2,2,live" ] || fail "the grow was not rolled back: $(row 1)"
  expect_out "CHECK PASSED"
  grep -q "died outside" err && fail "a rolled-back joiner was taken for a crash"
  app_no_leftovers
}

# Open MPI refuses the spawn (2 slots, grow to 4): the grow rolls back, and
# that mpirun then never ends by itself. The relaunch that follows must not
# wait --exit-timeout (30 s) for it.
case_app_ompi_failed_spawn() {
  check_app
  shm_mark
  echo "localhost slots=2" >hf
  local t0=$SECONDS
  MORPH_STEP_TIMEOUT=5 rc_run -n 2 --hostfile hf --schedule "4@it20,1@it60" -- -n 100 -s 5
  local took=$((SECONDS - t0))
  expect_rc 0
  expect_out "CHECK PASSED"
  [ "$(row 1 | cut -d, -f1,2)" = "2,2" ] || fail "the refused grow is not a rollback: $(row 1)"
  expect_row 2 "2,1,relaunch,ok"
  expect_ge 10 "$(col 2 t_settle)" "relaunch time (s)"
  [ "$took" -lt 25 ] || fail "the job took $took s"
  echo "job took $took s, relaunch settled in $(col 2 t_settle) s"
  app_no_leftovers
}

# A program that is not there ends morph run at once, naming it, before
# any mpirun starts: Open MPI's mpirun under --enable-recovery never ended
# (issue 26), MPICH's ended with its own message and 255.
missing_program() {
  local t0=$SECONDS
  timeout 30 "$MORPH_RUN" --mpi "$MPI" -n 2 -- "$T/no-such-prog" --iters 5 >out 2>err; RC=$?
  expect_rc 127
  expect_err "morph run: $T/no-such-prog: no such program"
  [ $((SECONDS - t0)) -lt 10 ] || fail "refusing took $((SECONDS - t0)) s"
  timeout 30 "$MORPH_RUN" --mpi "$MPI" -n 2 no-such-prog-in-path >out 2>err; RC=$?
  expect_rc 127
  expect_err "no-such-prog-in-path: no such program in PATH"
  printf '#!/bin/sh\n' >noexec.sh
  timeout 30 "$MORPH_RUN" --mpi "$MPI" -n 2 "$T/noexec.sh" >out 2>err; RC=$?
  expect_rc 126
  expect_err "noexec.sh: not executable"
  grep -q "starting:" err && fail "mpirun was started"
  # A script run by its interpreter still starts (the program is python3).
  printf 'print("python ran")\n' >script.py
  timeout 60 "$MORPH_RUN" --mpi "$MPI" --no-recovery -n 2 /usr/bin/python3 script.py >out 2>err; RC=$?
  expect_rc 0
  [ "$(grep -c "python ran" out)" -eq 2 ] || fail "the script did not run twice"
  no_leftovers
}
case_missing_program() { missing_program; }
case_mpich_missing_program() { MPI=mpich; missing_program; }

# The processes leaving at a relaunch's checkpoint end with what the
# application returns for them (examples/minimal.c: 1 on rank 0), which
# MPICH's mpiexec passes on: a routine relaunch says nothing about it.
case_app_mpich_relaunch_quiet() {
  [ -x "${MINIMAL_mpich:-}" ] || { echo "SKIP: no minimal.mpich"; exit 77; }
  MORPH_CHECKPOINT_DIR=$T timeout 100 "$MORPH" run -n 2 --schedule "3@it50,1@it100" \
    "$MINIMAL_mpich" >out 2>err; RC=$?
  expect_rc 0
  expect_err "job 2->3 relaunch ok"
  expect_err "job 3->1 relaunch ok"
  expect_out "sum 200000000, expected 200000000, on 1 processes"
  grep -q "after the checkpoint" err && fail "a routine relaunch reported mpirun's status"
  true
}

case_mpich_flow() { MPI=mpich; case_flow_iteration; }
case_mpich_relaunch() { MPI=mpich; case_relaunch; }

fn=case_${CASE//-/_}
declare -f "$fn" >/dev/null || { echo "unknown case $CASE"; exit 2; }
"$fn"
echo "PASS ($CASE)"
