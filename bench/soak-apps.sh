# The soaks' applications and verdicts (sourced by bench/soak.sh and
# bench/soak-hosts.sh).

# Arguments of each application for a job of k resizes (the caller's $k),
# one every STEP morph points (farm: a morph point per round of 20 tasks).
STEP=8
app_args() {
  local app=$1 points=$(( (k + 2) * STEP ))
  case $app in
  jacobi) echo "--size 240 --iters $points --delay-ms 15" ;;
  heat) echo "--size 96 --iters $points --delay-ms 15" ;;
  # cg runs to convergence (its check needs it), about 2.25 x side iterations:
  # a side of `points` keeps it going past the last resize.
  cg) echo "--size $((points < 48 ? 48 : points)) --iters 100000 --delay-ms 15" ;;
  nbody) echo "--size 128 --iters $points --delay-ms 15" ;;
  farm) echo "--size $((points * 20)) --delay-ms 1" ;;
  test-dmr-front-end) echo "$points" ;;
  esac
}

# soak_verdict RC OUT K DONE LAST_OK LAST_RB LIMIT: a job's verdict in
# $verdict (ok, HANG or FAILED and why), counted in $hangs or $failures:
# exit status RC, its output file OUT ("CHECK PASSED"), DONE of K resizes
# carried out, the last successful one LAST_OK and the last rolled back
# LAST_RB (a rollback must be followed by a successful resize), time
# limit LIMIT seconds.
soak_verdict() {
  local rc=$1 out=$2 k=$3 done_k=$4 last_ok=$5 last_rb=$6 limit=$7
  verdict=ok
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
    verdict="HANG (limit ${limit} s)"; hangs=$((hangs + 1))
  elif [ "$rc" -ne 0 ] || ! grep -q "CHECK PASSED" "$out"; then
    verdict="FAILED (exit $rc, check: $(grep -m1 -o 'CHECK [A-Z]*' "$out" || echo none))"
    failures=$((failures + 1))
  elif [ "$done_k" -ne "$k" ]; then
    verdict="FAILED ($done_k of $k resizes carried out)"; failures=$((failures + 1))
  elif [ -n "$last_rb" ] && [ "${last_ok:-0}" -lt "$last_rb" ]; then
    verdict="FAILED (no successful resize after the rollback of resize $last_rb)"
    failures=$((failures + 1))
  fi
}
