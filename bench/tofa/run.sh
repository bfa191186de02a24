#!/usr/bin/env bash
# bench/run.sh's entry for paper 004's study: bench/reproduce-tofa.sh
# (about 20 minutes; --quick: 2 batches instead of 10, about 8).
# MORPH_BUILD is the build folder (bench/run.sh sets it).
set -euo pipefail
exec bash "$(cd "$(dirname "$0")/.." && pwd)/reproduce-tofa.sh" "$@"
