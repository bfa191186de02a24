#!/bin/bash
# Cases of the emulated cluster (scripts/cluster.sh), one per CTest test:
# cases.sh <case>. The instance is $MORPH_CLUSTER; "up" and "down" are the
# CTest fixture that brings it up with 3 nodes and takes it down, the other
# cases use it and leave it as they found it. Every step has a time limit.
# Needs CLUSTER_SH; the spawn cases SPAWN_HOST (spawn-host.ompi).
set -u
CASE=$1
C=${CLUSTER_SH:?}
. "$(dirname "$0")/../lib/hosts.sh"
N=3
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

if [ "$EUID" -ne 0 ] && [ "$CASE" != not-root ]; then
  echo "cluster tests need root (namespaces, a bridge, daemons): skipped"
  exit 77
fi
skip_if_build_in_tmp "${MORPH:-}" "$CASE"

# The instance's variables (hostfile, subnet, Open MPI's agent) for the
# cases that use it: some name its hostfile in their first line.
case "$CASE" in
up | down | not-root) ;;
*) instance_env "$C" ;;
esac

fail() {
  echo "FAIL ($CASE): $*"
  FAILED=1
  timeout 10 bash "$C" status
  exit 1
}

# tcp_banner FROM TO: the first line TO's sshd sends to FROM, by name.
tcp_banner() {
  on "$1" timeout 3 bash -c "exec 3<>/dev/tcp/$2/22 && head -c 7 <&3" 2>/dev/null
}

# small_dir: a 4 KiB tmpfs under the build folder, mounted before the
# instance comes up so that every host's mount namespace holds a copy of
# the same mount (one made later would not reach them: the machine's root
# mount is private): one folder, full, on every host.
small_dir() { echo "$(cd "$(dirname "$MORPH")/.." && pwd)/cluster-small"; }

case_up() {
  local s
  s=$(small_dir)
  mkdir -p "$s" && { mountpoint -q "$s" || mount -t tmpfs -o size=4k,mode=0700 morph-small "$s"; } ||
    fail "cannot mount a small tmpfs at $s"
  instance_up "$C" $N 60
}

case_hostnames() {
  local i addr
  expect_eq "head's hostname" "$(on head hostname)" head
  for ((i = 1; i <= N; i++)); do
    expect_eq "hostname of node$i" "$(on node$i hostname)" "node$i"
    addr=$(bash "$C" addr node$i)
    expect_eq "address of node$i" "$(on node$i ip -4 -o addr show dev eth0 | awk '{print $4}')" "$addr/27"
    expect_eq "routes of node$i" "$(on node$i ip -4 route | wc -l)" 1
    on node$i ip -4 route get 192.0.2.1 >/dev/null 2>&1 && fail "node$i has a route out of the cluster"
    expect_eq "node$i's view of its own name" "$(on node$i getent hosts node$i | awk '{print $1}')" "$addr"
  done
  expect_eq "head's view of node1" "$(on head getent hosts node1 | awk '{print $1}')" "$(bash "$C" addr node1)"
  on head getent hosts example.com && fail "a name outside the hosts file resolved"
  true
}

case_tcp_by_name() {
  local i j
  for ((i = 1; i <= N; i++)); do
    expect_eq "head -> node$i" "$(tcp_banner head node$i)" SSH-2.0
    for ((j = 1; j <= N; j++)); do
      [ $i -eq $j ] && continue
      expect_eq "node$i -> node$j" "$(tcp_banner node$i node$j)" SSH-2.0
    done
  done
}

case_ssh() {
  local i cfg
  cfg=$(bash "$C" env | sed -n 's/^export MORPH_CLUSTER_SSH_CONFIG=//p')
  for ((i = 1; i <= N; i++)); do
    expect_eq "ssh head -> node$i" "$(timeout 30 bash "$C" ssh node$i hostname)" "node$i"
  done
  expect_eq "ssh node1 -> node$N" "$(on node1 ssh -F "$cfg" node$N hostname)" "node$N"
  expect_eq "ssh node$N -> node1" "$(on node$N ssh -F "$cfg" node1 hostname)" node1
  # The client config refuses every destination outside the cluster.
  on head ssh -F "$cfg" example.com true 2>/dev/null && fail "ssh left the cluster"
  true
}

case_munge() {
  local h cred
  for h in head $(seq -f 'node%g' 1 $N); do
    on "$h" sh -c 'munge -n | unmunge' | grep -q 'STATUS: *Success' ||
      fail "munge round trip on $h"
  done
  cred=$(on node1 munge -n -s "from node1")
  expect_eq "payload made on node1, decoded on node$N" \
    "$(echo "$cred" | on node$N unmunge --metadata=/dev/null)" "from node1"
}

# mpirun of 6 ranks on 3 hosts, from the head, over ssh (or the agent).
mpirun_6() {
  local out
  eval "$(bash "$C" env "$@")"
  out=$(on head mpirun -np 6 --host node1:2,node2:2,node3:2 hostname | sort | xargs)
  expect_eq "hosts of 6 ranks" "$out" "node1 node1 node2 node2 node3 node3"
}

case_mpirun() { mpirun_6; }
case_mpirun_agent() { mpirun_6 --agent; }

# spawn KEY: 2 parents on node1 spawn 2 children with KEY=node3:2; the
# hostfile lists all nodes (mpirun starts its daemons there at launch:
# Open MPI 4.1 cannot add a host outside its allocation).
spawn() {
  local out
  [ -x "${SPAWN_HOST:-}" ] || { echo "no spawn-host.ompi: skipped"; exit 77; }
  eval "$(bash "$C" env)"
  out=$(on head timeout 25 mpirun -np 2 --hostfile "$MORPH_CLUSTER_HOSTFILE" \
    "$SPAWN_HOST" "$1" node3:2 2) || fail "spawn with $1=node3:2 failed: $out"
  echo "$out"
  expect_eq "parents' hosts" "$(grep '^parent' <<<"$out" | awk '{print $4}' | xargs)" "node1 node1"
  expect_eq "children's hosts" "$(grep '^child' <<<"$out" | awk '{print $4}' | xargs)" "node3 node3"
}

case_spawn_add_host() { spawn add-host; }
case_spawn_host() { spawn host; }

case_private_tmp() {
  local f
  for f in /tmp/cluster-test-ckpt-$$ /dev/shm/cluster-test-ckpt-$$; do
    on node1 sh -c "echo data > $f" || fail "cannot write $f on node1"
    expect_eq "$f on node1" "$(on node1 cat $f)" data
    on node2 test -e $f && fail "node1's $f is visible on node2"
    [ -e $f ] && fail "node1's $f is visible on the machine"
    on head test -e $f && fail "node1's $f is visible on the head"
    on node1 rm -f $f
  done
  # The project's files are the same everywhere.
  expect_eq "$C seen from node2" "$(on node2 md5sum "$C" | cut -d' ' -f1)" "$(md5sum "$C" | cut -d' ' -f1)"
}

