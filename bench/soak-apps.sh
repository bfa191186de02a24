# The soaks' applications (sourced by bench/soak.sh and bench/soak-hosts.sh).

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
