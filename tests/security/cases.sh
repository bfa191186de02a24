#!/usr/bin/env bash
# Attacks on morphd run by root as a shared service (docs/security.md), one
# per ctest test, each carried out for real by a second, unprivileged user
# made for the case (useradd) and removed on every path:
#   bash cases.sh <case>     (MORPH, QUERY, BIN set by CMake)
# The TCP cases run beside a private munged (tests/protocol/with-munged.sh).
# Without root every case exits 77 (skipped): only root can make a user.
set -euo pipefail
[ "$(id -u)" = 0 ] || { echo "needs root to make a second user: skipped"; exit 77; }
. "$(dirname "$0")/../lib/morphd-case.sh" morphd-sec
PEERS=$(cd "$(dirname "$0")" && pwd)/peers.py
chmod 711 "$T" # the second user reaches the daemon's folder inside

# Users of cases killed at their time limit (no trap ran) go first.
for u in $(getent passwd | cut -d: -f1 | grep -E '^msec[0-9]+$' || true); do
  kill -0 "${u#msec}" 2>/dev/null || userdel "$u" 2>/dev/null || true
done
U=msec$$
useradd -M -r -U -s /usr/sbin/nologin "$U"
UID_U=$(id -u "$U")
sec_cleanup() {
  pkill -KILL -u "$U" 2>/dev/null || true
  cleanup
  userdel "$U" 2>/dev/null || true
  getent group "$U" > /dev/null && groupdel "$U" 2>/dev/null || true
}
trap sec_cleanup EXIT

fail() {
  echo "FAIL: $*"
  [ -f "$T/morphd.log" ] && { echo "--- morphd log"; tail -30 "$T/morphd.log"; }
  exit 1
}
as_user() { runuser -u "$U" -- "$@"; }
q() { "$QUERY" "$D/journal.db" "$1"; }
submit() { "$MORPH" submit -d "$D" -q "$@"; }
state() { q "SELECT state FROM jobs WHERE id = $1"; }
# wait_state SECONDS JOB STATE...: until the job is in one of the states.
wait_state() {
  local until=$((SECONDS + $1)) job=$2 s
  shift 2
  while [ $SECONDS -lt $until ]; do
    s=$(state "$job" 2>/dev/null || true)
    for want in "$@"; do [ "$s" = "$want" ] && return 0; done
    sleep 0.2
  done
  fail "job $job is '$s', not $*"
}
# refused CMD...: the command must fail (within 10 s: a daemon that
# starts instead runs on); its output is in $out.
refused() {
  local rc=0
  out=$(timeout 10 "$@" 2>&1) || rc=$?
  [ $rc = 124 ] && fail "not refused (still running after 10 s): $*"
  [ $rc != 0 ] || fail "not refused: $* -> $out"
}

# A folder another user made first (the old default /tmp/morph-<uid> was a
# predictable name in /tmp), a symbolic link, and a folder others may write
# in are all refused, naming the folder; nothing is created in them.
case_state_folder_not_ours_refused() {
  mkdir "$T/planted" && chown "$U" "$T/planted"
  refused "$MORPH" daemon -d "$T/planted"
  echo "$out" | grep -q "$T/planted: it belongs to another user" || fail "message: $out"
  [ -z "$(ls -A "$T/planted")" ] || fail "something was created in the planted folder"
  mkdir "$T/real" && ln -s "$T/real" "$T/link"
  refused "$MORPH" daemon -d "$T/link"
  echo "$out" | grep -q "symbolic link" || fail "message: $out"
  mkdir "$T/open" && chmod 777 "$T/open"
  refused "$MORPH" daemon -d "$T/open"
  echo "$out" | grep -q "others may write in it" || fail "message: $out"
  # The default is no longer a name in /tmp.
  refused env -u MORPH_DIR "$MORPH" status
  echo "$out" | grep -q "/var/lib/morph" || fail "root's default folder: $out"
  echo "PASS: planted, linked and open folders refused"
}

# A journal another user planted (a pending job that would run as root),
# or a link to one, is refused before it is read.
case_planted_journal_refused() {
  mkdir "$T/j1"
  as_user touch "$T/planted.db" 2>/dev/null || { touch "$T/planted.db"; chown "$U" "$T/planted.db"; }
  cp "$T/planted.db" "$T/j1/journal.db" && chown "$U" "$T/j1/journal.db"
  refused "$MORPH" daemon -d "$T/j1"
  echo "$out" | grep -q "journal.db: it belongs to another user" || fail "message: $out"
  mkdir "$T/j2" && ln -s "$T/planted.db" "$T/j2/journal.db"
  refused "$MORPH" daemon -d "$T/j2"
  echo "$out" | grep -q "journal.db: it is a symbolic link" || fail "message: $out"
  echo "PASS: planted journals refused"
}

