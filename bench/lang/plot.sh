#!/usr/bin/env bash
# plot.sh DIR: perf-lang.png from DIR/resize.csv (bench/lang/run.sh): the
# median time of the 2 -> 4 and 4 -> 2 resizes per language, split into
# spawn, redistribution and commit + settle.
set -euo pipefail
dir=$1
command -v gnuplot > /dev/null || { echo "plot.sh: no gnuplot" >&2; exit 1; }
awk -F, 'NR > 1 { k = $2 " " $3 "->" $4; n[k]++; s[k, n[k]] = $5; r[k, n[k]] = $6; c[k, n[k]] = $7 + $8 }
  function med(a, k, m,    i, j, t, v) { for (i = 1; i <= m; i++) v[i] = a[k, i]
    for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
    return m % 2 ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2 }
  END { for (k in n) printf "\"%s\" %.4f %.4f %.4f\n", k, med(s, k, n[k]), med(r, k, n[k]), med(c, k, n[k]) }' \
  "$dir/resize.csv" | sort > "$dir/resize.dat"
gnuplot << EOF2
set terminal pngcairo size 900,500
set output "$dir/perf-lang.png"
set title "A live 2 -> 4 -> 2 from C, Fortran and Python (medians)"
set ylabel "seconds"
set style data histograms
set style histogram rowstacked
set style fill solid 0.8 border -1
set boxwidth 0.6
set key top left
set xtics rotate by -30
plot "$dir/resize.dat" using 2:xtic(1) title "spawn", "" using 3 title "redistribution", \
     "" using 4 title "commit + settle"
EOF2
