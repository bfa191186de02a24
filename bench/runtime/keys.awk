# raw.csv -> the target keys of issue 12 at size `mib`, each the median of
# per-sample ratios with its min and max, so that a reader can tell a real
# change from noise. Samples are paired in the order they were taken: the
# k-th live 2->4 with the k-th bare 2->4 of the same round (side by side,
# under the same load), the k-th live 4->2 with the k-th live 2->4 (the same
# job). Run with -F, -f layout.awk -f keys.awk -v mib=.. -v cold=.. -v huge=..
#
#   expand_vs_bare    live 2->4 total / bare 2->4 total
#   shrink_vs_expand  live 4->2 total / live 2->4 total
#   redist_vs_memcpy  bytes crossing between processes in a live 2->4 per
#                     second of t_redist (first byte until every process
#                     has its data), over one process's memcpy into new
#                     memory (`cold`, malloc'ed: bench-memcpy cold_gbs);
#                     _huge: over a memcpy into new memory advised huge and
#                     populated in one call (`huge`), what libmorph's new
#                     parts get

NR > 1 && $4 == mib && $1 !~ /^relaunch/ {
  key = $1 "," $2 "," $3
  c = ++cnt[key]
  total[key, c] = $6 + $7 + $8 + $9
  gbs[key, c] = $7 > 0 ? crossing($4 * 1048576 / 8, $2, $3) / $7 / 1e9 : 0
}

function sort(a, n,    i, j, t) {
  for (i = 2; i <= n; i++)
    for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
}

# Prints NAME=median NAME_min= NAME_max= NAME_n= of v[1..n].
function show(name, v, n) {
  if (n == 0) { printf " %s=nan %s_n=0", name, name; return }
  sort(v, n)
  printf " %s=%.3f %s_min=%.3f %s_max=%.3f %s_n=%d", name,
    n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2, name, v[1], name, v[n], name, n
}

function ratios(a, b, out,    n, i) {
  n = cnt[a] < cnt[b] ? cnt[a] : cnt[b]
  for (i = 1; i <= n; i++) out[i] = total[b, i] > 0 ? total[a, i] / total[b, i] : 0
  return n
}

END {
  n = ratios("live,2,4", "bare,2,4", ex); show("expand_vs_bare", ex, n)
  n = ratios("live,4,2", "live,2,4", sh); show("shrink_vs_expand", sh, n)
  n = cnt["live,2,4"]
  for (i = 1; i <= n; i++) { rd[i] = cold > 0 ? gbs["live,2,4", i] / cold : 0
    rh[i] = huge > 0 ? gbs["live,2,4", i] / huge : 0 }
  show("redist_vs_memcpy", rd, n); show("redist_vs_memcpy_huge", rh, n)
  printf "\n"
}
