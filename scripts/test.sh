#!/usr/bin/env bash
# The second README command: installs what is missing, builds with warnings
# as errors, and runs the whole CTest suite (Open MPI and MPICH tests
# included). Every test has its own time limit; the suite as a whole has one
# too.
#
#   scripts/test.sh              the whole suite (build/)
#   scripts/test.sh --sanitize   AddressSanitizer + UBSan build (build-asan/):
#                                every test that needs no MPI, with leak
#                                checks, then the runtime's Open MPI tests
#                                (leak checks off: Open MPI itself leaks)
#   scripts/test.sh --fuzz       libFuzzer harnesses (clang, build-fuzz/), each
#                                for MORPH_FUZZ_SECONDS (20) on its corpus
#   scripts/test.sh --all        all three, each only if the one before
#                                passed (what CI runs)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
mode=${1:-}

bash "$here/scripts/setup.sh"
# Open MPI refuses to run as root unless told; CI runs as root.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# Every step ends its function on failure with `|| return`: inside
# `a && b`, bash does not apply set -e to a and b.
build() { # DIR CMAKE-FLAGS...
  local dir=$1
  shift
  cmake -S "$here" -B "$dir" -DMORPH_WERROR=ON "$@" > /dev/null || return
  cmake --build "$dir" -j "$(nproc)"
}

# CI machines are shared (2 cores, other jobs beside ours): an MPI test
# that misses a time limit under a load spike gets one more run. A test
# that fails twice fails the suite; CTest's log names every rerun.
retry='--repeat until-pass:2'

# suite-leftovers, the last test, lists what the suite left in /tmp and
# /dev/shm since this mark (tests/leftovers/check.py).
mark_leftovers() { python3 "$here/tests/leftovers/check.py" mark "$1"; }

whole_suite() {
  build "$here/build" || return
  cd "$here/build"
  mark_leftovers "$here/build" || return
  timeout --kill-after=30 4200 ctest --output-on-failure -j 2 $retry
}

# Tests whose names say they need MPI or a launcher; the emulated cluster's
# and Slurm's tests run MPI across hosts too, the soak resizes real jobs for
# minutes and tofa-smpi preloads the profiler (ASan must come first).
mpi_tests='ompi|mpich|runtime|stress|apps|app-|^morphd-|example|test-run-|workload-run|demo|cluster-|slurm-|soak|tofa-smpi'

sanitized_suite() {
  build "$here/build-asan" -DMORPH_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug || return
  cd "$here/build-asan"
  mark_leftovers "$here/build-asan" || return
  ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=suppressions=$here/tests/lsan.supp timeout --kill-after=30 900 \
    ctest --output-on-failure -j 2 $retry -E "$mpi_tests" || return
  ASAN_OPTIONS=detect_leaks=0 timeout --kill-after=30 1200 \
    ctest --output-on-failure -j 2 $retry -R 'redist-exec.*ompi|redist-deadline.*ompi|runtime-(live|relaunch|bad|fault)|example'
}

# Every parser of untrusted input under libFuzzer (docs/testing.md); a
# crash, a sanitizer report or a round-trip mismatch fails its test.
fuzz_suite() {
  build "$here/build-fuzz" -DMORPH_FUZZ=ON -DCMAKE_C_COMPILER=clang || return
  cd "$here/build-fuzz"
  timeout --kill-after=30 600 ctest --output-on-failure -j 2 -L fuzz
}

case $mode in
"") whole_suite ;;
--sanitize) sanitized_suite ;;
--fuzz) fuzz_suite ;;
--all) whole_suite && sanitized_suite && fuzz_suite ;;
*) echo "usage: scripts/test.sh [--sanitize | --fuzz | --all]" >&2; exit 2 ;;
esac
