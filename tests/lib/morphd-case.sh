# Sourced by the shell cases that run a real morphd (tests/morphd/cases.sh,
# tests/policy/live.sh, tests/durability/cases.sh): `. morphd-case.sh PREFIX`. Needs MORPH, QUERY and
# BIN (set by CMake); makes the case's folder $T (/tmp/PREFIX.XXXXXX) with
# the daemon's folder $D, and on exit, whatever happens, stops the daemon
# started into $daemon_pid, its jobs and their process groups, and removes
# $T (kept when KEEP is set). start_daemon ARGS... starts morphd on $D and
# waits for it (at most 10 s; fail() on timeout). fail MESSAGE prints
# "FAIL: MESSAGE" and the end of morphd's log and exits 1; a script may
# define its own after sourcing this.
# The journal is $J when the case sets it (--journal), else $D/journal.db.
: "${MORPH:?}" "${QUERY:?}" "${BIN:?}"
T=$(mktemp -d "/tmp/$1.XXXXXX")
D=$T/d
daemon_pid=

fail() {
  echo "FAIL: $*"
  [ -f "$T/morphd.log" ] && { echo "--- morphd log"; tail -40 "$T/morphd.log"; }
  exit 1
}

cleanup() {
  if [ -n "$daemon_pid" ] && kill -0 "$daemon_pid" 2>/dev/null; then
    timeout 30 "$MORPH" daemon -d "$D" --stop --kill-jobs > /dev/null 2>&1 || true
    kill -9 "$daemon_pid" 2>/dev/null || true
  fi
  if [ -f "${J:-$D/journal.db}" ]; then
    for pid in $("$QUERY" "${J:-$D/journal.db}" "SELECT pid FROM jobs WHERE pid > 0" 2>/dev/null); do
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

# journal_wait SECONDS SQL EXPECTED: polls the journal ($J, default
# $D/journal.db) until SQL prints EXPECTED; fail() when it does not in time.
journal_wait() {
  local until=$((SECONDS + $1)) got=
  while [ $SECONDS -lt "$until" ]; do
    got=$("$QUERY" "${J:-$D/journal.db}" "$2" 2>/dev/null) || got=
    [ "$got" = "$3" ] && return 0
    sleep 0.3
  done
  fail "timed out waiting for [$2] = $3 (got '$got')"
}
