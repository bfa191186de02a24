#!/usr/bin/env bash
# Plots of bench/runtime/run.sh, from DIR/table.csv and DIR/memcpy.txt:
#   DIR/perf-reconf.png     cost of one reconfiguration, phases stacked, one
#                           panel per size change, bars per data size and
#                           mechanism
#   DIR/perf-bandwidth.png  redistribution bandwidth against memcpy
# Usage: plot.sh DIR "SIZES"
set -euo pipefail
dir=$1
sizes=$2
table=$dir/table.csv
mechs="live live-world live-pause bare respawn relaunch-ompi relaunch-mpich"
transitions="2:4 4:2 2:8 8:2 3:5"
nm=$(echo "$mechs" | wc -w)
step=$((nm + 1))

# One gnuplot data block per size change: x, mechanism, cumulative tops of
# spawn, redist, commit, settle (= total).
for t in $transitions; do
  o=${t%:*} n=${t#*:} gi=0
  for s in $sizes; do
    mi=0
    for m in $mechs; do
      awk -F, -v m="$m" -v o="$o" -v n="$n" -v s="$s" -v x=$((gi * step + mi)) -v mi=$mi '
        $1 == m && $2 == o && $3 == n && $4 == s {
          a = $6; b = a + $7; c = b + $8; d = c + $9
          printf "%d %d %.4f %.4f %.4f %.4f\n", x, mi, a, b, c, d }' "$table"
      mi=$((mi + 1))
    done
    gi=$((gi + 1))
  done
  printf "\n\n"
done >"$dir/reconf.dat"

x2tics="" gi=0
for s in $sizes; do
  lab="$s MiB"
  [ "$s" -ge 1024 ] && lab="$((s / 1024)) GiB"
  x2tics="$x2tics${x2tics:+, }\"$lab\" $(awk -v g=$gi -v st=$step -v nm="$nm" \
    'BEGIN { print g * st + (nm - 1) / 2 }')"
  gi=$((gi + 1))
done
xmax=$((gi * step - 1))

# Bandwidth per size until every rank is done (redist + commit: morph's
# t_redist is rank 0's own part): live per change, bare 2->4.
for s in $sizes; do
  line="$s"
  for key in live,2,4 live,4,2 live,2,8 live,8,2 live,3,5 bare,2,4; do
    v=$(awk -F, -v k="$key" -v s="$s" '$1 "," $2 "," $3 == k && $4 == s { print $12 }' "$table")
    line="$line ${v:-NaN}"
  done
  echo "$line"
done >"$dir/bandwidth.dat"
hot=$(awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^hot_gbs=/) { split($i, kv, "="); h = kv[2] } }
  END { print h + 0 }' "$dir/memcpy.txt")
cold=$(awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^cold_gbs=/) { split($i, kv, "="); c = kv[2] } }
  END { print c + 0 }' "$dir/memcpy.txt")

cat >"$dir/plots.gp" <<GP
set terminal pngcairo size 1500,950 noenhanced font ",10"
set output '$dir/perf-reconf.png'
mlabel(i) = word("live live,world live+pause bare-MPI respawn relaunch-OMPI relaunch-MPICH", int(i) + 1)
set multiplot layout 2,3 title "Cost of one reconfiguration (median seconds), phases stacked; live = morph live with MORPH_SPAWN_PAUSE=0"
set style fill solid 0.85 border lc rgb "#333333"
set boxwidth 0.8
set grid ytics
set xrange [-1:$xmax]
set yrange [0:*]
set xtics rotate by 60 right font ",8"
set x2tics ($x2tics) font ",9"
set ylabel "seconds"
unset key
do for [i = 0:4] {
  set title word("2->4 4->2 2->8 8->2 3->5", i + 1)
  set xtics ()
  plot '$dir/reconf.dat' index i using 1:6:xtic(mlabel(\$2)) with boxes lc rgb "#9467bd", \
       '' index i using 1:5 with boxes lc rgb "#2ca02c", \
       '' index i using 1:4 with boxes lc rgb "#ff7f0e", \
       '' index i using 1:3 with boxes lc rgb "#1f77b4"
}
# The sixth panel holds the legend (short titles: a key wider than the
# panel is not drawn). Live shrink: split; relaunch: restart until hello.
unset title; unset xtics; unset x2tics; unset ytics; unset ylabel; unset border; unset grid
set key center center font ",11" samplen 3 spacing 1.5
set yrange [0:1]; set xrange [0:1]
plot NaN with boxes lc rgb "#1f77b4" title "spawn+merge | split | restart", \
     NaN with boxes lc rgb "#ff7f0e" title "redistribute | checkpoint+restore", \
     NaN with boxes lc rgb "#2ca02c" title "commit", \
     NaN with boxes lc rgb "#9467bd" title "settle: leavers gone"
set border; set ytics; set grid
unset multiplot

set terminal pngcairo size 900,550 noenhanced font ",10"
set output '$dir/perf-bandwidth.png'
set title "Redistribution: bytes crossing between processes per second of redist + commit"
set xtics auto rotate by 0 font ",10"
unset x2tics
set xrange [*:*]
set yrange [0:*]
set logscale x 2
set xlabel "total registered data (MiB)"
set ylabel "GB/s"
set key outside right
plot '$dir/bandwidth.dat' using 1:2 with linespoints lw 2 title "live 2->4", \
     '' using 1:3 with linespoints title "live 4->2", '' using 1:4 with linespoints title "live 2->8", \
     '' using 1:5 with linespoints title "live 8->2", '' using 1:6 with linespoints title "live 3->5", \
     '' using 1:7 with linespoints dt 2 lw 2 title "bare MPI 2->4 (Alltoallv)", \
     $hot with lines lc rgb "black" lw 2 title "memcpy, written destination", \
     $cold with lines lc rgb "gray" lw 2 dt 3 title "memcpy, new destination"
GP
gnuplot "$dir/plots.gp"
