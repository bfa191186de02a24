#!/bin/sh
# run-check.sh MIN_RESIZES COMMAND...
# Runs an example application and passes if it exits with status 0, printed
# "CHECK PASSED", and reported at least MIN_RESIZES size changes (progress
# lines "it N: A -> B procs (" or "it N: restarted at"), so that a schedule
# that silently did nothing cannot pass as a malleable run.
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
n=$(printf '%s\n' "$out" | grep -cE '^it [0-9]+: ([0-9]+ -> [0-9]+ procs \(|restarted at)')
if [ "$n" -lt "$min" ]; then
  echo "run-check: $n size changes reported, expected at least $min"
  exit 1
fi
echo "run-check: ok ($n size changes)"
