#!/usr/bin/env bash
# lang-morphd-workload: morphd runs a small workload in the demo's style
# (morph workload run, as scripts/demo.sh does) whose malleable jobs are the
# Fortran and the Python Jacobi (1 to 2 slots each, on 4), beside a rigid C
# job of one slot that arrives when both have grown into the free slots.
# Every job must complete with its own bitwise check passed, each language
# job must have grown, and the rigid job must have made one of them shrink. Needs MORPH, QUERY, BIN (CMake) and SRC (source folder);
# PYTHONPATH holds the build's Python package.
set -euo pipefail
. "$(dirname "$0")/../lib/morphd-case.sh" morph-lang

fail() {
  echo "FAIL: $*"
  [ -f "$T/morphd.log" ] && { echo "--- morphd log"; tail -30 "$T/morphd.log"; }
  for f in "$D"/jobs/*.out "$D"/jobs/*.err; do [ -f "$f" ] && { echo "--- $f"; tail -8 "$f"; }; done
  exit 1
}
q() { "$QUERY" "$D/journal.db" "$1"; }

start_daemon --slots 4 --interval 0.5
# One folder of programs for the workload (--app-dir): the Fortran job is a
# program of the build, the Python job is python3 with its script first.
mkdir -p "$T/apps"
ln -s "$BIN/jacobi-f.ompi" "$T/apps/jacobi-f.ompi"
ln -s /usr/bin/python3 "$T/apps/python3.ompi"
ln -s "$BIN/jacobi.ompi" "$T/apps/jacobi.ompi"
args='"--size", "120", "--iters", "400", "--delay-ms", "40"'
cat > "$T/w.json" << EOF2
{"name": "lang", "jobs": [
  {"name": "fortran", "submit": 0, "kind": "malleable", "app": "jacobi-f", "request": 1,
   "min": 1, "pref": 1, "max": 2, "args": [$args]},
  {"name": "python", "submit": 0, "kind": "malleable", "app": "python3", "request": 1,
   "min": 1, "pref": 1, "max": 2, "args": ["$SRC/apps/jacobi-py/jacobi.py", $args]},
  {"name": "rigid-c", "submit": 8, "kind": "fixed", "app": "jacobi", "request": 1,
   "min": 1, "pref": 1, "max": 1, "args": ["--size", "120", "--iters", "100", "--delay-ms", "40"]}
]}
EOF2
timeout 200 "$MORPH" workload run -d "$D" --app-dir "$T/apps" "$T/w.json" > "$T/workload.out" 2>&1 ||
  fail "workload run: $(tail -5 "$T/workload.out")"
q "SELECT id, name, state, size FROM jobs ORDER BY id"
q "SELECT job, op, from_size, to_size, state FROM resizes WHERE op != 'start' ORDER BY decided"
[ "$(q "SELECT COUNT(*) FROM jobs WHERE state = 'completed'")" = 3 ] || fail "not every job completed"
for id in 1 2 3; do
  grep -q "^CHECK PASSED" "$D/jobs/$id.out" || fail "job $id: no CHECK PASSED"
done
for id in 1 2; do
  [ "$(q "SELECT COUNT(*) > 0 FROM resizes WHERE job = $id AND op = 'expand' AND state = 'done'")" = 1 ] ||
    fail "job $id never grew"
done
[ "$(q "SELECT COUNT(*) > 0 FROM resizes WHERE job IN (1, 2) AND op = 'shrink' AND state = 'done'")" = 1 ] ||
  fail "no language job shrank for the rigid job"
grep -h "^CHECK" "$D"/jobs/*.out
echo "PASS: the Fortran and Python jobs grew, shrank and checked out under morphd"
