#!/usr/bin/env bash
# The demo (README's first command): morphd on this machine with a few
# oversubscribed slots runs examples/demo-workload.json, a dozen jobs of the
# example applications, some malleable, some rigid. While it runs, `morph
# status` snapshots show jobs growing and shrinking; at the end come the
# report and the plots. Every process it starts is stopped, also on Ctrl-C.
#
#   scripts/demo.sh [--slots N] [--workload FILE] [--out DIR]
#
# Installs what is missing (scripts/setup.sh) and builds into $MORPH_BUILD
# (default build/) first.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${MORPH_BUILD:-$root/build}
slots=6
workload=$root/examples/demo-workload.json
out=
while [ $# -gt 0 ]; do
  case $1 in
    --slots) slots=$2; shift 2 ;;
    --workload) workload=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) echo "demo: unknown option $1" >&2; exit 2 ;;
  esac
done

bash "$root/scripts/setup.sh"
cmake -S "$root" -B "$build" > /dev/null
cmake --build "$build" -j "$(nproc)" > "$build/demo-build.log" 2>&1 ||
  { tail -30 "$build/demo-build.log"; exit 1; }
bin=$build/bin
# Open MPI refuses to run as root unless told so.
[ "$(id -u)" = 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

dir=$(mktemp -d "${TMPDIR:-/tmp}/morph-demo.XXXXXX")
out=${out:-$dir/report}
daemon_pid=
workload_pid=

# Jobs run in sessions of their own (they survive a morphd crash), so they
# are stopped through morphd, and by process group as a last resort: the
# journal is read only once morphd has ended (it holds the journal until it
# exits: "database is locked" otherwise).
cleanup() {
  trap - EXIT INT TERM
  [ -n "$workload_pid" ] && kill "$workload_pid" 2>/dev/null || true
  if [ -n "$daemon_pid" ] && kill -0 "$daemon_pid" 2>/dev/null; then
    timeout 40 "$bin/morph" daemon -d "$dir" --stop --kill-jobs > /dev/null 2>&1 || true
    kill "$daemon_pid" 2>/dev/null || true
    wait "$daemon_pid" 2>/dev/null || true
  fi
  if command -v sqlite3 > /dev/null && [ -f "$dir/journal.db" ]; then
    for pid in $(sqlite3 -cmd ".timeout 5000" "$dir/journal.db" \
                   "SELECT pid FROM jobs WHERE state = 'running' AND pid > 0"); do
      kill -TERM -- "-$pid" 2>/dev/null || true
    done
  fi
  wait 2>/dev/null || true
}
trap cleanup EXIT
trap 'echo; echo "demo: interrupted; stopping everything"; exit 130' INT TERM

echo "== morphd: $slots slots on this machine ($(nproc) cores, oversubscribed), policy mdmr+easy (the default)"
"$bin/morph" daemon -d "$dir" --slots "$slots" --interval 2 > "$dir/morphd.log" 2>&1 &
daemon_pid=$!
for _ in $(seq 50); do [ -S "$dir/morphd.sock" ] && break; sleep 0.1; done
[ -S "$dir/morphd.sock" ] || { cat "$dir/morphd.log"; exit 1; }

echo "== workload: $(basename "$workload")"
"$bin/morph" workload run -d "$dir" --app-dir "$bin" --every 15 --timeout 600 "$workload" &
workload_pid=$!
while kill -0 "$workload_pid" 2>/dev/null; do
  sleep 8
  kill -0 "$workload_pid" 2>/dev/null || break
  echo "---- morph status ($(date +%T))"
  "$bin/morph" status -d "$dir" | sed -n '3,$p' | grep -v -E ' (completed|failed|cancelled|rejected) ' || true
done
wait "$workload_pid" && status=0 || status=$?
workload_pid=

echo
echo "== every job at the end (morph status --all)"
"$bin/morph" status -d "$dir" --all | sed -n '5,$p'
if command -v sqlite3 > /dev/null; then
  echo
  echo "== resizes (journal: job, operation, sizes, seconds to complete, outcome)"
  sqlite3 -cmd ".timeout 5000" -separator ' ' "$dir/journal.db" "SELECT 'job', job, op, from_size, '->', to_size,
    printf('%.1f s', done - decided), CASE outcome WHEN 0 THEN 'ok' ELSE 'failed: ' || text END
    FROM resizes WHERE op != 'start' ORDER BY decided" | sed 's/^/  /'
fi
echo
echo "== report"
"$bin/morph" report -d "$dir" -o "$out"
echo "results of the jobs' own checks:"
grep -h "^CHECK" "$dir"/jobs/*.out | cut -d' ' -f1-3 | sort | uniq -c | sed 's/^/  /' || true
echo
echo "morphd log: $dir/morphd.log, job outputs: $dir/jobs/, plots: $out/"
exit "$status"
