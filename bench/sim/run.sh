#!/usr/bin/env bash
# Speed of the simulator (issue 4): prints
#   RESULT sim_1000_s=<s> sim_100k_s=<s> sim_mem_kb_per_job=<kb>
# sim_1000_s: the paper's 1,000-job flexible workload on 128 nodes (limit 1 s);
# sim_100k_s: a 100,000-job synthetic SWF trace, half malleable (limit 60 s);
# memory is measured at 10k and 100k jobs: growth per job should not rise.
# --quick uses 20,000 instead of 100,000 jobs for the large run (and says so).
# MORPH_BUILD is the build folder (bench/run.sh sets it).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh" # bench_record
build=${MORPH_BUILD:-$here/../../build-bench}
sim=$build/bin/morph-sim
[ -x "$sim" ] || { echo "bench/sim: $sim not built" >&2; exit 1; }
big=100000
[ "${1:-}" = "--quick" ] && big=20000
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Wall seconds and peak memory (KiB) of one command.
measure() {
  /usr/bin/time -f "%e %M" -o "$tmp/time" "$@" >/dev/null
  cat "$tmp/time"
}

read -r t1000 _ < <(measure "$sim" --generate 1000 --kind flexible -q)
awk -v n=10000 -v seed=1 -v mean=150 -f "$here/make-swf.awk" > "$tmp/10k.swf"
awk -v n=$big -v seed=1 -v mean=150 -f "$here/make-swf.awk" > "$tmp/big.swf"
read -r _ m10k < <(measure "$sim" --swf "$tmp/10k.swf" --kind malleable --malleable-share 0.5 -q)
read -r tbig mbig < <(measure "$sim" --swf "$tmp/big.swf" --kind malleable --malleable-share 0.5 -q)
echo "bench/sim: 1000 jobs ${t1000}s; $big SWF jobs ${tbig}s, ${mbig} KiB (10k jobs: ${m10k} KiB)" >&2
per=$(awk -v a="$m10k" -v b="$mbig" -v n=$big 'BEGIN { printf "%.3f", (b - a) / (n - 10000) }')
if [ "$big" = 100000 ]; then
  echo "RESULT sim_1000_s=$t1000 sim_100k_s=$tbig sim_mem_kb_per_job=$per"
  bench_record sim "RESULT sim_1000_s=$t1000 sim_100k_s=$tbig sim_mem_kb_per_job=$per"
else
  echo "RESULT sim_1000_s=$t1000 sim_20k_s=$tbig sim_mem_kb_per_job=$per (quick: 20k jobs)"
fi
