#!/bin/bash
# Cases of the reconfiguration runtime, one per CTest test: cases.sh <case>.
# Each runs resize-check (every registered datum verified at every
# iteration) under the real `morph run` and the real MPI, then checks the
# program's verdict, the launcher's report and that nothing is left behind.
# Needs MORPH_RUN, BIN (the folder of resize-check.<flavour>).
set -u
CASE=$1
T=$(mktemp -d /tmp/test-runtime-XXXXXX)
cd "$T" || exit 1
export MORPH_CHECKPOINT_DIR=$T
JOB=rt-$$-$RANDOM

cleanup() {
  local pids
  pids=$(grep -l "MORPH_JOB_ID=$JOB" /proc/[0-9]*/environ 2>/dev/null | cut -d/ -f3)
  [ -n "$pids" ] && kill -KILL $pids 2>/dev/null
  rm -rf "$T"
}
trap cleanup EXIT

fail() {
  echo "FAIL ($CASE): $*"
  echo "--- stdout"; tail -n 40 out 2>/dev/null
  echo "--- stderr"; tail -n 40 err 2>/dev/null
  [ -f r.csv ] && { echo "--- report"; cat r.csv; }
  exit 1
}

# run FLAVOUR [morph run options...] -- [resize-check options...]
# JOB_ENV="VAR=value ...": set in the job's environment only (through env),
# where morph run does not see it.
run() {
  local fl=$1 opts=()
  shift
  while [ $# -gt 0 ] && [ "$1" != -- ]; do opts+=("$1"); shift; done
  shift
  # shellcheck disable=SC2086 # JOB_ENV is a list of words
  timeout 300 "$MORPH_RUN" --job-id "$JOB" --report r.csv "${opts[@]}" \
    -- ${JOB_ENV:+env $JOB_ENV} "$BIN/resize-check.$fl" "$@" >out 2>err
  RC=$?
}

expect_rc() { [ "$RC" -eq "$1" ] || fail "exit status $RC, expected $1"; }
expect_passed() { grep -q "CHECK PASSED.* size=$1 " out || fail "no 'CHECK PASSED ... size=$1'"; }
expect_err() { grep -q -- "$1" err || fail "stderr lacks '$1'"; }
# The report's rows as "old,new,mechanism,outcome", one per line.
rows() { awk -F, 'NR > 1 { print $5 "," $6 "," $7 "," $9 }' r.csv; }
# The iteration of report row N (1: the first reconfiguration).
iteration_of() { awk -F, -v n="$1" 'NR == n + 1 { print $3 }' r.csv; }
# Background spawn (MORPH_SPAWN_BACKGROUND=1): the window of row N opened
# after the point that saw its decision at iteration AT, so the loop ran
# on while the joiners started.
expect_later() { # N AT
  local it
  it=$(iteration_of "$1")
  [ -n "$it" ] && [ "$it" -gt "$2" ] ||
    fail "row $1 ran at iteration '$it', not after the decision's $2: the loop waited"
}
expect_rows() {
  local want
  want=$(printf '%s\n' "$@")
  [ "$(rows)" = "$want" ] || fail "report rows are
$(rows)
expected
$want"
}
no_leftovers() {
  sleep 0.5
  local left
  left=$(grep -l "MORPH_JOB_ID=$JOB" /proc/[0-9]*/environ 2>/dev/null | cut -d/ -f3)
  [ -z "$left" ] || fail "processes left behind: $left"
  [ -z "$(ls "$T"/*.ckpt 2>/dev/null)" ] || fail "checkpoints left behind"
}

# A schedule through the sizes given, one change every 15 iterations.
schedule_of() {
  local it=15 s=""
  for n in "$@"; do s="$s${s:+,}$n@it$it"; it=$((it + 15)); done
  echo "$s"
}

# Every decision of a sequence is carried out, except that Open MPI's
# intermittent spawn hang (docs/runtime.md; about 2 % of spawns here, more under
# load) may roll a live expansion back: the job then keeps its size, says
# so, and carries out the later decisions by relaunch. The data is checked
# at every iteration either way.
sequence() { # FLAVOUR ASKED-MECHANISM EXPECTED-MECHANISM START SIZES...
  local fl=$1 ask=$2 mech=$3 start=$4
  shift 4
  MORPH_STEP_TIMEOUT=${MORPH_STEP_TIMEOUT:-10} run "$fl" -n "$start" --mechanism "$ask" \
    --schedule "$(schedule_of "$@")" -- -n $((15 * $# + 60)) -g "${GLOBAL:-1001}" -s 3
  expect_rc 0
  local prev=$start i=0 row hung=0
  [ "$(rows | wc -l)" -eq $# ] || fail "not $# reconfigurations in the report"
  for n in "$@"; do
    i=$((i + 1))
    row=$(rows | sed -n "${i}p")
    case $row in
    "$prev,$n,$mech,ok") prev=$n ;;
    "$prev,$n,relaunch,ok")
      [ $hung = 1 ] || fail "row $i: relaunch although no spawn hung"
      prev=$n ;;
    "$prev,$prev,live,MORPH_ETIMEDOUT")
      grep -q "spawning .* did not finish within the step time limit" err ||
        fail "row $i rolled back without a spawn timeout"
      hung=1 ;;
    *) fail "row $i is '$row', expected '$prev,$n,$mech,ok'" ;;
    esac
  done
  expect_passed "$prev"
}

