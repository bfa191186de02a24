# Sourced by the shell cases that run a real morphd (tests/morphd/cases.sh,
# tests/policy/live.sh): `. morphd-case.sh PREFIX`. Needs MORPH, QUERY and
# BIN (set by CMake); makes the case's folder $T (/tmp/PREFIX.XXXXXX) with
# the daemon's folder $D, and on exit, whatever happens, stops the daemon
# started into $daemon_pid, its jobs and their process groups, and removes
# $T (kept when KEEP is set). start_daemon ARGS... starts morphd on $D and
# waits for it (at most 10 s; the sourcing script's fail() on timeout).
: "${MORPH:?}" "${QUERY:?}" "${BIN:?}"
T=$(mktemp -d "/tmp/$1.XXXXXX")
D=$T/d
daemon_pid=

cleanup() {
  if [ -n "$daemon_pid" ] && kill -0 "$daemon_pid" 2>/dev/null; then
    timeout 30 "$MORPH" daemon -d "$D" --stop --kill-jobs > /dev/null 2>&1 || true
    kill -9 "$daemon_pid" 2>/dev/null || true
  fi
  if [ -f "$D/journal.db" ]; then
    for pid in $("$QUERY" "$D/journal.db" "SELECT pid FROM jobs WHERE pid > 0" 2>/dev/null); do
      kill -9 -- "-$pid" 2>/dev/null || true
    done
  fi
  [ -n "${KEEP:-}" ] || rm -rf "$T"
}
trap cleanup EXIT

start_daemon() {
  "$MORPH" daemon -d "$D" "$@" >> "$T/morphd.log" 2>&1 &
  daemon_pid=$!
  for _ in $(seq 100); do
    [ -S "$D/morphd.sock" ] && "$MORPH" status -d "$D" > /dev/null 2>&1 && return 0
    sleep 0.1
  done
  fail "morphd did not start"
}