case_up_twice() {
  local before after
  before=$(timeout 10 bash "$C" status) || fail "status before"
  timeout 60 bash "$C" up $N || fail "second up failed"
  after=$(timeout 10 bash "$C" status) || fail "status after the second up"
  expect_eq "hosts and daemons after a second up" "$after" "$before"
  timeout 10 bash "$C" up $((N + 1)) 2>/dev/null && fail "up with another size succeeded"
  true
}

case_link() {
  bash "$C" link node$N down || fail "link down"
  timeout 10 bash "$C" status | grep -q "node$N .*link DOWN" || fail "status does not show the link down"
  [ -z "$(tcp_banner node1 node$N)" ] || fail "node$N answers with its link down"
  bash "$C" link node$N up || fail "link up"
  expect_eq "node1 -> node$N after link up" "$(tcp_banner node1 node$N)" SSH-2.0
}

case_kill() {
  on node$N sh -c 'echo x > /tmp/before-kill'
  timeout 30 bash "$C" kill node$N || fail "kill node$N"
  timeout 10 bash "$C" status >/dev/null && fail "status is 0 with node$N killed"
  timeout 10 bash "$C" status | grep -q "node$N .*holder DEAD" || fail "status does not show node$N dead"
  [ -z "$(tcp_banner node1 node$N)" ] || fail "killed node$N answers"
  timeout 60 bash "$C" up $N || fail "up after kill"
  expect_eq "node1 -> node$N after reboot" "$(tcp_banner node1 node$N)" SSH-2.0
  on node$N test -e /tmp/before-kill && fail "node$N's /tmp survived its kill"
  timeout 10 bash "$C" status >/dev/null || fail "status is not 0 after up"
}


# two_each J1 J2 J3 TRIES: until node1..3 each run 2 processes of jobs J1,
# J2, J3 (at most TRIES looks, 0.5 s apart), then checks it.
two_each() {
  local t got
  for ((t = 0; t < $4; t++)); do
    got="$(procs_on node1 "$1") $(procs_on node2 "$2") $(procs_on node3 "$3")"
    [ "$got" = "2 2 2" ] && return 0
    sleep 0.5
  done
  expect_eq "processes of jobs $1 $2 $3 on node1..3" "$got" "2 2 2"
}

# wait_log PATTERN SECONDS [COUNT]: until morphd's log has COUNT (default
# 1) lines matching PATTERN.
wait_log() {
  local t
  for ((t = 0; t < $2 * 5; t++)); do
    [ "$(grep -c "$1" "$D/morphd.log" 2>/dev/null)" -ge "${3:-1}" ] 2>/dev/null && return 0
    sleep 0.2
  done
  fail "no '$1' in morphd's log within $2 s: $(tail -5 "$D/morphd.log")"
}

# line_of PATTERN: the number of the first line of morphd's log matching
# PATTERN (empty if none).
line_of() { grep -n "$1" "$D/morphd.log" | head -1 | cut -d: -f1; }

# start_morphd HOSTFILE ARGS...: morphd on the head with HOSTFILE as its
# pool, its folder in D; stopped with its jobs on the way out. The cases
# were written against dmr+easy (a job grows to its maximum in one resize,
# measured or not), the default before mdmr+easy: they keep it, a case's
# own --policy comes after and wins.
start_morphd() {
  local hf=$1
  shift
  [ -x "${MORPH:-}" ] && [ -x "${JACOBI:-}" ] || { echo "no morph or jacobi.ompi: skipped"; exit 77; }
  eval "$(bash "$C" env)"
  D=${D:-$(mktemp -d /tmp/morph-cluster-test.XXXXXX)}
  MORPH_STEP_TIMEOUT=10 bash "$C" daemon head "$D/morphd.pid" "$D/morphd.log" \
    "$MORPH" daemon -d "$D" --hostfile "$hf" -i 1 --policy dmr+easy "$@" || fail "morphd did not start"
  wait_log listening 20 "$(($(grep -c listening "$D/morphd.log" 2>/dev/null) + 1))"
}

submit() { on head "$MORPH" submit -q -d "$D" "$@" >/dev/null || fail "submit $*"; }

# passed JOB...: each job completed with status 0 and results equal to a
# static run.
passed() {
  local j
  for j in "$@"; do
    wait_log "job $j completed (status 0)" 180
    grep -q "CHECK PASSED" "$D/jobs/$j.out" || fail "job $j: $(tail -3 "$D/jobs/$j.out")"
  done
}

stop_morphd() {
  [ -n "${D:-}" ] || return 0
  timeout 30 "$MORPH" daemon -d "$D" --stop --kill-jobs >/dev/null 2>&1
  [ -s "$D/morphd.pid" ] && kill "$(cat "$D/morphd.pid")" 2>/dev/null
  if [ -n "${FAILED:-}" ]; then
    echo "morphd's folder kept: $D"
  else
    rm -rf "$D"
  fi
}

# morphd on the head with the three nodes (2 slots each) as its pool: a
# malleable Jacobi grows from node1 onto node2 and node3, a rigid job
# arrives, the malleable one shrinks off a whole host (node3) and the
# rigid one starts there only once nothing of the first is left on it,
# checked on node3. Both end with results equal to a static run.
case_morphd_hosts() {
  trap stop_morphd EXIT
  start_morphd "$MORPH_CLUSTER_HOSTFILE"
  submit --min 2 --pref 2 --max 6 "$JACOBI" --iters 300 --delay-ms 50
  wait_log "job 1: resize 2 done, size 6" 60
  local n1 n2 n3
  n1=$(procs_on node1 1) n2=$(procs_on node2 1) n3=$(procs_on node3 1)
  expect_eq "job 1's processes on node1..3" "$n1 $n2 $n3" "2 2 2"
  submit -n 2 "$JACOBI" --iters 1500 --delay-ms 50
  wait_log "job 1: resize 3 done, size 4" 60
  wait_log "job 2 started" 60
  expect_eq "job 1's processes on node3 once job 2 started" "$(procs_on node3 1)" 0
  expect_eq "job 2's host" "$(head -1 "$D/jobs/2.hosts")" "node3 slots=2"
  passed 1 2
  grep "job [12]" "$D/morphd.log"
  grep "^it" "$D/jobs/1.out"
}

