#!/bin/bash
# The command line's conventions (docs/run.md, "Exit status"), one CTest
# test per case: cases.sh <case>. Every subcommand refuses a usage error
# with exit status 2 and a message that begins with "morph <command>: "
# (never the path of the program that runs it), before it creates or
# starts anything. Needs MORPH (the dispatcher), MORPH_VERSION; the submit
# case QUERY and BIN (tests/lib/morphd-case.sh).
set -u
CASE=$1
: "${MORPH:?}"
W=$(mktemp -d /tmp/test-cli.XXXXXX)
trap 'rm -rf "$W"' EXIT
cd "$W" || exit 1

fail() {
  echo "FAIL ($CASE): $*"
  echo "--- stderr"; cat err 2>/dev/null
  exit 1
}

# usage_error WANT-IN-STDERR ARGS...: `morph ARGS` exits 2, its first line
# on stderr begins with "morph <command>" and the stderr holds WANT.
usage_error() {
  local want=$1 rc first
  shift
  timeout 20 "$MORPH" "$@" >out 2>err </dev/null
  rc=$?
  [ "$rc" -eq 2 ] || fail "morph $*: exit status $rc, expected 2"
  first=$(head -1 err)
  case $first in "morph $1"*) ;; *) fail "morph $*: stderr begins '$first', not 'morph $1'" ;; esac
  grep -qF -- "$want" err || fail "morph $*: stderr lacks '$want'"
  echo "ok: morph $* -> 2: $first"
}

# common CMD: what every subcommand shares: an unknown option, an option
# without its value, and --help (exit 0, usage on stdout).
common() {
  usage_error "unrecognized option '--no-such-option'" "$1" --no-such-option
  usage_error "requires an argument" "$1" "$2"
  timeout 20 "$MORPH" "$1" --help >out 2>err || fail "morph $1 --help: exit status $?"
  grep -q "usage: morph $1" out || fail "morph $1 --help: no usage line on stdout"
}

# morphd_case PREFIX: a real morphd's case (tests/lib/morphd-case.sh: its
# folder $T and daemon $D, removed on exit in place of $W).
morphd_case() {
  cd / && rm -rf "$W"
  . "$(dirname "$0")/../lib/morphd-case.sh" "$1"
  cd "$T" || exit 1
}

# not_created DIR: a refused command left nothing behind.
not_created() { [ ! -e "$1" ] || fail "$1 was created before the refusal"; }

case_usage_run() {
  common run -n
  usage_error "unknown mechanism 'nope'" run -n 2 --mechanism nope true
  usage_error "unknown MPI" run -n 2 --mpi nope true
  usage_error "no program to run" run -n 2
}

case_usage_submit() {
  common submit --min
  # Refused by the client, in the words of the options given: no morphd
  # is asked (there is none at $W/none).
  usage_error "--min 4 is larger than --max 2" submit -d "$W/none" --min 4 --max 2 true
  usage_error "--pref 8 is above --max 4" submit -d "$W/none" --max 4 --pref 8 true
  usage_error "-n 2 is below --min 3" submit -d "$W/none" -n 2 --min 3 true
  usage_error "not a valid number of slots: x" submit -n x true
}

case_usage_status() {
  common status -d
}

case_usage_cancel() {
  common cancel -d
  usage_error "'abc' is not a job id" cancel -d "$W/none" 1 abc
  usage_error "which job?" cancel
}

case_usage_workload() {
  common workload --every
  usage_error "'x' is not a number of seconds" workload --every x run f.json
  usage_error "unrecognized option '--no-such-option'" workload lublin --no-such-option
  # "morph workload lublin", not the sub-command's own name.
  grep -q "^morph workload lublin: " err || fail "lublin's message does not name morph workload lublin"
}

case_usage_report() {
  common report -o
  usage_error "'x' is not a valid number" report --interval x
}

case_usage_daemon() {
  common daemon -p
  # Every option is checked before the state folder is made.
  usage_error "unknown policy 'nope'" daemon -d "$W/d1" -p nope
  not_created "$W/d1"
  usage_error "unknown backend 'nope'" daemon -d "$W/d2" -b nope
  not_created "$W/d2"
  usage_error "unknown placement 'nope'" daemon -d "$W/d3" --placement nope
  not_created "$W/d3"
  usage_error "no such group" daemon -d "$W/d4" --admin-group no-such-group-of-morph
  not_created "$W/d4"
  usage_error "bad policy parameter" daemon -d "$W/d5" --param no_such_param=1
  not_created "$W/d5"
  usage_error "unexpected argument" daemon -d "$W/d6" extra
  not_created "$W/d6"
}

case_usage_sim() {
  common sim -p
  usage_error "unknown policy 'nope'" sim --generate 5 -p nope
  usage_error "unknown placement 'nope'" sim --generate 5 --placement nope
  usage_error "unknown kind 'nope'" sim --generate 5 --kind nope
  usage_error "exactly one of" sim
  usage_error "unrecognized option" sim limits --no-such-option
  grep -q "^morph sim limits: " err || fail "limits' message does not name morph sim limits"
}

