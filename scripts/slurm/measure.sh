#!/usr/bin/env bash
# Measures Slurm on the emulated cluster (its runs so far: bench/results/slurm/history.md, "scripts/slurm/measure.sh"):
# bring-up of 4 nodes (cluster, MariaDB, slurmdbd, slurmctld, slurmds, until
# sinfo shows them idle) and teardown; then, on one job, a grow by one node
# (expander allocation, NumNodes=0, NumNodes=ALL) and a shrink by one node
# (NumNodes), and the start of a pending exclusive job on a node a shrink
# frees. REPS runs of each (default 5); min / median / max in seconds.
#
#   scripts/slurm/measure.sh [REPS]
#
# The resize part runs on the head and calls the Slurm commands directly,
# as a backend would: the times include one command's start-up each.
# Uses its own instance, "smeasure-$$", taken down at the end on every path.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
reps=${1:-5}
export MORPH_CLUSTER=smeasure-$$
S="bash $here/slurm.sh"

now() { echo "$EPOCHREALTIME"; }
since() { awk -v t1="$EPOCHREALTIME" -v t0="$1" 'BEGIN { printf "%.3f\n", t1 - t0 }'; }

stats() { # NAME VALUES...
  local name=$1
  shift
  printf '%s\n' "$@" | sort -n | awk -v n="$name" '{ v[NR] = $1 }
    END { printf "%-40s %6.2f %6.2f %6.2f\n", n, v[1], v[int((NR + 1) / 2)], v[NR] }'
}

# until_true SECONDS CMD...: bounded wait.
until_true() {
  local i
  for ((i = 0; i < $1 * 20; i++)); do
    "${@:2}" && return 0
    sleep 0.05
  done
  echo "measure.sh: timeout: ${*:2}" >&2
  exit 1
}
idle_is() { [ "$(sinfo -h -N -t idle -o %N | sort -u | wc -l)" -eq "$1" ]; }
running() { [ "$(squeue -h -j "$1" -o %T)" = RUNNING ]; }

# resize_part: on the head, with SLURM_CONF set, the Slurm commands called
# directly as a backend would (no slurm.sh in the times).
resize_part() {
  local i j e x t grows=() shrinks=() starts=()
  j=$(sbatch --parsable -N1 --exclusive -o /dev/null --wrap 'sleep 3600')
  until_true 30 running "$j"
  for ((i = 0; i < reps; i++)); do
    t=$(now)
    e=$(salloc --no-shell -N1 --exclusive --dependency="expand:$j" 2>&1 |
      sed -n 's/.*Granted job allocation \([0-9]*\).*/\1/p')
    scontrol update JobId="$e" NumNodes=0
    scontrol update JobId="$j" NumNodes=ALL
    grows+=("$(since "$t")")
    t=$(now)
    scontrol update JobId="$j" NumNodes=1
    shrinks+=("$(since "$t")")
    until_true 60 idle_is 3
  done
  # A pending exclusive job on a full cluster, started by a shrink.
  for ((i = 0; i < reps; i++)); do
    scancel "$j"
    until_true 60 idle_is 4
    j=$(sbatch --parsable -N4 --exclusive -o /dev/null --wrap 'sleep 3600')
    until_true 30 running "$j"
    x=$(sbatch --parsable -N1 --exclusive -o /dev/null --wrap 'sleep 3600')
    t=$(now)
    scontrol update JobId="$j" NumNodes=3
    until_true 60 running "$x"
    starts+=("$(since "$t")")
    scancel "$x"
  done
  scancel "$j"
  stats "grow by 1 node (salloc + 2 updates)" "${grows[@]}"
  stats "shrink by 1 node (NumNodes)" "${shrinks[@]}"
  stats "shrink -> pending exclusive job runs" "${starts[@]}"
}

if [ "${2:-}" = --resize-part ]; then
  resize_part
  exit 0
fi
trap '$S down >/dev/null 2>&1 || true' EXIT
printf '%-40s %6s %6s %6s\n' "seconds ($(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg))" min median max
ups=() downs=()
for ((i = 0; i < reps; i++)); do
  t=$(now); $S up 4 >/dev/null; ups+=("$(since "$t")")
  t=$(now); $S down >/dev/null; downs+=("$(since "$t")")
done
stats "up 4 (until sinfo shows 4 idle)" "${ups[@]}"
stats "down" "${downs[@]}"
$S up 4 >/dev/null
$S exec bash "$(readlink -f "$0")" "$reps" --resize-part