# A host's cable pulled during an expand under morphd: job 1 (rigid, a
# blocker) holds node1, the malleable job 2 starts at 2 on node3; when job
# 1 ends morphd expands job 2 onto node1, and node1's cable is pulled then,
# before job 2 reaches its reconfiguration point (an iteration lasts
# 2.5 s). The spawn cannot reach node1: morph run rolls it back, the
# resize fails, job 2 goes on at 2 and ends with results equal to a static
# run; morphd marks node1 down (the check that job 2 left it could not ask
# it, nor could the probe after it), places nothing there, and marks it up
# once its cable is back.
case_morphd_link_down_expand() {
  need_jacobi
  printf 'node1 slots=2\nnode3 slots=2\n' >"$T/hf"
  trap 'bash "$C" link node1 up >/dev/null 2>&1; stop_morphd; rm -rf "$T"' EXIT
  start_morphd "$T/hf"
  submit -n 2 "$JACOBI" --iters 40 --delay-ms 50
  wait_log "job 1 started" 60
  submit --min 2 --pref 2 --max 4 "$JACOBI" --iters 24 --delay-ms 2500
  wait_log "job 2: expand 2 -> 4" 120
  bash "$C" link node1 down || fail "unplug node1"
  echo "$(date +%T.%N | cut -c1-12) node1 unplugged"
  wait_log "job 2: resize [0-9]* failed, size 2" 90
  wait_log "node1 is down" 60
  sleep 3 # morphd decides every second: it must not try node1 again
  expect_eq "expands of job 2 tried" "$(grep -c "job 2: expand" "$D/morphd.log")" 1
  bash "$C" link node1 up || fail "plug node1"
  echo "$(date +%T.%N | cut -c1-12) node1 plugged again"
  wait_log "node1 is up" 30
  passed 1 2
  # Joiners that node1's daemon started before the cable was pulled
  # (seen under load) cannot reach their parents; they end with the job.
  local t
  for ((t = 0; t < 60 && $(procs_on node1 2) != 0; t++)); do sleep 0.5; done
  expect_eq "job 2's processes on node1 after it ended" "$(procs_on node1 2)" 0
  grep -q "job 2: resize [0-9]* done" "$D/morphd.log" && [ "$(line_of "job 2: resize [0-9]* done")" -lt "$(line_of "node1 is up")" ] &&
    fail "job 2 grew while node1 was down"
  grep -E "node1|job 2" "$D/morphd.log"
  grep -E "morph run" "$D/jobs/2.err" | tail -5
}

# A host killed with its processes under morphd: job 1 (4 processes on
# node1 and node2) and job 2 (2 on node3) run; node3 is killed. Job 2 is
# recorded as failed with the reason; job 1 goes on and completes (its
# mpirun has no daemon on node3: a rigid job's hostfile lists its own
# hosts). Job 3 needs all six slots: it must not start while node3 is
# down, even once job 1 is done, and starts when node3 is back.
case_morphd_host_killed() {
  need_jacobi
  trap 'stop_morphd; rm -rf "$T"; timeout 60 bash "$C" up $N >/dev/null 2>&1' EXIT
  start_morphd "$MORPH_CLUSTER_HOSTFILE"
  submit -n 4 "$JACOBI" --iters 400 --delay-ms 50
  submit -n 2 "$JACOBI" --iters 3000 --delay-ms 50
  wait_log "job 2 started" 60
  two_each 1 1 2 120
  local t
  timeout 30 bash "$C" kill node3 || fail "kill node3"
  t=$SECONDS
  echo "$(date +%T.%N | cut -c1-12) node3 killed"
  wait_log "job 2 failed" 60
  echo "job 2 failed $((SECONDS - t)) s after node3 was killed: $(grep "job 2 failed" "$D/morphd.log")"
  grep "job 2 failed" "$D/morphd.log" | grep -q "node3" || fail "the reason does not name node3"
  submit -n 6 "$JACOBI" --iters 40 --delay-ms 50
  wait_log "node3 is down" 60
  passed 1
  sleep 3
  grep -q "job 3 started" "$D/morphd.log" && fail "job 3 started with node3 down"
  timeout 60 bash "$C" up $N >/dev/null || fail "node3 did not come back"
  wait_log "node3 is up" 30
  passed 3
  [ "$(line_of "node3 is up")" -lt "$(line_of "job 3 started")" ] || fail "job 3 started before node3 was up"
  grep -E "node3|job [123]" "$D/morphd.log"
}

# morphd killed (SIGKILL) and started again on its folder while jobs run
# on the three hosts: job 1 (malleable, 4 processes on node1 and node2)
# and job 2 (2 on node3) reattach and complete with results equal to a
# static run.
case_morphd_restart_hosts() {
  need_jacobi
  trap 'stop_morphd; rm -rf "$T"' EXIT
  start_morphd "$MORPH_CLUSTER_HOSTFILE"
  # Long enough that both run at once even when job 1's start is slow
  # under load (once job 2 ended before job 1 was up at 500 iterations).
  submit --min 2 --pref 4 --max 4 "$JACOBI" --iters 1000 --delay-ms 50
  submit -n 2 "$JACOBI" --iters 1000 --delay-ms 50
  two_each 1 1 2 120
  kill -9 "$(cat "$D/morphd.pid")" || fail "kill morphd"
  echo "$(date +%T.%N | cut -c1-12) morphd killed"
  sleep 2
  two_each 1 1 2 1
  start_morphd "$MORPH_CLUSTER_HOSTFILE"
  echo "$(date +%T.%N | cut -c1-12) morphd started again"
  passed 1 2
  [ "$(line_of "job 1 completed")" -gt "$(grep -n listening "$D/morphd.log" | tail -1 | cut -d: -f1)" ] ||
    fail "job 1 completed before the restart"
  grep -E "job [12]|listening|adopt|reattach" "$D/morphd.log"
}

# run_on_hosts LOG ARGS...: morph run from the head with the cluster's
# hostfile (node1..3, 2 slots each: -n 2 starts on node1), rank 0 reaching
# it over TCP; its stderr and stdout in LOG, its status in RC.
run_on_hosts() {
  local log=$1
  shift
  timeout 280 bash "$C" exec head "$MORPH" run -v --hostfile "${HF:-$MORPH_CLUSTER_HOSTFILE}" \
    --listen '*:0' "$@" >"$log" 2>&1
  RC=$?
  return $RC
}

need_jacobi() {
  [ -x "${MORPH:-}" ] && [ -x "${JACOBI:-}" ] || { echo "no morph or jacobi.ompi: skipped"; exit 77; }
  eval "$(bash "$C" env)"
  T=$(mktemp -d "$(dirname "$MORPH")/../cluster-case.XXXXXX") # not /tmp: private per host
  trap 'rm -rf "$T"; timeout 60 bash "$C" up $N >/dev/null 2>&1' EXIT
}

