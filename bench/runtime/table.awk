# raw.csv -> one line per (mechanism, old, new, MiB): number of samples,
# then the median of each phase, of the total and of the redistribution
# bandwidth: GB/s of bytes that crossed between processes per second of the
# redist phase (redist_gbs), and per second of redist + commit (window_gbs;
# morph's t_redist is rank 0's own transfer, the wait for the slowest rank
# falls into the commit's vote). Run with -F,.
#
# Bytes of block layouts are computed from the layouts (what crossed
# between processes), not taken from morph's report: after a live shrink
# the report counts only what the stayers sent.
#
# kept() is in layout.awk (run with -f layout.awk -f table.awk).
#
# Phases: spawn = spawn + merge (relaunch: restart until the new job says
# hello, plus the tiny prepare step); redist = data movement (relaunch:
# checkpoint write + restore); commit; settle = a live shrink's wait until
# the leavers are gone.

function add(key, col, v) { n[key, col]++; val[key, col, n[key, col]] = v }

function median(key, col,    c, i, j, t, a) {
  c = n[key, col]
  for (i = 1; i <= c; i++) a[i] = val[key, col, i]
  for (i = 2; i <= c; i++)
    for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
  return c % 2 ? a[(c + 1) / 2] : (a[c / 2] + a[c / 2 + 1]) / 2
}

NR > 1 {
  key = $1 "," $2 "," $3 "," $4
  if (!(key in seen)) { seen[key] = 1; keys[++nk] = key }
  relaunch = $1 ~ /^relaunch/
  spawn = relaunch ? $9 + $6 : $6
  redist = relaunch ? $7 + $10 : $7
  settle = relaunch ? 0 : $9
  g = $4 * 1048576 / 8
  bytes = $11
  if ($1 == "bare" || $1 ~ /^live/) bytes = crossing(g, $2, $3)
  if ($1 == "respawn") bytes = g * 8
  add(key, "spawn", spawn); add(key, "redist", redist); add(key, "commit", $8)
  add(key, "settle", settle); add(key, "total", spawn + redist + $8 + settle)
  add(key, "gbs", redist > 0 ? bytes / redist / 1e9 : 0)
  add(key, "wgbs", redist + $8 > 0 ? bytes / (redist + $8) / 1e9 : 0)
}

END {
  for (i = 1; i <= nk; i++) {
    k = keys[i]
    printf "%s,%d,%.4f,%.4f,%.4f,%.4f,%.4f,%.3f,%.3f\n", k, n[k, "total"], median(k, "spawn"),
      median(k, "redist"), median(k, "commit"), median(k, "settle"), median(k, "total"),
      median(k, "gbs"), median(k, "wgbs")
  }
}