case $CASE in
live-sequence-ompi) sequence ompi auto live 3 5 2 7 1 4 ;;
large-parts-sequence-ompi)
  # 2^21 elements: the block array's parts of 8 MiB and more (at 1 and 2
  # processes) live in memory files. 2 -> 1 adopts both whole files (no
  # copy), 1 -> 2 copies out of a part made of adopted files
  # (src/redist/part.h). Every element checked at every iteration; no
  # memory file left open at the end (resize-check). Not in the suite: its
  # four 16-32 MiB arrays (-g applies to all) passed the 30 s step limit at
  # load 36-57 (the varcount one, copied; the adopted block array rolled
  # back with its data intact and no file left open). Run it by hand:
  #   MORPH_RUN=build/bin/morph-run BIN=build/bin bash tests/runtime/cases.sh large-parts-sequence-ompi
  GLOBAL=2097152 MORPH_STEP_TIMEOUT=30 sequence ompi live live 2 1 2 ;;
relaunch-sequence-ompi) sequence ompi relaunch relaunch 3 5 2 7 1 4 ;;
relaunch-sequence-mpich) sequence mpich relaunch relaunch 3 5 2 7 1 4 ;;
auto-sequence-mpich) sequence mpich auto relaunch 3 5 2 7 1 4 ;;
random-sequence-ompi)
  # Twelve random sizes in 1..6 (seeded: the test is repeatable).
  sizes=$(awk 'BEGIN { srand(42); p = 3; for (i = 0; i < 12; i++) {
    do n = 1 + int(rand() * 6); while (n == p); printf "%d ", n; p = n } }')
  sequence ompi auto live 3 $sizes ;;
stress-cycles-ompi)
  # 100 expand/shrink cycles 2 -> 3 -> 2, live, without a hang or error.
  s=""
  for i in $(seq 1 100); do s="$s${s:+,}3@it$((i * 20 - 10)),2@it$((i * 20))"; done
  # Entries fall due faster than resizes complete, so they run back to
  # back; the job is long enough to see all of them.
  run ompi -n 2 --mechanism live --schedule "$s" -- -n 15000 -g 4099 -s 1
  expect_rc 0
  [ "$(rows | grep -c ',live,ok$')" -eq 200 ] || fail "not 200 successful live resizes"
  expect_passed 2 ;;
fault-spawn-fails-ompi)
  # Two slots and no oversubscription: the spawn of two more fails.
  echo "localhost slots=2" >hosts
  MORPH_STEP_TIMEOUT=5 run ompi -n 2 --hostfile hosts --schedule "4@it10" -- -n 60 -s 5
  expect_rc 0
  [ "$(rows | cut -d, -f1,2)" = "2,2" ] || fail "the job did not stay at 2 processes"
  expect_err "spawning 2 processes failed"
  expect_passed 2 ;;
fault-spawn-timeout-ompi)
  # The joiners hang: the expansion rolls back, and the next decision is
  # carried out by relaunch, its checkpoint written without MPI-IO (a hung
  # spawn may hold Open MPI's communicator machinery).
  MORPH_STEP_TIMEOUT=4 run ompi -n 2 --schedule "4@it10,3@it40" \
    -- -n 80 -s 5 --fault joiner-hang
  expect_rc 0
  expect_err "did not finish within the step time limit"
  expect_rows "2,2,live,MORPH_ETIMEDOUT" "2,3,relaunch,ok"
  expect_passed 3 ;;
overlap-sequence-ompi)
  # Overlapped windows (constant "k" in the background, up to 3 iterations
  # at the old size): grow, shrink by one, shrink to one, data checked at
  # every iteration.
  run ompi -n 2 --mechanism live --schedule "4@it10,3@it25,1@it40" -- -n 60 -s 5 --overlap 3
  expect_rc 0
  expect_rows "2,4,live,ok" "4,3,live,ok" "3,1,live,ok"
  expect_passed 1 ;;