case_usage_prof() {
  common prof -o
  usage_error "'nope' is not ompi or mpich" prof --mpi nope -- true
  usage_error "give either a COMMAND" prof
}

# The dispatcher itself: --version, an unknown command or option.
case_dispatcher() {
  local v
  v=$("$MORPH" --version) || fail "morph --version: exit status $?"
  [ "$v" = "morph ${MORPH_VERSION:?}" ] || fail "morph --version printed '$v'"
  echo "ok: morph --version: $v"
  "$MORPH" --help | grep -q -- "--version" || fail "morph --help does not list --version"
  "$MORPH" no-such-command 2>err && fail "morph no-such-command succeeded"
  [ $? -eq 2 ] || fail "morph no-such-command: not 2"
  grep -q "'no-such-command' is not a morph command" err || fail "no message for an unknown command"
  "$MORPH" --no-such-option 2>err && fail "morph --no-such-option succeeded"
  [ $? -eq 2 ] || fail "morph --no-such-option: not 2"
  grep -q "^morph: unknown option '--no-such-option'" err || fail "no message for an unknown option"
  "$MORPH" >/dev/null 2>&1
  [ $? -eq 2 ] || fail "morph without a command: not 2"
  # Every command morph --help lists is there (prof was listed, not installed).
  for c in $("$MORPH" --help | awk '/^commands:/ {on = 1; next} on && !NF {exit} on {print $1}'); do
    "$MORPH" "$c" --help >/dev/null 2>&1 || fail "morph --help lists $c, but 'morph $c --help' fails"
  done
}

# morph submit says what it asked morphd for: a malleable job starts at its
# preferred size and may then be resized within its limits. The daemon's
# launcher is a stand-in that sleeps: no job really runs.
case_submit_confirms_kind() {
  : "${QUERY:?}" "${BIN:?}"
  morphd_case test-cli-submit
  printf '#!/bin/sh\nexec sleep 60\n' >"$T/launcher"
  chmod +x "$T/launcher"
  start_daemon --slots 8 --launcher "$T/launcher"
  expect_submit "submitted job 1 (malleable: starts on 2 slots, resized within 1-4, preferring 2)" \
    --min 1 --pref 2 --max 4
  expect_submit "submitted job 2 (rigid, 2 slots)" -n 2
  expect_submit "submitted job 3 (moldable, 1-3 slots)" -n 1-3
  expect_submit "submitted job 4 (flexible: starts on 1-3 slots, resized within 1-6, preferring 3)" \
    -n 1-3 --max 6
  expect_submit "submitted job 5 (malleable: starts on 1 slot, resized within 1-8, preferring 1)" \
    --max 8
}

# `morph daemon --stop` returns once morphd has ended, not only its socket:
# morphd writes its last journal line and closes the journal after removing
# the socket, and scripts/demo.sh read the journal right after --stop
# ("database is locked", issue 26). A reader holding the journal's write
# lock for 2 s makes that last write wait (morphd's busy time-out is 5 s),
# so a --stop that returns with the socket returns while morphd runs.
case_daemon_stop_waits_for_exit() {
  : "${QUERY:?}" "${BIN:?}"
  morphd_case test-cli-stop
  local state holder t0=$SECONDS
  start_daemon --slots 1
  python3 -c 'import sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("BEGIN IMMEDIATE"); print("locked", flush=True); time.sleep(2); c.execute("COMMIT")' \
    "$D/journal.db" >lock.out &
  holder=$!
  for _ in $(seq 50); do grep -q locked lock.out && break; sleep 0.1; done
  grep -q locked lock.out || fail "could not lock the journal"
  "$MORPH" daemon -d "$D" --stop >/dev/null 2>&1 || fail "--stop failed"
  state=$(awk '{print $3}' "/proc/$daemon_pid/stat" 2>/dev/null)
  wait "$holder"
  [ -z "$state" ] || [ "$state" = Z ] || fail "morphd still running (state $state) when --stop returned"
  sqlite3 "$D/journal.db" "SELECT count(*) FROM events" >/dev/null 2>err ||
    fail "the journal cannot be read after --stop: $(cat err)"
  echo "ok: morphd had ended when --stop returned, $((SECONDS - t0)) s"
}

# expect_submit LINE SUBMIT-OPTIONS...
expect_submit() {
  local want=$1 got
  shift
  got=$("$MORPH" submit -d "$D" "$@" -- /bin/true) || fail "submit $*: exit status $?"
  [ "$got" = "$want" ] || fail "submit $*: printed '$got', expected '$want'"
  echo "ok: morph submit $*: $got"
}

fn=case_${CASE//-/_}
declare -f "$fn" >/dev/null || { echo "unknown case $CASE"; exit 2; }
"$fn"
echo "PASS ($CASE)"