# A host killed with the job's processes on it: the job ends within a
# minute. morph run, which sees the processes of every host of the job,
# stops it naming the host, unless mpirun aborts first (it used to hang
# when only the processes died: mpirun runs with --enable-recovery). The fixture's
# cluster gets node3 back on the way out.
case_run_host_killed() {
  need_jacobi
  local id=killed$$ t
  run_on_hosts "$T/log" -n 6 --job-id $id "$JACOBI" --iters 3000 --delay-ms 50 &
  local bg=$!
  for ((t = 0; t < 120; t++)); do
    [ "$(procs_on node3 $id)" = 2 ] && grep -q "job started" "$T/log" && break
    sleep 0.5
  done
  [ "$(procs_on node3 $id)" = 2 ] || fail "the job never ran on node3: $(tail -5 "$T/log")"
  sleep 3
  t=$SECONDS
  timeout 30 bash "$C" kill node3 || fail "kill node3"
  wait $bg
  RC=$?
  echo "stopped $((SECONDS - t)) s after node3 was killed"
  grep "morph run" "$T/log"
  # Either morph run's monitor stops the job (status 1, naming the host)
  # or mpirun notices first that its daemon there is gone and aborts.
  [ "$RC" -ne 0 ] && [ "$RC" -ne 124 ] || fail "morph run's status is $RC"
  if grep -q "lost outside a reconfiguration" "$T/log"; then
    expect_eq "morph run's status" "$RC" 1
    grep -q "lost outside a reconfiguration (.*node3: no answer" "$T/log" ||
      fail "the reason does not name node3: $(grep 'morph run' "$T/log" | tail -3)"
  fi
  [ $((SECONDS - t)) -lt 60 ] || fail "the job took $((SECONDS - t)) s to stop"
  timeout 60 bash "$C" up $N >/dev/null || fail "node3 did not come back"
}

# A hostfile naming a host that does not exist: morph run refuses to
# start, naming file, line and host (not a job hanging at its first resize).
case_hostfile_unknown_host() {
  need_jacobi
  printf 'node1 slots=2\nnode9 slots=2\n' >"$T/hf"
  local t=$SECONDS
  timeout 60 bash "$C" exec head "$MORPH" run -n 2 --hostfile "$T/hf" --listen '*:0' \
    "$JACOBI" --iters 10 >"$T/log" 2>&1
  RC=$?
  cat "$T/log"
  expect_eq "morph run's status" "$RC" 125
  grep -q "$T/hf:2: unknown host 'node9'" "$T/log" || fail "the error does not name the host"
  [ $((SECONDS - t)) -lt 20 ] || fail "took $((SECONDS - t)) s to refuse"
}

# Relaunch across hosts: the checkpoint is read by processes on another
# host. In the cluster's shared folder (--checkpoint-dir) 2 -> 4 (onto
# node2) -> 2 works; in the default /dev/shm, private on each host as on
# a real cluster, node2's processes do not find it: the grow rolls back.
case_relaunch_checkpoint_dir() {
  need_jacobi
  local sched="4@it60:relaunch,2@it150:relaunch" args=(--iters 250 --delay-ms 20)
  run_on_hosts "$T/shared" -n 2 --checkpoint-dir "$T" --schedule "$sched" "$JACOBI" "${args[@]}"
  grep "morph run\|CHECK" "$T/shared"
  expect_eq "status with a shared checkpoint folder" "$RC" 0
  expect_eq "relaunches done" "$(grep -c 'relaunch ok' "$T/shared")" 2
  grep -q "CHECK PASSED" "$T/shared" || fail "no CHECK PASSED with a shared folder"
  run_on_hosts "$T/local" -n 2 --start-timeout 15 --schedule "4@it60:relaunch" "$JACOBI" "${args[@]}"
  grep "morph run\|CHECK" "$T/local"
  grep -q "relaunch at 4 failed" "$T/local" || fail "a checkpoint in node1's /dev/shm was read on node2"
  grep -q "CHECK PASSED" "$T/local" || fail "no CHECK PASSED after the rollback"
}

# A relaunch that shrinks off a host restarts mpirun on a hostfile
# without it (no Open MPI daemon there), and one that grows onto it again
# gets it back (docs/run.md, "Relaunch"): Jacobi at 6 on node1..3, to 4
# off node3, to 6 onto node3, each by relaunch from the shared folder.
case_relaunch_off_and_onto_host() {
  need_jacobi
  run_on_hosts "$T/log" -n 6 --checkpoint-dir "$T" --schedule \
    "4@it10:relaunch off node3:2,6@it20:relaunch onto node3:2" "$JACOBI" --iters 40 \
    --delay-ms 50 --hosts
  grep "morph run: \(job\|relaunching\|no longer\)\|CHECK" "$T/log"
  expect_eq "morph run's status" "$RC" 0
  grep -q "^CHECK PASSED" "$T/log" || fail "no CHECK PASSED: $(tail -5 "$T/log")"
  grep -q "relaunching without node3 (node3:2 left it)" "$T/log" || fail "node3 not left out"
  grep -q "starting: .*--hostfile [^ ]*/morph-run-hosts-[^/ ]*/hostfile .* -n 4 " "$T/log" ||
    fail "not restarted on the new hostfile"
  local hf
  hf=$(sed -n 's/.*relaunching without node3 (node3:2 left it): //p' "$T/log" | head -1)
  [ -n "$hf" ] && [ ! -e "$(dirname "$hf")" ] || fail "the relaunch hostfile's folder was left: $hf"
  grep -q "relaunching with node3 again (node3:2 joins)" "$T/log" || fail "node3 not taken back"
  expect_eq "at 4" "$(placement "$T/log" 4 first)" "0:node1 1:node1 2:node2 3:node2"
  expect_eq "at 6 again" "$(placement "$T/log" 6 last)" \
    "0:node1 1:node1 2:node2 3:node2 4:node3 5:node3"
}

# Every example application (and the DMR front-end) across hosts: starts
# with 2 processes on node1, grows live onto node2 and shrinks off it,
# checked against a serial run. morph run names the leavers' hosts from the
# job's own answer (the ranks' processor names): the two processes that
# joined and then left were on node2. (The ack of a grow names the hosts
# only when the decision did: morphd's do, a --schedule's do not.)
case_apps_hosts() {
  need_jacobi
  local b app
  b=$(dirname "$JACOBI")
  for app in jacobi cg heat farm nbody test-dmr-front-end; do
    [ -x "$b/$app.ompi" ] || fail "no $b/$app.ompi"
    # shellcheck disable=SC2046
    run_on_hosts "$T/$app" -n 2 --timeout 200 --schedule "4@it10,2@it20" "$b/$app.ompi" $(app_args $app)
    echo "$app: $(grep "morph run: job .*ok\|CHECK" "$T/$app")"
    expect_eq "$app's status" "$RC" 0
    grep -q "CHECK PASSED" "$T/$app" || fail "$app: $(tail -5 "$T/$app")"
    grep -q "2->4 live ok" "$T/$app" || fail "$app: the grow failed"
    grep -q "4->2 live ok.*leavers were on node2:2" "$T/$app" || fail "$app: leavers not from node2"
  done
}

