#!/usr/bin/env bash
# Markdown tables of a bench/runtime/run.sh output folder (docs/performance.md
# quotes them): DIR/table.md with the total seconds of every mechanism per
# size change and data size, then the phases at the largest size.
# Usage: table-md.sh DIR "SIZES"
set -euo pipefail
dir=$1
sizes=$2
table=$dir/table.csv
largest=${sizes##* }
mechs="live live-world live-pause bare respawn relaunch-ompi relaunch-mpich"
size_label() { if [ "$1" -ge 1024 ]; then echo "$(($1 / 1024)) GiB"; else echo "$1 MiB"; fi; }
{
  echo "Total seconds per reconfiguration (median; (n) = number of samples when more than one):"
  echo
  echo "| change | data | live | live, world leavers | live, default pause | bare MPI | respawn all | relaunch Open MPI | relaunch MPICH |"
  echo "|---|---|---|---|---|---|---|---|---|"
  for t in 2:4 4:2 2:8 8:2 3:5; do
    for s in $sizes; do
      line="| ${t%:*}->${t#*:} | $(size_label "$s") |"
      for m in $mechs; do
        v=$(awk -F, -v m="$m" -v o="${t%:*}" -v n="${t#*:}" -v s="$s" '
          $1 == m && $2 == o && $3 == n && $4 == s {
            printf "%.3f", $10; if ($5 > 1) printf " (%d)", $5 }' "$table")
        line="$line ${v:--} |"
      done
      echo "$line"
    done
  done
  echo
  echo "Phases at $(size_label "$largest") (seconds, medians; GB/s of bytes crossing between" \
    "processes per second of redist, and of redist + commit):"
  echo
  echo "| mechanism | change | spawn | redist | commit | settle | total | GB/s redist | GB/s redist+commit |"
  echo "|---|---|---|---|---|---|---|---|---|"
  for m in $mechs; do
    awk -F, -v m="$m" -v s="$largest" '$1 == m && $4 == s {
      printf "| %s | %d->%d | %s | %s | %s | %s | %s | %s | %s |\n", m, $2, $3, $6, $7, $8, $9,
        $10, $11, $12 }' "$table"
  done
} >"$dir/table.md"
