#!/usr/bin/env bash
# Plot of bench/cluster.sh's resizes: every run's seconds for bare's
# spawn + merge + Alltoallv onto node2, morph's expand onto node2, morph's
# shrink off node2, morphd's shrink off a host and its host release.
# Usage: cluster-plot.sh RESIZES.CSV OUT.PNG
set -euo pipefail
csv=$1 png=$2
gnuplot <<GP
set terminal pngcairo size 900,480 font ",10"
set output "$png"
set datafile separator ","
set title "Resizes across emulated hosts (one point per run)"
set xlabel "run"
set ylabel "seconds"
set key outside right
set grid ytics
set xtics 1
set yrange [0:*]
plot "$csv" every ::1 using 1:2 with linespoints pt 7 title "bare: spawn+merge+Alltoallv onto node2", \
     "" every ::1 using 1:3 with linespoints pt 5 title "morph: expand 2->4 onto node2", \
     "" every ::1 using 1:4 with linespoints pt 9 title "morph: shrink 4->2 off node2", \
     "" every ::1 using 1:6 with linespoints pt 11 title "morphd: shrink 4->2 off a host", \
     "" every ::1 using 1:7 with linespoints pt 13 title "morphd: host release (ACK -> next job)"
GP
