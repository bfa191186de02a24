#!/usr/bin/env bash
# Runs every benchmark of the project (bench/<part>/run.sh) and prints their
# RESULT lines. `--quick` uses smaller sizes (whole run under two minutes).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build="$here/build-bench"
bash "$here/scripts/setup.sh" >/dev/null
cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j "$(nproc)" >/dev/null
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export MORPH_BUILD="$build"
status=0
for part in "$here"/bench/*/run.sh; do
  echo "== $(basename "$(dirname "$part")")" >&2
  bash "$part" "$@" || { echo "bench: $part failed" >&2; status=1; }
done
exit $status