# The example applications' arguments for a run of about 30 morph points.
app_args() {
  case $1 in
  jacobi) echo "--size 120 --iters 60 --delay-ms 100" ;;
  cg) echo "--size 32 --delay-ms 100" ;;
  heat) echo "--size 48 --iters 60 --work-ms 200" ;;
  farm) echo "--size 1000 --per-round 20 --delay-ms 10" ;;
  nbody) echo "--size 120 --iters 60 --work-ms 150 --serial-ms 5" ;;
  test-dmr-front-end) echo 50 ;;
  esac
}

# MPICH across hosts (relaunch: its hydra has no dynamic processes):
# every example application starts with 2 processes on node1, is
# relaunched at 4 on node1 and node2 from the checkpoint in the shared
# folder, then at 2 again; each rank prints its host after each change.
# Hydra gets the Open MPI-style hostfile as a -hosts list.
case_apps_hosts_mpich() {
  need_jacobi
  local b app
  b=$(dirname "$JACOBI")
  for app in jacobi cg heat farm nbody; do
    [ -x "$b/$app.mpich" ] || fail "no $b/$app.mpich"
    # shellcheck disable=SC2046
    run_on_hosts "$T/$app" -n 2 --timeout 200 --checkpoint-dir "$T" --mechanism relaunch \
      --schedule "4@it10,2@it20" "$b/$app.mpich" $(app_args $app) --hosts
    echo "$app: $(grep "morph run: job .*ok\|CHECK" "$T/$app")"
    expect_eq "$app's status" "$RC" 0
    grep -q "CHECK PASSED" "$T/$app" || fail "$app: $(tail -5 "$T/$app")"
    grep -q "starting: mpiexec.mpich -genvall -hosts node1:2,node2:2,node3:2 -n 4" "$T/$app" ||
      fail "$app: not relaunched at 4 with the hosts of the hostfile"
    grep -q "2->4 relaunch ok" "$T/$app" && grep -q "4->2 relaunch ok" "$T/$app" ||
      fail "$app: a relaunch failed: $(grep 'morph run: job' "$T/$app")"
    expect_eq "$app at 4" "$(placement "$T/$app" 4 first)" "0:node1 1:node1 2:node2 3:node2"
    expect_eq "$app at 2 again" "$(placement "$T/$app" 2 last)" "0:node1 1:node1"
  done
}

# placement LOG SIZE first|last: where the ranks of the first or last
# report at SIZE processes were ("it N: rank R of SIZE on HOST", printed by
# --hosts at start and after each change), as "0:node1 1:node3".
placement() {
  local its it
  its=$(awk -v s="$2" '$1 == "it" && $3 == "rank" && $6 == s {print $2 + 0}' "$1" | sort -n -u)
  it=$([ "$3" = first ] && echo "$its" | head -1 || echo "$its" | tail -1)
  awk -v s="$2" -v it="$it" '$1 == "it" && $2 + 0 == it && $3 == "rank" && $6 == s {print $4":"$8}' \
    "$1" | sort -n -u | tr '\n' ' ' | sed 's/ $//'
}

# A schedule that names hosts (docs/run.md): 2 on node1, grow onto node3,
# grow onto node2, shrink off node3; each rank prints its host after each
# change. A host the job does not have is refused at start.
case_schedule_hosts() {
  need_jacobi
  run_on_hosts "$T/log" -n 2 --timeout 200 --schedule \
    "4@it10 onto node3, 6@it20 onto node2:2, 4@it30 off node3" "$JACOBI" --iters 45 \
    --delay-ms 100 --hosts
  grep "morph run: job\|CHECK\|^it [0-9]*: rank" "$T/log"
  expect_eq "morph run's status" "$RC" 0
  grep -q "^CHECK PASSED" "$T/log" || fail "no CHECK PASSED: $(tail -5 "$T/log")"
  expect_eq "at start" "$(placement "$T/log" 2 first)" "0:node1 1:node1"
  expect_eq "grown onto node3" "$(placement "$T/log" 4 first)" "0:node1 1:node1 2:node3 3:node3"
  expect_eq "grown onto node2" "$(placement "$T/log" 6 first)" \
    "0:node1 1:node1 2:node3 3:node3 4:node2 5:node2"
  expect_eq "shrunk off node3" "$(placement "$T/log" 4 last)" "0:node1 1:node1 2:node2 3:node2"
  run_on_hosts "$T/bad" -n 2 --schedule "4@it10 onto node9" "$JACOBI" --iters 10
  cat "$T/bad"
  expect_eq "status with an unknown host" "$RC" 125
  grep -q "schedule entry '4@it10 onto node9': 'node9' is not a host of the job (--hostfile" \
    "$T/bad" || fail "the refusal does not name the entry and the host"
}

# PCM migration (docs/pcm.md): pcm-heat on node1 (2) and on node1+node2
# (4); rank 1, node1's highest, moves to node3 keeping its rank, its state
# loaded there; the job keeps its size and its answer (CHECK PASSED).
case_pcm_move() {
  need_jacobi
  [ -x "${PCM_HEAT:-}" ] || { echo "no pcm-heat.ompi: skipped"; exit 77; }
  local n want_before want_after
  for n in 2 4; do
    want_before="0:node1 1:node1" want_after="0:node1 1:node3"
    [ $n = 4 ] && want_before="$want_before 2:node2 3:node2" want_after="$want_after 2:node2 3:node2"
    run_on_hosts "$T/heat$n" -n $n --timeout 200 --schedule "move@it10 off node1 onto node3" \
      "$PCM_HEAT" --size 48 --iters 30 --delay-ms 50 --hosts
    grep "morph run: job\|CHECK\|^it [0-9]*: rank\|pcm-heat" "$T/heat$n"
    expect_eq "status at $n" "$RC" 0
    grep -q "^CHECK PASSED" "$T/heat$n" || fail "$n: no CHECK PASSED: $(tail -5 "$T/heat$n")"
    grep -q "job $n->$n live ok .*moved 1 process(es) off node1 onto node3" "$T/heat$n" ||
      fail "$n: no move reported"
    expect_eq "before the move at $n" "$(placement "$T/heat$n" $n first)" "$want_before"
    expect_eq "after the move at $n" "$(placement "$T/heat$n" $n last)" "$want_after"
  done
}

