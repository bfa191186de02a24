# Block-layout arithmetic shared by table.awk and keys.awk.

# Elements a block layout over m keeps in place when it becomes one over n
# (rank r's old and new parts overlap); the rest crosses between processes.
function kept(g, m, n,    r, k, a0, a1, b0, b1, lo, hi) {
  k = 0
  for (r = 0; r < m && r < n; r++) {
    a0 = int(r * g / m); a1 = int((r + 1) * g / m)
    b0 = int(r * g / n); b1 = int((r + 1) * g / n)
    lo = a0 > b0 ? a0 : b0; hi = a1 < b1 ? a1 : b1
    if (hi > lo) k += hi - lo
  }
  return k
}

# Bytes that cross between processes when g doubles in blocks over m
# become blocks over n.
function crossing(g, m, n) { return (g - kept(g, m, n)) * 8 }