# A root job's output named through a link another user planted does not
# overwrite root's file, and a user's job cannot write where its user may
# not (it runs as that user).
case_job_output_never_follows_a_link() {
  start_daemon --slots 2 --interval 0.3
  echo precious > "$T/rootfile" && chmod 644 "$T/rootfile"
  mkdir "$T/ud" && chown "$U" "$T/ud"
  as_user ln -s "$T/rootfile" "$T/ud/out"
  a=$(submit -n 1 -o "$T/ud/out" -- /bin/echo overwritten-by-root-job)
  b=$(as_user "$MORPH" submit -d "$D" -q -n 1 -o "$T/rootfile" -- /bin/echo overwritten-by-user)
  wait_state 60 "$a" completed failed
  wait_state 60 "$b" completed failed
  [ "$(cat "$T/rootfile")" = precious ] || fail "root's file was overwritten: $(cat "$T/rootfile")"
  echo "PASS: root's file intact"
}

# A job runs as the user who submitted it, and its default outputs are
# that user's alone.
case_job_runs_as_its_owner() {
  start_daemon --slots 2 --interval 0.3
  a=$(as_user "$MORPH" submit -d "$D" -q -n 1 -- /usr/bin/id -u)
  r=$(submit -n 1 -- /usr/bin/id -u)
  wait_state 60 "$a" completed failed
  wait_state 60 "$r" completed failed
  grep -qx "$UID_U" "$D/jobs/$a.out" || fail "job $a ran as: $(cat "$D/jobs/$a.out")"
  grep -qx 0 "$D/jobs/$r.out" || fail "root's job $r ran as: $(cat "$D/jobs/$r.out")"
  [ "$(stat -c '%U %a' "$D/jobs/$a.out")" = "$U 600" ] || fail "output: $(stat -c '%U %a' "$D/jobs/$a.out")"
  echo "PASS: ran as uid $UID_U, output its own"
}

# Another user's job can be neither cancelled nor read; one's own can;
# root (an administrator) acts on every job.
case_another_users_job_is_not_yours() {
  start_daemon --slots 2 --interval 0.3
  a=$(submit -n 1 -J rootsecretname -- /bin/sleep 60)
  wait_state 30 "$a" running
  refused runuser -u "$U" -- "$MORPH" cancel -d "$D" "$a"
  echo "$out" | grep -q "belongs to another user" || fail "message: $out"
  [ "$(state "$a")" = running ] || fail "root's job was cancelled by uid $UID_U"
  st=$(as_user "$MORPH" status -d "$D")
  echo "$st" | grep -q rootsecretname && fail "uid $UID_U reads root's job: $st"
  "$MORPH" status -d "$D" | grep -q rootsecretname || fail "root does not see its own job"
  b=$(as_user "$MORPH" submit -d "$D" -q -n 1 -- /bin/sleep 60)
  wait_state 30 "$b" running
  as_user "$MORPH" cancel -d "$D" "$b" > /dev/null || fail "uid $UID_U cannot cancel its own job"
  "$MORPH" cancel -d "$D" "$a" > /dev/null || fail "root cannot cancel its job"
  wait_state 30 "$a" cancelled
  wait_state 30 "$b" cancelled
  echo "PASS: cancel and details refused to others, allowed to owner and root"
}

# Only an administrator stops morphd: root, or a member of --admin-group.
case_only_an_administrator_stops_morphd() {
  start_daemon --slots 2
  refused runuser -u "$U" -- "$MORPH" daemon -d "$D" --stop
  echo "$out" | grep -q "only an administrator" || fail "message: $out"
  kill -0 "$daemon_pid" || fail "morphd stopped for uid $UID_U"
  "$MORPH" daemon -d "$D" --stop > /dev/null
  wait "$daemon_pid" || true
  start_daemon --slots 2 --admin-group "$U"
  as_user "$MORPH" daemon -d "$D" --stop > /dev/null || fail "a member of --admin-group cannot stop it"
  echo "PASS: stop refused to a user, allowed to the admin group"
}