overlap-sequence-mpich)
  # Under relaunch an overlapped window moves nothing early: the whole
  # checkpoint is taken at the commit.
  run mpich -n 2 --schedule "4@it10,3@it25" -- -n 50 -s 5 --overlap 3
  expect_rc 0
  expect_rows "2,4,relaunch,ok" "4,3,relaunch,ok"
  expect_passed 3 ;;
overlap-write-constant-ompi)
  # The program writes constant data inside the window: caught, rolled
  # back, old size and data kept.
  run ompi -n 2 --mechanism live --schedule "4@it10,1@it30" -- -n 50 -s 5 --overlap 3 \
    --fault write-constant
  expect_rc 0
  expect_rows "2,2,live,MORPH_EMISMATCH" "2,2,live,MORPH_EMISMATCH"
  grep -q "'k' was declared constant" out || fail "the report does not name 'k'"
  expect_passed 2 ;;
fault-spawn-timeout-single-thread-ompi)
  # Plain MPI_Init: the spawn cannot be abandoned, but it is still
  # time-limited: the job ends with a clear error instead of hanging.
  start=$(date +%s)
  MORPH_STEP_TIMEOUT=4 run ompi -n 2 --schedule "4@it10" -- -n 80 -s 5 --fault joiner-hang \
    --thread single
  [ "$RC" -ne 124 ] || fail "the job hung"
  [ "$RC" -ne 0 ] || fail "a job whose spawn hung ended with status 0"
  [ $(( $(date +%s) - start )) -lt 120 ] || fail "the job took more than 120 s to end"
  expect_err "was not initialised with MPI_THREAD_MULTIPLE" ;;
fault-joiner-killed-ompi)
  MORPH_STEP_TIMEOUT=4 run ompi -n 2 --mpi-arg --enable-recovery --schedule "4@it10,3@it40" \
    -- -n 80 -s 5 --fault joiner-die
  expect_rc 0
  expect_err "stopped answering"
  # Rolled back at 2; the next decision (no rank 3 joiner) still goes live:
  # only a hung spawn makes a job give up the live mechanism.
  expect_rows "2,2,live,MORPH_ETIMEDOUT" "2,3,live,ok"
  expect_passed 3 ;;
fault-leaver-killed-ompi)
  # Rank 3 dies before handing its data over: its data is lost, so the job
  # must stop with a clear error, not hang.
  MORPH_STEP_TIMEOUT=3 run ompi -n 4 --mpi-arg --enable-recovery --schedule "2@it10" \
    -- -n 60 -s 5 --fault leaver-die
  grep -q "CHECK PASSED" out && fail "a job that lost data passed its check"
  expect_err "died inside reconfiguration 1"
  [ "$RC" -ne 124 ] || fail "the job hung" ;;
bg-spawn-sequence-ompi)
  # Grows spawn in the background (20 ms iterations, longer than the
  # spawn's polls): each one opens its window at a later point than the
  # decision's, and the data is checked at every iteration throughout.
  JOB_ENV="MORPH_SPAWN_BACKGROUND=1" MORPH_STEP_TIMEOUT=20 run ompi -n 2 --mechanism live \
    --schedule "4@it10,3@it80,5@it120" -- -n 200 -s 20
  expect_rc 0
  expect_rows "2,4,live,ok" "4,3,live,ok" "3,5,live,ok"
  expect_later 1 10
  expect_later 3 120
  expect_passed 5 ;;
bg-spawn-overlap-sequence-ompi)
  # The split API (probe, begin_overlap, progress, commit) over a
  # background spawn: probe reports the grow pending only once the joiners
  # are up.
  JOB_ENV="MORPH_SPAWN_BACKGROUND=1" MORPH_STEP_TIMEOUT=20 run ompi -n 2 --mechanism live \
    --schedule "4@it10,3@it80" -- -n 150 -s 20 --overlap 3
  expect_rc 0
  expect_rows "2,4,live,ok" "4,3,live,ok"
  expect_later 1 10
  expect_passed 3 ;;
bg-spawn-hung-rolls-back-ompi)
  # The joiners hang before joining: the loop (which reduces over the job's
  # communicator every iteration) goes on at 2 while the spawn waits; after
  # the step time limit the grow rolls back with the data intact, and the
  # next decision is a relaunch. The loop goes on slowly: the stuck spawn
  # thread holds Open MPI's progress in a PMIx lookup, and the loop's own
  # MPI_Allreduce waits behind it (measured: 14 iterations in 4.6 s instead
  # of about 200; the blocking path would run none), hence the low bar.
  JOB_ENV="MORPH_SPAWN_BACKGROUND=1" MORPH_STEP_TIMEOUT=4 run ompi -n 2 \
    --schedule "4@it10,3@it300" -- -n 500 -s 20 --fault joiner-hang
  expect_rc 0
  expect_err "spawning 2 processes did not finish within the step time limit"
  expect_rows "2,2,live,MORPH_ETIMEDOUT" "2,3,relaunch,ok"
  expect_later 1 12
  expect_passed 3 ;;
