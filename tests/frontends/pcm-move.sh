#!/bin/sh
# pcm-move.sh CASE MORPH_RUN PCM_HEAT: PCM migration's bad input on one
# host (the live moves across hosts are tests/cluster's pcm-move).
#   relaunch      a move under the relaunch mechanism is refused
#                 (MORPH_ENOSYS: a relaunch cannot place onto a host); the
#                 job runs on at its size, CHECK PASSED
#   unknown-host  a move onto a host the job does not have: morph run
#                 refuses it before starting (status 125, names the host)
set -u
case=$1 run=$2 heat=$3
here=$(hostname)
case $case in
relaunch)
  out=$("$run" -n 2 --mechanism relaunch --timeout 120 --schedule "move@it5 off localhost onto $here" \
    -- "$heat" --size 48 --iters 30 --delay-ms 20 2>&1)
  rc=$?
  printf '%s\n' "$out"
  [ $rc -eq 0 ] || { echo "FAIL: status $rc"; exit 1; }
  printf '%s\n' "$out" | grep -q '^CHECK PASSED' || { echo "FAIL: no CHECK PASSED"; exit 1; }
  printf '%s\n' "$out" | grep -q "job 2->2 [a-z]* failed: MORPH_ENOSYS: a move needs the live mechanism" ||
    { echo "FAIL: the move was not refused as documented"; exit 1; }
  ;;
unknown-host)
  out=$("$run" -n 2 --timeout 60 --schedule "move@it5 off $here onto node9" -- "$heat" --iters 10 2>&1)
  rc=$?
  printf '%s\n' "$out"
  [ $rc -eq 125 ] || { echo "FAIL: status $rc, expected 125"; exit 1; }
  printf '%s\n' "$out" | grep -q "schedule entry 'move@it5 off $here onto node9': 'node9' is not a host of the job (no --hostfile: this host only" ||
    { echo "FAIL: the refusal does not name the entry and the host"; exit 1; }
  ;;
*)
  echo "usage: pcm-move.sh relaunch|unknown-host MORPH_RUN PCM_HEAT"
  exit 2
  ;;
esac
echo "pcm-move $case: ok"