# A relay speaks for a job only as the job's owner with the job's secret,
# and only one at a time: a HELLO without the secret, with a wrong one,
# from another user, or a second one while the real relay is connected
# is refused, logged and closed; the job runs on and completes.
case_relay_needs_owner_and_secret() {
  start_daemon --slots 2 --interval 0.3
  a=$(submit --min 1 --max 1 -n 1 -- "$BIN/jacobi.ompi" --iters 2000 --delay-ms 15)
  wait_state 30 "$a" running
  # Its relay says HELLO once mpirun has started the job (status shows
  # "not connected" until then).
  local until=$((SECONDS + 60))
  while "$MORPH" status -d "$D" | grep -q "not connected"; do
    [ $SECONDS -lt $until ] || fail "job $a's relay never connected"
    sleep 0.2
  done
  secret=$(q "SELECT secret FROM jobs WHERE id = $a")
  [ ${#secret} = 64 ] || fail "job $a has no secret: '$secret'"
  r=$(python3 "$PEERS" hello "$D/morphd.sock" "$a")
  echo "$r" | grep -q "wrong or missing job secret" || fail "no secret: $r"
  echo "$r" | grep -q closed || fail "connection left open: $r"
  r=$(python3 "$PEERS" hello "$D/morphd.sock" "$a" "$(printf '%064d' 7)")
  echo "$r" | grep -q "wrong or missing job secret" || fail "wrong secret: $r"
  r=$(as_user python3 "$PEERS" hello "$D/morphd.sock" "$a" "$secret")
  echo "$r" | grep -q "belongs to uid 0, not to uid $UID_U" || fail "other user: $r"
  r=$(python3 "$PEERS" hello "$D/morphd.sock" "$a" "$secret")
  echo "$r" | grep -q "has a relay connected already" || fail "second relay: $r"
  grep -q "refused a relay" "$T/morphd.log" || fail "refusals not logged"
  wait_state 170 "$a" completed
  grep -q "^CHECK PASSED" "$D/jobs/$a.out" || fail "job $a: $(tail -3 "$D/jobs/$a.out")"
  echo "PASS: four false relays refused; the job completed"
}

# TCP: an on-path relay passes the MUNGE handshake through and then
# injects a command; morphd refuses the line, logs it and closes that
# connection; the job it named runs on.
case_tcp_injected_line_refused() {
  # Below the ephemeral range (32768-60999), where a flood's own ends live.
  port=$((20000 + RANDOM % 12000)) proxy=$((10000 + RANDOM % 10000))
  "$MORPH" daemon -d "$D" --socket "127.0.0.1:$port" --slots 2 --interval 0.3 >> "$T/morphd.log" 2>&1 &
  daemon_pid=$!
  for _ in $(seq 100); do "$MORPH" status --socket "127.0.0.1:$port" > /dev/null 2>&1 && break; sleep 0.1; done
  a=$("$MORPH" submit --socket "127.0.0.1:$port" -q -n 1 -- /bin/sleep 60)
  wait_state 30 "$a" running
  python3 "$PEERS" proxy "$proxy" "$port" "{\"cmd\":\"cancel\",\"id\":$a}" > "$T/proxy.out" &
  local ppid=$!
  for _ in $(seq 50); do ss -ltn | grep -q ":$proxy " && break; sleep 0.1; done
  "$MORPH" status --socket "127.0.0.1:$proxy" > "$T/status.out" 2>&1 || true
  wait "$ppid" || true
  grep -q injected "$T/proxy.out" || fail "the proxy injected nothing"
  grep -q "not its next sealed line" "$T/morphd.log" || fail "not logged: $(tail -5 "$T/morphd.log")"
  [ "$(state "$a")" = running ] || fail "the injected cancel took effect: $(state "$a")"
  "$MORPH" cancel --socket "127.0.0.1:$port" "$a" > /dev/null
  "$MORPH" daemon --socket "127.0.0.1:$port" --stop > /dev/null 2>&1 || true
  echo "PASS: injected line refused and logged, job $a kept running"
}

# flood_case ADDR: another user opens 1,500 silent and 500 half-open
# connections to ADDR (for 20 s, bounded) while a client of root's asks for
# the status and submits every half second (security-ask, timing each
# request from its connection to morphd's answer); every one must be
# answered within 2 s.
flood_case() {
  local addr=$1
  as_user python3 "$PEERS" flood "$addr" 1500 500 20 > "$T/flood.out" &
  local fpid=$!
  sleep 1
  "$ASK" "$addr" 16 0.5 > "$T/ask.out"
  wait "$fpid" || true
  grep -q failed "$T/ask.out" && fail "a request failed during the flood: $(grep failed "$T/ask.out")"
  local n worst
  n=$(wc -l < "$T/ask.out")
  worst=$(awk '{ if ($2 > w) w = $2 } END { print w + 0 }' "$T/ask.out")
  [ "$n" -ge 10 ] || fail "only $n requests made"
  [ "$(awk -v w="$worst" 'BEGIN { print (w < 2) }')" = 1 ] || fail "a request took $worst s during the flood"
  echo "PASS: $(cat "$T/flood.out") hostile connections; slowest of $n requests $worst s"
}

case_flood_unix_never_locks_a_client_out() {
  start_daemon --slots 2 --interval 0.3
  flood_case "$D/morphd.sock"
  s=$(as_user python3 "$PEERS" silent "$D/morphd.sock")
  [ "$(awk -v s="$s" 'BEGIN { print (s >= 9 && s < 13) }')" = 1 ] || fail "a silent connection was closed after $s s"
}

case_flood_tcp_never_locks_a_client_out() {
  port=$((20000 + RANDOM % 12000))
  "$MORPH" daemon -d "$D" --socket "127.0.0.1:$port" --slots 2 --interval 0.3 >> "$T/morphd.log" 2>&1 &
  daemon_pid=$!
  for _ in $(seq 100); do "$MORPH" status --socket "127.0.0.1:$port" > /dev/null 2>&1 && break; sleep 0.1; done
  flood_case "127.0.0.1:$port"
  "$MORPH" daemon --socket "127.0.0.1:$port" --stop > /dev/null 2>&1 || true
}

"case_$1"