bg-spawn-joiner-killed-rolls-back-ompi)
  # A joiner spawned in the background dies once its window opens: rolled
  # back at 2, data intact; the next grow (no rank 3) goes live again.
  JOB_ENV="MORPH_SPAWN_BACKGROUND=1" MORPH_STEP_TIMEOUT=4 run ompi -n 2 --mpi-arg \
    --enable-recovery --schedule "4@it10,3@it150" -- -n 300 -s 20 --fault joiner-die
  expect_rc 0
  expect_err "stopped answering"
  expect_rows "2,2,live,MORPH_ETIMEDOUT" "2,3,live,ok"
  expect_later 1 10
  expect_later 2 150
  expect_passed 3 ;;
bg-spawn-fails-ompi)
  # No slot for the joiners: the background spawn fails, the loop never
  # stopped, the job stays at 2.
  echo "localhost slots=2" >hosts
  JOB_ENV="MORPH_SPAWN_BACKGROUND=1" MORPH_STEP_TIMEOUT=5 run ompi -n 2 --hostfile hosts \
    --schedule "4@it10" -- -n 200 -s 20
  expect_rc 0
  [ "$(rows | cut -d, -f1,2)" = "2,2" ] || fail "the job did not stay at 2 processes"
  expect_err "spawning 2 processes failed"
  expect_later 1 10
  expect_passed 2 ;;
bg-spawn-job-ends-first-ompi)
  # The loop ends while the joiners start: morph_finalize waits for them
  # and rolls the grow back, so that they leave; nothing is left behind.
  JOB_ENV="MORPH_SPAWN_BACKGROUND=1" MORPH_STEP_TIMEOUT=20 run ompi -n 2 --mechanism live \
    --schedule "4@it10" -- -n 12 -s 5
  expect_rc 0
  expect_rows "2,2,live,MORPH_EABORTED"
  expect_err "the job ended before the processes spawned in the background were taken in"
  expect_passed 2 ;;
bad-limits-ompi)
  # morph run reads the variables too (its --min/--max defaults): it
  # refuses before starting anything; the job alone refuses them as well.
  MORPH_MIN=4 MORPH_MAX=2 run ompi -n 2 -- -n 10
  expect_rc 2
  expect_err "min is larger than"
  JOB_ENV="MORPH_MIN=4 MORPH_MAX=2" run ompi -n 2 -- -n 10
  [ "$RC" -ne 0 ] || fail "min > max was accepted by the job"
  expect_err "min_procs 4 > max_procs 2" ;;
bad-pref-ompi)
  MORPH_MAX=4 MORPH_PREF=9 run ompi -n 2 -- -n 10
  expect_rc 2
  expect_err "pref is outside"
  JOB_ENV="MORPH_MAX=4 MORPH_PREF=9" run ompi -n 2 -- -n 10
  [ "$RC" -ne 0 ] || fail "pref > max was accepted by the job"
  expect_err "pref_procs 9 outside" ;;
bad-size-ompi)
  # A limit morph run knows: it refuses the schedule at start.
  MORPH_MAX=3 run ompi -n 2 --schedule "5@it10,3@it20" -- -n 40 -s 2
  expect_rc 2
  expect_err "size 5 outside the job's limits \[1, 3\]"
  # (A size refused by the job itself, which then goes on at its old size:
  # test-frontend-pcm-refuse-* and tests/run's fake job.)
  [ ! -s out ] || fail "the job was started" ;;
bad-registration-ompi)
  MORPH_STEP_TIMEOUT=5 run ompi -n 2 --mpi-arg --enable-recovery --schedule "3@it10" \
    -- -n 40 -s 2 --mismatch
  expect_rc 0
  expect_err "registered different data"
  expect_passed 2 ;;
bad-socket-ompi)
  # No launcher behind MORPH_SOCKET: a clear error within seconds.
  MORPH_SOCKET=$T/none.sock MORPH_JOB_ID=$JOB timeout 60 mpirun.openmpi --oversubscribe \
    -x MORPH_SOCKET -x MORPH_JOB_ID -n 2 "$BIN/resize-check.ompi" -n 10 >out 2>err
  RC=$?
  [ "$RC" -ne 0 ] && [ "$RC" -ne 124 ] || fail "exit status $RC"
  expect_err "cannot connect to the launcher socket" ;;
*) fail "unknown case" ;;
esac
no_leftovers
echo "PASS ($CASE)"