# Proactive move (paper 004 beyond the paper): morphd watches the three
# nodes with heartbeats (TCP to each sshd, every 0.5 s, window 40) and
# places with tofa, threshold 0.1 (4 missed of 40). A malleable Jacobi
# runs at 6 on node1..3 (2 per host, each rank prints its host). node3's
# cable is pulled until morphd says node3 is failing, then plugged again
# (a flapping link); morphd drains node3 and the granularity policy
# shrinks the job off it, by relaunch (morphd has --checkpoint-dir): the
# job checkpoints, and morph run starts a new mpirun on a hostfile without
# node3, so no Open MPI daemon of the job is left there (checked). Only
# then are node3's processes killed. The job ends completed with results
# equal to a static run, its ranks on node1 and node2 only.
case_morphd_proactive() {
  trap 'stop_morphd; rm -rf "${CK:-}"; timeout 60 bash "$C" up $N >/dev/null 2>&1' EXIT
  CK=$(mktemp -d "$(dirname "$MORPH")/../cluster-ckpt.XXXXXX") # not /tmp: private per host
  start_morphd "$MORPH_CLUSTER_HOSTFILE" --policy granularity+easy \
    --placement tofa --topology "$MORPH_CLUSTER_HOSTFILE" --place-param threshold=0.1 \
    --heartbeat 0.5 --heartbeat-window 40 --checkpoint-dir "$CK"
  submit --min 2 --pref 6 --max 6 "$JACOBI" --iters 250 --delay-ms 50 --hosts
  wait_log "job 1 started" 60
  two_each 1 1 1 40
  expect_eq "Open MPI daemons on node3 before the move" "$(orteds_on node3)" 1
  # node3 starts failing as a node whose management daemon stops
  # answering: its sshd's listener is stopped, so morphd's heartbeats (TCP
  # connects to port 22) are refused, while the job's traffic and the
  # ssh sessions already open (mpirun's daemon, morph run's watcher) go
  # on. Pulling node3's cable instead killed the job ~1 run in 2 on a
  # quiet machine: node1's ranks died 2.7 s into the outage, before any
  # decision (Open MPI's TCP gives up on a peer whose address stops
  # resolving), which is not what this case is about.
  echo "$(date +%T.%N | cut -c1-12) node3's sshd stopped"
  kill "$(cat "$MORPH_CLUSTER_STATE/pid/node3.sshd")" || fail "stop node3's sshd"
  wait_log "node3: outage probability .* failing, draining it" 30
  timeout 60 bash "$C" up $N >/dev/null || fail "start node3's sshd again"
  echo "$(date +%T.%N | cut -c1-12) node3's sshd started again"
  wait_log "job 1: leaves a failing or draining node by relaunch (node3:2)" 30
  wait_log "job 1: resize [0-9]* done, size 4" 120
  expect_eq "job 1's processes on node3 after the move" "$(procs_on node3 1)" 0
  expect_eq "Open MPI daemons on node3 after the move" "$(orteds_on node3)" 0
  grep -q "relaunching without node3 (node3:2 left it)" "$D/jobs/1.err" ||
    fail "morph run did not relaunch without node3: $(grep 'morph run' "$D/jobs/1.err" | tail -5)"
  # node3's processes are killed on a live link: an Open MPI daemon there
  # would see its sockets close with a FIN, and mpirun 4.1 ends every job
  # that loses a daemon, idle or not (docs/cluster.md). With the job's
  # mpirun gone from node3 nothing of it notices.
  echo "$(date +%T.%N | cut -c1-12) node3 killed"
  bash "$C" kill node3 || fail "kill node3"
  wait_log "job 1 \(completed\|failed\)" 180
  grep -q "job 1 completed (status 0)" "$D/morphd.log" ||
    fail "job 1 did not complete: $(grep "job 1" "$D/morphd.log" | tail -2) $(tail -3 "$D/jobs/1.err")"
  grep -q "job 1 completed (status 0).*lost its idle daemon" "$D/morphd.log" &&
    fail "mpirun still had a daemon on node3: $(grep "job 1 completed" "$D/morphd.log")"
  grep -q "CHECK PASSED" "$D/jobs/1.out" || fail "job 1: $(tail -3 "$D/jobs/1.out")"
  local last
  last=$(grep "rank [0-9] of 4 on" "$D/jobs/1.out" | awk '{print $NF}' | sort | uniq -c | tr -s ' ' | tr '\n' ',')
  expect_eq "hosts of the ranks at size 4" "$last" " 2 node1, 2 node2,"
  grep -E "node|job 1" "$D/morphd.log"
  grep -E "^it|rank" "$D/jobs/1.out"
}


# check_gone NAME SLOT: nothing of instance NAME (slot SLOT) is left.
check_gone() {
  local st=${MORPH_CLUSTER_ROOT:-/run/morph-cluster}/$1
  ip link show "morphbr$2" >/dev/null 2>&1 && fail "bridge morphbr$2 left"
  ip -o link show | grep -q ": morph$2n[0-9]*@" && fail "a veth of slot $2 left"
  [ -z "$(ip -4 -o addr show to "198.18.0.$((32 * $2))/27")" ] || fail "an address of slot $2 left"
  pgrep -f "morph-cluster-hold $1 " >/dev/null && fail "a holder of $1 left"
  instance_gone "$st"
  [ -e "$st.lock" ] && fail "lock file $st.lock left"
  true
}

