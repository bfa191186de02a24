#!/bin/sh
# run-check.sh MIN_ATTEMPTS COMMAND...
# Runs an example application and passes if it exits with status 0 and
# printed "CHECK PASSED". With MIN_ATTEMPTS > 0 it must also have reported
# at least that many reconfiguration attempts ("it N: A -> B procs (",
# "it N: restarted at", or "... procs failed, kept" for one morph rolled
# back), at least one of them successful, so that a schedule that silently
# did nothing cannot pass. A rolled-back attempt counts: Open MPI's spawn
# can hang (docs/runtime.md), and then what matters is that the job went
# on at its old size with correct data, which the check verifies.
min=$1
shift
out=$("$@" 2>&1)
rc=$?
printf '%s\n' "$out"
if [ "$rc" -ne 0 ]; then
  echo "run-check: exit status $rc"
  exit 1
fi
if ! printf '%s\n' "$out" | grep -q '^CHECK PASSED'; then
  echo "run-check: no CHECK PASSED line"
  exit 1
fi
ok=$(printf '%s\n' "$out" | grep -cE '^it -?[0-9]+: ([0-9]+ -> [0-9]+ procs \(|restarted at)')
failed=$(printf '%s\n' "$out" | grep -cE '^it -?[0-9]+: [0-9]+ -> [0-9]+ procs failed, kept')
if [ "$min" -gt 0 ] && { [ $((ok + failed)) -lt "$min" ] || [ "$ok" -lt 1 ]; }; then
  echo "run-check: $ok size changes and $failed rolled back, expected $min attempts, 1 successful"
  exit 1
fi
echo "run-check: ok ($ok size changes, $failed rolled back)"
