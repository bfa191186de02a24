#!/usr/bin/env bash
# The Elastic MPI reproduction (paper 002, Tables 5.2 and 5.4) as one of
# bench/run.sh's parts: bench/reproduce-elastic.sh with the same options
# (--quick: 3 shorter jobs; output in $MORPH_BUILD/bench-out/elastic).
exec bash "$(dirname "$0")/../reproduce-elastic.sh" "$@"