slot_of() { # NAME
  local a
  a=$(bash "$C" --name "$1" addr head) || return 1
  echo $((${a##*.} / 32))
}

case_down() {
  local slot s
  slot=$(slot_of "$MORPH_CLUSTER") || slot=""
  timeout 60 bash "$C" down || fail "down failed"
  s=$(small_dir)
  if mountpoint -q "$s"; then umount "$s" || fail "cannot unmount $s"; fi
  rmdir "$s" 2>/dev/null
  [ -z "$slot" ] || check_gone "$MORPH_CLUSTER" "$slot"
}

# Two more instances come up at the same time, on distinct /27s, and go
# down, three times.
case_cycles() {
  local a=$MORPH_CLUSTER-a b=$MORPH_CLUSTER-b k sa sb
  # Names expanded now: a and b are local, gone when the EXIT trap runs.
  trap "bash '$C' --name '$a' down >/dev/null 2>&1; bash '$C' --name '$b' down >/dev/null 2>&1" EXIT
  for k in 1 2 3; do
    timeout 60 bash "$C" --name "$a" up 2 >/dev/null &
    timeout 60 bash "$C" --name "$b" up 1 >/dev/null || fail "cycle $k: up of $b"
    wait $! || fail "cycle $k: up of $a"
    sa=$(slot_of "$a") && sb=$(slot_of "$b") || fail "cycle $k: no slots"
    [ "$sa" != "$sb" ] || fail "cycle $k: $a and $b share slot $sa"
    expect_eq "cycle $k: $a node2" "$(timeout 10 bash "$C" --name "$a" exec node2 hostname)" node2
    expect_eq "cycle $k: $b node1 -> head" \
      "$(timeout 10 bash "$C" --name "$b" exec node1 getent hosts head | awk '{print $1}')" \
      "198.18.0.$((32 * sb + 1))"
    timeout 60 bash "$C" --name "$a" down || fail "cycle $k: down of $a"
    timeout 60 bash "$C" --name "$b" down || fail "cycle $k: down of $b"
    check_gone "$a" "$sa"
    check_gone "$b" "$sb"
  done
}

case_not_root() {
  local out rc
  if [ "$EUID" -eq 0 ]; then
    out=$(setpriv --reuid=65534 --regid=65534 --clear-groups bash "$C" status 2>&1)
  else
    out=$(bash "$C" status 2>&1)
  fi
  rc=$?
  expect_eq "exit status without root" "$rc" 77
  grep -q "needs root" <<<"$out" || fail "no clear message: $out"
}

# A live grow onto node3 while node3's cable is out (issue 8): Jacobi at
# 2 on node1 is told to grow onto node3 just after its link went down.
# The spawn cannot reach node3's daemon: every parent rolls back within
# the step time limit, the job goes on at 2 and says the live mechanism is
# off; node3 is plugged back in and the next grow is carried out by
# relaunch (checkpoint in the shared folder). Nothing of the job may be
# left on node3 after the rollback nor anywhere after the end. The
# relaunch 2 -> 4 after the rollback may cost at most twice a later one of
# the same job and data (issue 23: nothing may wait on the abandoned spawn).
case_fallback_link_down() {
  need_jacobi
  local id=fb$$ t t0 n
  MORPH_STEP_TIMEOUT=10 run_on_hosts "$T/log" -n 2 --job-id $id --checkpoint-dir "$T" \
    --schedule "4@it40 onto node3:2,4@it200,2@it230:relaunch,4@it260:relaunch" "$JACOBI" \
    --iters 300 --delay-ms 50 &
  local bg=$!
  for ((t = 0; t < 120; t++)); do
    grep -q "job started" "$T/log" && break
    sleep 0.5
  done
  grep -q "job started" "$T/log" || fail "the job did not start: $(tail -5 "$T/log")"
  bash "$C" link node3 down || fail "link down"
  t0=$SECONDS
  for ((t = 0; t < 240; t++)); do
    grep -q "2->4 live" "$T/log" && break
    sleep 0.5
  done
  echo "the live grow ended $((SECONDS - t0)) s after the cable was pulled"
  grep -q "2->4 live ok" "$T/log" && fail "the grow onto an unplugged node3 succeeded"
  n=$(procs_on node3 $id)
  bash "$C" link node3 up || fail "link up"
  # Not asserted (docs/cluster.md, open): the launch mpirun could not
  # deliver starts the 2 joiners on node3 once it is reachable again; they
  # stay until the relaunch ends that mpirun.
  sleep 4
  local late
  late=$(procs_on node3 $id)
  wait $bg
  RC=$?
  grep "morph run\|CHECK\|later resizes\|spawning" "$T/log"
  [ "$RC" -eq 0 ] || tail -40 "$T/log"
  expect_eq "processes of the job on node3 after the rollback" "$n" 0
  echo "processes of the job on node3 4 s after the cable is back: $late"
  expect_eq "morph run's status" "$RC" 0
  grep -q "later resizes use relaunch" "$T/log" || fail "the log does not say it fell back"
  grep -q "2->4 relaunch ok" "$T/log" || fail "the later grow was not done by relaunch"
  grep -q "^CHECK PASSED" "$T/log" || fail "no CHECK PASSED: $(tail -5 "$T/log")"
  sleep 1
  for n in node1 node2 node3; do
    expect_eq "processes of the job left on $n" "$(procs_on $n $id)" 0
  done
  [ $((SECONDS - t0)) -lt 200 ] || fail "took $((SECONDS - t0)) s"
  fallback_within_twice "$T/log" 2 4 1 2
}


# Grows across hosts whatever came before (issue 23). Open MPI 4.1.4's
# daemon on a host forgets a job when that job's last process there ends,
# and a spawn onto that host whose parents include the job's processes
# then fails (docs/cluster.md); the last leaver of a job on a host stays
# as a placeholder. (1) Jacobi at 6 on node1..3 leaves node3 and grows
# back onto it, twice; ranks where the schedule says. (2) The DMR
# front-end, paper 000's usage: 2 -> 5 onto node2, node3 -> 3 (a spawned
# job's last process leaves node3) -> 8 onto node2, node3 -> 1 -> 4. Every
# resize live, results checked, no placeholder left after the end.
case_regrow_hosts() {
  need_jacobi
  local id=rg$$ b n
  b=$(dirname "$JACOBI")
  run_on_hosts "$T/jacobi" -n 6 --job-id $id --schedule \
    "4@it10 off node3:2,6@it20 onto node3:2,4@it30 off node3:2,6@it40 onto node3:2" \
    "$JACOBI" --iters 60 --delay-ms 50 --hosts
  grep "morph run: job\|CHECK" "$T/jacobi"
  expect_eq "morph run's status (jacobi)" "$RC" 0
  grep -q "^CHECK PASSED" "$T/jacobi" || fail "jacobi: $(tail -5 "$T/jacobi")"
  expect_eq "live resizes (jacobi)" "$(grep -c 'live ok' "$T/jacobi")" 4
  expect_eq "jacobi back at 6" "$(placement "$T/jacobi" 6 last)" \
    "0:node1 1:node1 2:node2 3:node2 4:node3 5:node3"
  run_on_hosts "$T/dmr" -n 2 --job-id ${id}d --schedule "5@it10 onto node2:2+node3:1,\
3@it20 off node2:1+node3:1,8@it30 onto node2:2+node3:3,1@it40,4@it50 onto node2:1+node3:2" \
    "$b/test-dmr-front-end.ompi" 70
  grep "morph run: job\|CHECK" "$T/dmr"
  expect_eq "morph run's status (DMR)" "$RC" 0
  grep -q "^CHECK PASSED" "$T/dmr" || fail "DMR: $(tail -5 "$T/dmr")"
  expect_eq "live resizes (DMR)" "$(grep -c 'live ok' "$T/dmr")" 5
  grep -q "joiners on node2:2,node3:3" "$T/dmr" || fail "the second grow not where named"
  for n in node1 node2 node3; do
    expect_eq "placeholders left on $n" "$(holds_on $n $id)$(holds_on $n ${id}d)" 00
  done
}

# The DMR front-end shrunk off named hosts, so that the stayers are not
# the lowest ranks (issue 23): 2 -> 8 onto node1..3, then 3 off node1:2 +
# node2:3 keeps ranks 0, 6, 7. Its exchange sent old rank r's arrays to
# old rank r mod 3 instead of new rank r mod 3: the stayers waited for
# arrays that went to leavers, the leavers' vote timed out, the front-end
# called MPI_Abort, and mpirun (--enable-recovery) never ended.
case_dmr_shrink_off_hosts() {
  need_jacobi
  local b
  b=$(dirname "$JACOBI")
  # Three slots a node: 8 processes fit without oversubscription.
  printf 'node1 slots=3\nnode2 slots=3\nnode3 slots=3\n' >"$T/hf"
  HF=$T/hf run_on_hosts "$T/log" -n 2 --timeout 120 --schedule \
    "8@it10 onto node1:1+node2:3+node3:2,3@it20 off node1:2+node2:3,5@it30" \
    "$b/test-dmr-front-end.ompi" 50
  grep "morph run: job\|CHECK\|DMR" "$T/log"
  expect_eq "morph run's status" "$RC" 0
  grep -q "^CHECK PASSED" "$T/log" || fail "no CHECK PASSED: $(tail -5 "$T/log")"
  grep -q "8->3 live ok.*leavers were on node1:2,node2:3" "$T/log" || fail "the shrink failed"
}

# A checkpoint folder that is not the same on every host of the job (the
# head's /tmp: each node has its own), or missing, is refused at start
# (issue 23): a relaunch would fail only after the job gave its data up.
# The shared folder passes and the job runs.
case_ckpt_dir_hosts() {
  need_jacobi
  local own=/tmp/morph-ckpt-$$
  mkdir -p "$own"
  run_on_hosts "$T/own" -n 2 --checkpoint-dir "$own" "$JACOBI" --iters 5
  rmdir "$own"
  cat "$T/own"
  expect_eq "status with the head's /tmp" "$RC" 125
  grep -q "checkpoint folder $own is not the same folder on node1, node2, node3" "$T/own" ||
    fail "the hosts that do not see it are not named"
  run_on_hosts "$T/missing.log" -n 2 --checkpoint-dir "$T/none" "$JACOBI" --iters 5
  expect_eq "status with a missing folder" "$RC" 125
  grep -q "checkpoint folder $T/none does not exist" "$T/missing.log" ||
    fail "$(cat "$T/missing.log")"
  run_on_hosts "$T/shared" -n 2 --checkpoint-dir "$T" "$JACOBI" --iters 5
  expect_eq "status with a shared folder" "$RC" 0
  grep -q "^CHECK PASSED" "$T/shared" || fail "$(tail -5 "$T/shared")"
}

# A checkpoint folder that fills during the relaunch's write, the same
# folder on every host (small_dir, 4 KiB): a job on node1 and node2 is
# relaunched 4 -> 2; the write is refused before any data is given up (its
# space is reserved first), and the job goes on at 4 with its data, with
# the native API (Jacobi) and with the DMR front-end, whose arrays are
# known only as they are written.
case_ckpt_full_hosts() {
  need_jacobi
  local s
  s=$(small_dir)
  mountpoint -q "$s" || fail "no small tmpfs at $s (cluster-up mounts it)"
  run_on_hosts "$T/native" -n 4 --report "$T/native.csv" --checkpoint-dir "$s" \
    --schedule "2@it10:relaunch" "$JACOBI" --iters 40
  expect_eq "native API: morph run's status" "$RC" 0
  expect_eq "native API: the relaunch" "$(sed -n 2p "$T/native.csv" | cut -d, -f5-7,9)" \
    "4,4,relaunch,MORPH_EIO"
  grep -q "^CHECK PASSED" "$T/native" || fail "native API: $(tail -5 "$T/native")"
  [ -x "${DMR_FRONT_END:-}" ] || fail "no DMR front-end (DMR_FRONT_END)"
  run_on_hosts "$T/dmr" -n 4 --report "$T/dmr.csv" --checkpoint-dir "$s" \
    --schedule "2@it10:relaunch" "$DMR_FRONT_END" 30
  expect_eq "DMR front-end: morph run's status" "$RC" 0
  expect_eq "DMR front-end: the relaunch" "$(sed -n 2p "$T/dmr.csv" | cut -d, -f5-7,9)" \
    "4,4,relaunch,MORPH_EIO"
  grep -q "DMR:" "$T/dmr" && fail "the DMR front-end gave up: $(grep DMR: "$T/dmr")"
  grep -q "CHECK PASSED" "$T/dmr" || fail "DMR front-end: $(tail -5 "$T/dmr")"
  expect_eq "files left in the small folder" "$(ls -A "$s" | wc -l)" 0
}


# relaunch_s LOG FROM TO K: what the Kth "FROM->TO relaunch ok" cost, checkpoint
# and restart (not the wait for the iteration its decision named).
relaunch_s() {
  grep -o "job $2->$3 relaunch ok in .*(checkpoint [0-9.]*, restart [0-9.]*" "$1" | sed -n "$4p" |
    sed 's/.*(checkpoint \([0-9.]*\), restart \([0-9.]*\)/\1 \2/' | awk '{print $1 + $2}'
}

# fallback_within_twice LOG FROM TO K_AFTER K_NORMAL: the K_AFTERth
# FROM->TO relaunch (the one after the failed grow) cost at most twice the
# K_NORMALth (issue 23); both are printed as a RESULT line.
fallback_within_twice() {
  local a b
  a=$(relaunch_s "$1" "$2" "$3" "$4")
  b=$(relaunch_s "$1" "$2" "$3" "$5")
  [ -n "$a" ] && [ -n "$b" ] || fail "not two relaunches $2 -> $3"
  echo "RESULT fallback_relaunch_s=$a normal_relaunch_s=$b"
  awk -v a="$a" -v b="$b" 'BEGIN { exit !(a <= 2 * b) }' ||
    fail "the relaunch after the failed grow took $a s, more than twice the normal $b s"
}

# A cross-host grow whose joiners hang as they start (SIGSTOP: the parents
# wait in Open MPI's connect for joiners that never answer, as when the
# target host's daemon died under them), then a relaunch (issue 23): the relaunch after the rollback may cost at most
# twice the same relaunch (4 -> 2, same job, same data) done before the
# failure in the same run. The abandoned spawn used to hold Open MPI's
# progress engine, and the checkpoint waited for minutes.
case_fallback_joiners_stopped() {
  need_jacobi
  local id=js$$ t pids=""
  MORPH_STEP_TIMEOUT=10 run_on_hosts "$T/log" -n 4 --job-id $id --checkpoint-dir "$T" \
    --schedule "2@it20:relaunch,4@it40:relaunch,6@it60 onto node3:2,2@it80" "$JACOBI" \
    --iters 120 --delay-ms 50 &
  local bg=$!
  for ((t = 0; t < 1500; t++)); do
    kill -0 $bg 2>/dev/null || break
    pids=$(pids_on node3 $id)
    [ -n "$pids" ] && break
    sleep 0.1
  done
  [ -n "$pids" ] && kill -STOP $pids
  echo "joiners stopped on node3: ${pids:-none}"
  wait $bg
  RC=$?
  grep "morph run: job\|CHECK\|later resizes" "$T/log"
  grep -q "4->6 live failed" "$T/log" || fail "the grow onto node3 did not fail"
  expect_eq "morph run's status" "$RC" 0
  grep -q "^CHECK PASSED" "$T/log" || fail "no CHECK PASSED: $(tail -5 "$T/log")"
  fallback_within_twice "$T/log" 4 2 2 1
  expect_eq "processes of the job left on node3" "$(procs_on node3 $id)" 0
}

fn=case_${CASE//-/_}
declare -F "$fn" >/dev/null || { echo "no case $CASE"; exit 2; }
"$fn"
echo "PASS ($CASE)"
