#!/usr/bin/env bash
# The second README command: installs what is missing, builds with warnings as
# errors, and runs the whole CTest suite (Open MPI and MPICH tests included).
# Options: --sanitize (AddressSanitizer + UBSan build in build-asan/).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build="$here/build"
flags=(-DMORPH_WERROR=ON)
if [ "${1:-}" = "--sanitize" ]; then
  build="$here/build-asan"
  flags+=(-DMORPH_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug)
fi
bash "$here/scripts/setup.sh"
cmake -S "$here" -B "$build" "${flags[@]}" > /dev/null
cmake --build "$build" -j "$(nproc)"
# Open MPI refuses to run as root unless told; CI runs as root.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cd "$build"
# Every test carries its own TIMEOUT; this bounds the suite as a whole.
timeout --kill-after=30 3600 ctest --output-on-failure -j 2
