#!/bin/sh
# expect-abort.sh MESSAGE COMMAND...: passes if COMMAND ends with a non-zero
# status after printing MESSAGE (an error without `ierr` is fatal, as under
# MPI's default error handler, and says why).
msg=$1
shift
out=$("$@" 2>&1)
rc=$?
printf '%s\n' "$out"
[ "$rc" -ne 0 ] || { echo "expect-abort: exit status 0"; exit 1; }
printf '%s\n' "$out" | grep -qF "$msg" || { echo "expect-abort: no line with: $msg"; exit 1; }
echo "expect-abort: ok (status $rc)"
