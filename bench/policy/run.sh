#!/usr/bin/env bash
# Times one policy decision and its placement (firstfit) on a snapshot of
# 10,000 jobs and 10,000 nodes (median of several runs, per policy) and prints
#   RESULT decide_ms=<median ms of dmr+easy, placement included> place_ms=...
# Target: decide_ms <= 10. Options: --quick (5 runs instead of 21).
# MORPH_BUILD points to the build folder (default: build-bench next to src).
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/bench/lib.sh" # bench_record
build=${MORPH_BUILD:-$here/build-bench}
if [ ! -x "$build/bin/bench-policy" ]; then
  cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$build" --target bench-policy >/dev/null
fi
args=() quick=0
for a in "$@"; do
  [ "$a" = "--quick" ] && args+=(--quick) quick=1
done
out=$("$build/bin/bench-policy" "${args[@]}")
echo "$out"
bench_record policy "$(grep '^RESULT' <<<"$out")"
