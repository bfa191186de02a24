#!/usr/bin/env bash
# Measures the emulated cluster (docs/cluster.md, "Measured"): up and down of
# 3 nodes, one ssh hop, mpirun of 6 ranks on 3 hosts and a spawn of 2
# children onto node3, each over ssh and over the nsenter agent; REPS runs
# of each (default 5), prints min / median / max in seconds.
#
#   scripts/cluster/measure.sh SPAWN-HOST [REPS]
#
# SPAWN-HOST is build/bin/spawn-host.ompi (tests/cluster/spawn-host.c). Uses
# its own instance, "measure-$$", taken down at the end on every path.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
spawn_host=$(readlink -f "${1:?usage: measure.sh SPAWN-HOST [REPS]}")
reps=${2:-5}
export MORPH_CLUSTER=measure-$$ OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
C="bash $here/cluster.sh"
trap '$C down >/dev/null 2>&1 || true' EXIT

# secs CMD...: wall time of CMD in seconds (its output discarded; fails if CMD fails).
secs() {
  local t0=$EPOCHREALTIME
  timeout 60 "$@" >/dev/null 2>&1 || { echo "measure.sh: failed: $*" >&2; return 1; }
  awk -v t1="$EPOCHREALTIME" -v t0="$t0" 'BEGIN { printf "%.3f\n", t1 - t0 }'
}

stats() { # NAME VALUES...
  local name=$1
  shift
  printf '%s\n' "$@" | sort -n | awk -v n="$name" '{ v[NR] = $1 }
    END { printf "%-34s %6.2f %6.2f %6.2f\n", n, v[1], v[int((NR + 1) / 2)], v[NR] }'
}

measure() { # NAME CMD...: REPS runs of CMD
  local name=$1 i vals=()
  shift
  for ((i = 0; i < reps; i++)); do vals+=("$(secs "$@")"); done
  stats "$name" "${vals[@]}"
}

printf '%-34s %6s %6s %6s\n' "seconds ($(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg))" min median max
ups=() downs=()
for ((i = 0; i < reps; i++)); do
  ups+=("$(secs $C up 3)")
  downs+=("$(secs $C down)")
done
stats "up 3" "${ups[@]}"
stats "down (3 nodes)" "${downs[@]}"
$C up 3 >/dev/null
measure "ssh hop head -> node2" $C ssh node2 true
measure "exec on node2 (nsenter)" $C exec node2 true
for mode in ssh agent; do
  opt=""
  [ $mode = agent ] && opt=--agent
  eval "$($C env $opt)"
  measure "mpirun 6 ranks on 3 hosts ($mode)" \
    $C exec head mpirun -np 6 --host node1:2,node2:2,node3:2 hostname
  measure "spawn job, 2 onto node3 ($mode)" \
    $C exec head mpirun -np 2 --hostfile "$MORPH_CLUSTER_HOSTFILE" "$spawn_host" add-host node3:2 2
  vals=()
  for ((i = 0; i < reps; i++)); do
    vals+=("$($C exec head mpirun -np 2 --hostfile "$MORPH_CLUSTER_HOSTFILE" \
      "$spawn_host" add-host node3:2 2 | sed -n 's/^spawn \(.*\) s$/\1/p')")
  done
  stats "  of which MPI_Comm_spawn ($mode)" "${vals[@]}"
done
