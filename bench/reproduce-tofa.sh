#!/usr/bin/env bash
# Reproduces paper 004's SimGrid study (TOFA, section 5) with morph's
# profiler, topology, Scotch mapping and SMPI proxies, and ends with
#   RESULT tofa_vs_default_dt=... tofa_vs_default_lammps=... tofa_abort_ratio=...
#          default_abort_ratio=... prof_overhead=... (and more keys)
# tofa_vs_default_*: batch completion time of TOFA over Slurm's default order
# (mean of the per-batch ratios; lammps: the 16-faulty-node case); the abort
# ratios are NPB-DT's (aborted runs over all runs, 1000 instances);
# prof_overhead: Jacobi run time with the profiler over without (median of
# the ratios of pairs run at the same time, with min and max);
# morph_vs_default_*: the same ratios for morph's own box strategy (a
# compact fault-free sub-box, src/place/map_box.c) instead of Listing 1.1;
# lammps_flops, lammps_compute_share, t1_fit_*: the LAMMPS-like proxy's
# calibration to the paper's Table 1 (step 2b) and the share of computation
# in a default timestep that follows.
# docs/reproduction-tofa.md discusses the numbers.
#
# usage: reproduce-tofa.sh [--quick] [--lammps]
#   --quick   2 batches instead of 10 (and 3 profiler pairs instead of 9);
#   --lammps  only the LAMMPS-like part (profiles, Table 1 and the
#             calibration, 8 and 16 faulty nodes, the compute-share sweep)
#             and its RESULT keys (11 min with --quick at load 5-50).
#
# Steps (progress on stderr):
#  1. profile the proxies with morph prof (real MPI) and check their shapes;
#  2. fault-free runs: NPB-DT-like with every strategy on the 8x8x8 torus;
#     2b. Table 1 is LAMMPS with 256 processes (section 5.1's text): the
#     LAMMPS-like proxy at 256 ranks (4x8x8 grid), communication only,
#     default and TOFA on the five arrangements; a least-squares fit of
#     1 / (paper's timesteps/s) = C + alpha x (our communication time per
#     step) gives the paper's computation per step C and its volumes over
#     ours, alpha; the proxy gets C x 6 Gflops per step (4 C at 64 ranks of
#     the same problem) and its volumes times alpha;
#     2c. Table 1 again with the calibrated proxy, default / TOFA / box;
#  3. batches (the calibrated 64-rank LAMMPS-like proxy): 10 (2 with
#     --quick) batches of 100 instances, 8x8x8 torus,
#     pf = 0.02 on 16 random nodes (NPB-DT, LAMMPS) and 8 (LAMMPS); per
#     batch, default / TOFA / greedy / remap / box placements, each simulated once
#     with smpirun (a run's time does not depend on which faulty nodes are
#     up when it survives) and the aborts drawn by tofa-bench batch; a
#     sample of draws is replayed in SimGrid with zero-bandwidth links to
#     check that the model aborts exactly the runs SimGrid aborts; then
#     the LAMMPS 16-faulty-node batches again with less computation per
#     timestep (--flops 0 .. 3e7, and the calibrated value), the same
#     placements and draws: the batch ratio against the compute share;
#  4. the profiler's overhead on Jacobi.
# CSV results and gnuplot plots go to $OUT (default build-bench/tofa) and
# the plots are copied to docs/img/tofa-*.png.
# MORPH_BUILD: build folder (built here when missing). SimGrid runs are
# niced: the machine is shared.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/bench/lib.sh" # bench_record
build=${MORPH_BUILD:-$root/build-bench}
out=${OUT:-$build/tofa}
say() { echo "reproduce-tofa: $*" >&2; }
quick=0 lammps_only=0
for a in "$@"; do
  case $a in
  --quick) quick=1 ;;
  --lammps) lammps_only=1 ;;
  *) say "unknown option $a (usage: reproduce-tofa.sh [--quick] [--lammps])"; exit 2 ;;
  esac
done
batches=10 instances=100 lsteps=50 pairs=9
[ $quick = 1 ] && batches=2 pairs=3
B=$build/bin
NICE="nice -n 10"
STRATEGIES="default tofa greedy remap box"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
SECONDS=0

if [ ! -x "$B/tofa-bench" ] || [ ! -x "$B/proxy-dt.smpi" ] || [ ! -x "$B/prof-calls.ompi" ]; then
  say "building in $build"
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$build" -j2 --target morph morph-prof tofa-bench tofa-smpi-proxies proxy-lammps.ompi \
    proxy-dt.ompi jacobi.ompi prof-calls.ompi >/dev/null
fi
command -v smpirun >/dev/null || { say "smpirun missing: apt-get install libsimgrid-dev"; exit 1; }
rm -rf "$out" && mkdir -p "$out"
cd "$out"

# SMPI runs the collective algorithms the profiler assumes (docs/prof.md),
# so that the pairs that talk in the simulation are the matrix's pairs and
# the abort model's footprint is the simulation's (with SMPI's own choices
# the model aborted 2 of 19 replayed draws that SimGrid survived).
SMPI_CFG=(--cfg=smpi/simulate-computation:no --log=root.thres:critical
  --cfg=smpi/barrier:ompi_bruck --cfg=smpi/bcast:binomial_tree --cfg=smpi/reduce:binomial
  --cfg=smpi/allreduce:rdb --cfg=smpi/allgather:ring --cfg=smpi/allgatherv:ring
  --cfg=smpi/alltoall:basic_linear --cfg=smpi/alltoallv:ompi_basic_linear
  --cfg=smpi/gather:ompi_basic_linear --cfg=smpi/scatter:ompi_basic_linear
  --cfg=smpi/reduce_scatter:mpich_pair)

# sim APP HOSTS [FAILED]: simulated time of one run (seconds), or "abort".
# For the LAMMPS-like proxy: FLOPS its computation per timestep, LARGS its
# grid and volumes (--grid, --halo, --fft), STEPS its timesteps. Without
# failed nodes a run's time depends only on the placement, and the same
# placement comes back in many batches (TOFA's and box's, whenever the
# faults miss them): each (app, torus, flops, hosts) is simulated once.
sim() {
  local key
  [ -n "${3:-}" ] && { sim_once "$@"; return; }
  mkdir -p "$out/sim-cache"
  key=$out/sim-cache/$({ echo "$1 ${TORUS:-8x8x8} ${FLOPS:-} ${LARGS:-} ${STEPS:-}"; cat "$2"; } | md5sum | cut -c1-16)
  [ -s "$key" ] || sim_once "$@" >"$key"
  cat "$key"
}
sim_once() {
  local app=$1 hosts=$2 failed=${3:-} torus=${TORUS:-8x8x8} np args=()
  np=$(wc -l <"$hosts")
  "$B/tofa-bench" platform --torus "$torus" --hostfile "$hosts" ${failed:+--failed "$failed"} -o "$hosts.xml"
  if [ "$app" = dt ]; then args=(); else args=(--steps "${STEPS:-$lsteps}" ${FLOPS:+--flops "$FLOPS"} ${LARGS:-}); fi
  if ! $NICE smpirun -np "$np" -platform "$hosts.xml" -hostfile "$hosts" "${SMPI_CFG[@]}" \
      "$B/proxy-$app.smpi" "${args[@]}" >"$hosts.log" 2>&1; then
    echo abort
    return
  fi
  awk -v app="$app" 'app == "dt" && /^seconds/ {print $2}
                     app != "dt" && /^proxy-lammps:/ {print $(NF-1)}' "$hosts.log"
}

# place APP STRATEGY OUTHOSTS [faults] [extra tofa-bench options]
place() {
  local app=$1 s=$2 hosts=$3 faults=${4:-}
  shift 4 || shift $#
  "$B/tofa-bench" place --torus "${TORUS:-8x8x8}" --matrix "$out/$app.bytes.mtx" --strategy "$s" \
    ${faults:+--faults "$faults"} -o "$hosts" "$@" >"$hosts.place"
}

# --- 1. profiles and shapes -------------------------------------------------
say "1/4 profiling the proxies with morph prof (64 and 85 Open MPI processes)"
$NICE "$B/morph" prof -q -o "$out/lammps" -n 64 -- "$B/proxy-lammps.ompi" --steps 10 >/dev/null
# Table 1's runs have 256 ranks (section 5.1, below): LAMMPS's grid for 256.
# 256 Open MPI processes on a loaded machine sometimes fail to start (once
# in 5 runs here: "exiting improperly", PID 0): up to 3 attempts.
for try in 1 2 3; do
  $NICE "$B/morph" prof -q --no-plot -o "$out/l256" -n 256 -- "$B/proxy-lammps.ompi" --steps 2 --grid 4x8x8 \
    >/dev/null 2>"$out/l256.err" && break
  [ $try = 3 ] && { cat "$out/l256.err" >&2; say "profiling 256 ranks failed 3 times"; exit 1; }
  say "profiling 256 ranks failed (attempt $try), again"
done
[ $lammps_only = 1 ] || $NICE "$B/morph" prof -q -o "$out/dt" -n 85 -- "$B/proxy-dt.ompi" --bytes 65536 >/dev/null
# LAMMPS-like: every byte between ranks on a common line of the 4x4x4 grid
# (halo neighbours, FFT transposes, recursive-doubling partners).
lshape=$(awk '!/^%/ && NF == 3 && !seen++ {next} !/^%/ && NF == 3 {
  i = $1 - 1; j = $2 - 1; same = 0
  for (k = 0; k < 3; k++) { s = (k == 0) ? 1 : (k == 1) ? 4 : 16
    ri = int(i / s) % 4; rj = int(j / s) % 4; if (ri == rj) same++ }
  tot += $3; if (same >= 2) on += $3 } END {printf "%.4f", on / tot}' "$out/lammps.bytes.mtx")
# NPB-DT-like: bytes on the arcs of the black-hole graph (i -> 64 + i/4 ...).
dshape=none
[ $lammps_only = 1 ] || dshape=$(awk '!/^%/ && NF == 3 && !seen++ {next} !/^%/ && NF == 3 {
  i = $1 - 1; j = $2 - 1
  succ = (i < 64) ? 64 + int(i / 4) : (i < 80) ? 80 + int((i - 64) / 4) : (i < 84) ? 84 : -1
  tot += $3; if (j == succ) on += $3 } END {printf "%.4f", on / tot}' "$out/dt.bytes.mtx")
say "shapes: lammps $lshape of bytes on grid lines; dt $dshape of bytes on data-flow arcs"
cp "$out/lammps.png" "$root/docs/img/tofa-matrix-lammps.png"
[ $lammps_only = 1 ] || cp "$out/dt.png" "$root/docs/img/tofa-matrix-dt.png"

# --- 2. fault-free runs ------------------------------------------------------
fault_free() {
say "2/4 fault-free runs: NPB-DT-like with every strategy on the 8x8x8 torus"
echo "strategy,seconds,cost" >fig3-dt.csv
for s in default random greedy tofa box; do
  place dt $s "dt-$s.hosts"
  t=$(sim dt "dt-$s.hosts")
  echo "$s,$t,$(sed -n 's/.*cost=\([0-9]*\).*/\1/p' "dt-$s.hosts.place")" >>fig3-dt.csv
done
}
[ $lammps_only = 1 ] || fault_free

# --- 2b. Table 1 and the LAMMPS-like proxy's calibration ---------------------
# Table 1 is LAMMPS with 256 processes: section 5.1 introduces it after "for
# the case of LAMMPS with 256 processes though, the default placement
# policy of Slurm achieves higher performance ... To further explore its
# effect, different instances of the 3D torus topology are generated (all
# with a total of 256 nodes)", and its 8x8x8 row is that case (default
# 247.5 > TOFA 217.2). 256 ranks on LAMMPS's grid for them, 4x8x8 (the
# surface-minimising grid for rhodopsin's box, x shortest); volumes of the
# same problem as the 64-rank proxy: a face scales as (V/P)^(2/3), a
# rank's FFT share as V/P.
paper_t1="8x8x8:247.5:217.2 4x8x16:188.9:210.1 8x4x16:232.3:240.9 4x4x32:212.8:242.3 4x32x4:159.0:207.4"
H256=19505 D256=16384 t1steps=10
# Step time = computation + communication: 1 / (paper's timesteps/s) =
# C + alpha x (our communication-only step time), a least-squares fit over
# the 10 placements of Table 1 (default and TOFA on 5 arrangements). C is
# the paper's computation per step, alpha its volumes over ours.
calibrate() {
  say "2b/4 Table 1 calibration: LAMMPS-like, 256 ranks, communication only, default and TOFA, five arrangements"
  echo "torus,strategy,comm_step,paper_step" >t1-comm.csv
  for e in $paper_t1; do
    IFS=: read -r torus pd pt <<<"$e"
    for s in default tofa; do
      TORUS=$torus place l256 $s "c-$torus-$s.hosts"
      t=$(TORUS=$torus STEPS=$t1steps FLOPS=0 LARGS="--grid 4x8x8 --halo $H256 --fft $D256" \
          sim lammps "c-$torus-$s.hosts")
      p=$pd; [ $s = tofa ] && p=$pt
      awk -v t="$t" -v n=$t1steps -v p="$p" -v r="$torus,$s" 'BEGIN {printf "%s,%.9f,%.9f\n", r, t / n, 1 / p}' >>t1-comm.csv
    done
  done
  awk -F, 'NR > 1 {n++; x = $3; y = $4; sx += x; sy += y; sxx += x * x; sxy += x * y; X[n] = x; Y[n] = y}
    END {a = (n * sxy - sx * sy) / (n * sxx - sx * sx); c = (sy - a * sx) / n
      for (i = 1; i <= n; i++) {r = Y[i] - c - a * X[i]; ss += r * r; st += (Y[i] - sy / n) ^ 2}
      printf "%.9f %.4f %.3f\n", c, a, 1 - ss / st}' t1-comm.csv >calibration.txt
}
calibrate
read -r t1_C t1_alpha t1_r2 <calibration.txt
# 256 ranks: C per step; 64 ranks of the same problem: 4 C (strong scaling),
# the volumes times alpha.
F256=$(awk -v c="$t1_C" 'BEGIN {printf "%.4g", c * 6e9}')
F64=$(awk -v c="$t1_C" 'BEGIN {printf "%.4g", 4 * c * 6e9}')
L256="--grid 4x8x8 $(awk -v a="$t1_alpha" -v h=$H256 -v d=$D256 'BEGIN {printf "--halo %.0f --fft %.0f", a * h, a * d}')"
L64=$(awk -v a="$t1_alpha" 'BEGIN {printf "--halo %.0f --fft %.0f", a * 49152, a * 65536}')
say "  fit: computation $t1_C s/step (r2 $t1_r2), volumes x $t1_alpha; proxy: 256 ranks $F256 flops $L256, 64 ranks $F64 flops $L64"

table1() {
say "2c/4 Table 1 with the calibrated proxy: default, TOFA, box on the five arrangements, 256 ranks"
echo "torus,default,tofa,box,paper_default,paper_tofa" >table1.csv
for e in $paper_t1; do
  IFS=: read -r torus pd pt <<<"$e"
  row=$torus
  for s in default tofa box; do
    TORUS=$torus place l256 $s "t1-$torus-$s.hosts"
    t=$(TORUS=$torus STEPS=$t1steps FLOPS=$F256 LARGS="$L256" sim lammps "t1-$torus-$s.hosts")
    row="$row,$(awk -v t="$t" -v n="$t1steps" 'BEGIN {printf "%.1f", n / t}')"
  done
  echo "$row,$pd,$pt" >>table1.csv
  say "  table 1 $torus: $(tail -1 table1.csv)"
done
}
table1


# --- 3. batches --------------------------------------------------------------
# batch SCENARIO APP NFAULTY: one line per batch and strategy in batches.csv.
echo "scenario,batch,strategy,run_time,runs,aborts,batch_time,on_faulty,footprint" >batches.csv
echo "scenario,strategy,model,simgrid" >validate.csv
validate() { # replays up to 2 aborting and 2 surviving draws in SimGrid
  local sc=$1 s=$2 app=$3 hosts=$4 draws=$5 want
  for want in aborts survives; do
    { grep "^$want " "$draws" || true; } | head -2 | while read -r verdict nodes; do
      echo "$nodes" | tr ' ' '\n' >"$hosts.failed"
      got=$(sim "$app" "$hosts" "$hosts.failed")
      [ "$got" = abort ] && got=aborts || got=survives
      echo "$sc,$s,$verdict,$got" >>validate.csv
    done
  done
}
batch() {
  local sc=$1 app=$2 nf=$3 b s t line seed
  place "$app" default "$sc-default.hosts"
  local tdef
  tdef=$(sim "$app" "$sc-default.hosts")
  for b in $(seq 1 "$batches"); do
    seed=$((1000 * b + nf))
    "$B/tofa-bench" faults --torus 8x8x8 --count "$nf" --pf 0.02 --seed "$seed" -o "$sc-$b.faults"
    for s in $STRATEGIES; do
      local hosts="$sc-$b-$s.hosts"
      if [ $s = default ]; then cp "$sc-default.hosts" "$hosts"; t=$tdef
      elif [ $s = remap ]; then
        place "$app" remap "$hosts" "$sc-$b.faults" --old "$sc-default.hosts" --migration 1
        t=$(sim "$app" "$hosts")
      else
        place "$app" $s "$hosts" "$sc-$b.faults"
        t=$(sim "$app" "$hosts")
      fi
      line=$("$B/tofa-bench" batch --torus 8x8x8 --matrix "$out/$app.bytes.mtx" --hostfile "$hosts" \
        --faults "$sc-$b.faults" --time "$t" --instances "$instances" --seed "$((seed + 7))" \
        --draws-out "$hosts.draws")
      onf=0
      [ -f "$hosts.place" ] && onf=$(sed -n 's/.*on_faulty=\([0-9]*\).*/\1/p' "$hosts.place")
      echo "$line" | awk -v sc="$sc" -v b="$b" -v s="$s" -v t="$t" -v onf="${onf:-0}" '{
        for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
        printf "%s,%d,%s,%s,%s,%s,%s,%s,%s\n", sc, b, s, t, v["runs"], v["aborts"], v["batch_time"], onf, v["footprint"] }' >>batches.csv
      if [ "$b" = 1 ] && { [ $s = default ] || [ $s = tofa ] || [ $s = box ]; }; then
        validate "$sc" $s "$app" "$hosts" "$hosts.draws"
      fi
    done
    say "  $sc batch $b/$batches: $(awk -F, -v sc="$sc" -v b="$b" '$1 == sc && $2 == b {printf "%s %.3fs %d/%d aborted; ", $3, $7, $6, $5}' batches.csv)"
  done
}
say "3/4 batches: $batches x $instances instances, 8x8x8 torus, pf 0.02"
[ $lammps_only = 1 ] || batch dt16 dt 16
FLOPS=$F64 LARGS=$L64 batch lammps8 lammps 8
FLOPS=$F64 LARGS=$L64 batch lammps16 lammps 16

# Compute share: the LAMMPS 16-faulty-node batches again with FLOPS per
# timestep from none to the calibrated F64 (1.5e7: the proxy's value before
# the calibration), the calibrated volumes, the same placements and
# the same runs and aborts (a run's count of restarts does not depend on
# its length), so only the run time T changes. share = the default
# placement's computation time (6 Gflops nodes) over its step time.
sweep() {
  local f b s t tdef
  echo "flops,batch,strategy,run_time,runs" >sweep.csv
  for f in 0 7.5e6 1.5e7 3e7 "$F64"; do
    tdef=$(FLOPS=$f LARGS=$L64 sim lammps lammps16-default.hosts)
    for b in $(seq 1 "$batches"); do
      for s in default tofa box; do
        if [ $s = default ]; then t=$tdef; else t=$(FLOPS=$f LARGS=$L64 sim lammps "lammps16-$b-$s.hosts"); fi
        awk -F, -v f="$f" -v b="$b" -v s="$s" -v t="$t" '$1 == "lammps16" && $2 == b && $3 == s {
          print f "," b "," s "," t "," $5}' batches.csv >>sweep.csv
      done
    done
    say "  compute share sweep: flops $f done"
  done
  awk -F, -v n="$lsteps" 'NR > 1 {bt[$1, $2, $3] = $4 * $5; if ($3 == "default") rt[$1] = $4; f[$1] = 1
      nb[$1] = $2 > nb[$1] ? $2 : nb[$1]; if ($3 != "default") st[$1, $3] += $4}
    END {print "flops,compute_share,step_ratio_tofa,step_ratio_box,batch_ratio_tofa,batch_ratio_box"
      for (x in f) { share = (x / 6e9) / (rt[x] / n); r["tofa"] = r["box"] = 0
        for (b = 1; b <= nb[x]; b++) for (s in r) r[s] += bt[x, b, s] / bt[x, b, "default"]
        printf "%s,%.3f,%.3f,%.3f,%.3f,%.3f\n", x, share, st[x, "tofa"] / nb[x] / rt[x],
          st[x, "box"] / nb[x] / rt[x], r["tofa"] / nb[x], r["box"] / nb[x] } }' sweep.csv |
    sort -t, -k2,2g >compute-share.csv
  column -s, -t compute-share.csv >&2 || cat compute-share.csv >&2
}
say "3b/4 LAMMPS 16 faulty: batch ratio against the compute share of a timestep"
sweep

# --- 4. profiler overhead ----------------------------------------------------
overhead() {
say "4/4 profiler overhead: Jacobi, $pairs pairs of runs with and without, side by side"
# Both runs of a pair at the same time, so that both see the same load
# (bench/tofa/prof-overhead.sh); the ratio of each pair, median, min, max.
lib="$build/lib/libmorph-prof-ompi.so"
MORPH_BUILD=$build MORPH_BENCH_NO_RECORD=1 bash "$root/bench/tofa/prof-overhead.sh" --pairs "$pairs" --dir "$out/jac.ranks" \
  >overhead.txt
sed 's/^/  /' overhead.txt | grep -v RESULT >&2
ovr() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" overhead.txt; }
overhead=$(ovr prof_overhead) overhead_min=$(ovr prof_overhead_min) overhead_max=$(ovr prof_overhead_max)
median() { sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
# The interception's own cost per call, in CPU time (one process talking
# to itself), with and without counting: median of 5 runs each.
percall() { for i in 1 2 3 4 5; do mpirun -n 1 "$@" "$B/prof-calls.ompi" 300000; done >percall.txt
  echo "$(awk '{print $2}' percall.txt | median) $(awk '{print $4}' percall.txt | median)"; }
read -r sr0 ar0 < <(percall)
read -r sr1 ar1 < <(percall -x LD_PRELOAD="$lib" -x MORPH_PROF_DIR="$out/jac.ranks")
call_sr=$(awk -v a="$sr0" -v b="$sr1" 'BEGIN {printf "%.0f", b - a}')
call_ar=$(awk -v a="$ar0" -v b="$ar1" 'BEGIN {printf "%.0f", b - a}')
say "  per call (CPU ns, without/with): sendrecv $sr0/$sr1, allreduce $ar0/$ar1"
}
[ $lammps_only = 1 ] || overhead

# --- summary, plots ------------------------------------------------------------
sum() { # scenario strategy field -> mean over batches (and ratios)
  awk -F, -v sc="$1" -v s="$2" -v f="$3" '$1 == sc && $3 == s {t += $f; n++} END {printf "%.6f", t / n}' batches.csv
}
ratio() { # scenario strategy: mean over batches of batch_time / default's
  awk -F, -v sc="$1" -v s="$2" '$1 == sc && $3 == "default" {d[$2] = $7}
    $1 == sc && $3 == s {x[$2] = $7} END {for (b in x) {t += x[b] / d[b]; n++} printf "%.3f", t / n}' batches.csv
}
aborts() { # scenario strategy: aborted runs / runs
  awk -F, -v sc="$1" -v s="$2" '$1 == sc && $3 == s {a += $6; r += $5} END {printf "%.4f", a / r}' batches.csv
}
share=$(awk -F, -v f="$F64" '$1 == f {print $2}' compute-share.csv)
calib="lammps_flops=$F64 lammps_compute_share=$share t1_fit_compute_s=$t1_C t1_fit_alpha=$t1_alpha t1_fit_r2=$t1_r2"
agree=$(awk -F, 'NR > 1 {n++; if ($3 == $4) ok++} END {printf "%d/%d", ok, n}' validate.csv)
say "SimGrid agrees with the abort model on $agree replayed draws"
{
  echo "scenario,strategy,ratio_vs_default,abort_ratio,mean_batch_time"
  for sc in dt16 lammps8 lammps16; do
    [ $lammps_only = 1 ] && [ $sc = dt16 ] && continue
    for s in $STRATEGIES; do
      echo "$sc,$s,$(ratio $sc $s),$(aborts $sc $s),$(sum $sc $s 7)"
    done
  done
} >summary.csv
column -s, -t summary.csv >&2 || cat summary.csv >&2

plot_batches() { # scenario title file: batch completion per batch and strategy
  awk -F, -v sc="$1" '$1 == sc {t[$2, $3] = $7; if ($2 > n) n = $2}
    END {print "batch,default,tofa,greedy,remap,box"
         for (b = 1; b <= n; b++) print b "," t[b, "default"] "," t[b, "tofa"] "," t[b, "greedy"] "," t[b, "remap"] "," t[b, "box"]}' \
    batches.csv >"$1-plot.csv"
  cat >"$1.gp" <<EOF
set terminal pngcairo size 900,450 noenhanced
set output '$3'
set title '$2'
set datafile separator ','
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set key outside top center horizontal
set ylabel 'batch completion time (simulated s)'
set xlabel 'batch'
set yrange [0:*]
plot '$1-plot.csv' skip 1 using 2:xtic(1) title 'default (Slurm order)', '' skip 1 using 3 title 'TOFA', \\
     '' skip 1 using 4 title 'greedy', '' skip 1 using 5 title 'remap from default', \\
     '' skip 1 using 6 title 'box (morph)'
EOF
  gnuplot "$1.gp"
}
[ $lammps_only = 1 ] || plot_batches dt16 "NPB-DT-like, 85 processes, 16 faulty nodes (pf 0.02): paper figure 4" "$root/docs/img/tofa-batches-dt16.png"
plot_batches lammps8 "LAMMPS-like, 64 processes, 8 faulty nodes: paper figure 5a" "$root/docs/img/tofa-batches-lammps8.png"
plot_batches lammps16 "LAMMPS-like, 64 processes, 16 faulty nodes: paper figure 5b" "$root/docs/img/tofa-batches-lammps16.png"
cat >compute-share.gp <<EOF
set terminal pngcairo size 900,450 noenhanced
set output '$root/docs/img/tofa-lammps-compute-share.png'
set title 'LAMMPS-like, 16 faulty nodes: batch completion time over default against compute share'
set datafile separator ','
set key bottom right
set xlabel 'computation / timestep, default placement'
set ylabel 'batch time / default batch time'
set yrange [0.5:1.05]
set grid
plot 'compute-share.csv' skip 1 using 2:5 with linespoints title 'TOFA (Listing 1.1)', \\
     '' skip 1 using 2:6 with linespoints title 'box (morph)', 0.81 with lines dt 2 title 'paper TOFA 0.81', \\
     '< grep "^$F64," compute-share.csv' using 2:5 with points pt 7 ps 2 title 'calibrated to Table 1'
EOF
gnuplot compute-share.gp
cat >table1.gp <<EOF
set terminal pngcairo size 900,450 noenhanced
set output '$root/docs/img/tofa-table1.png'
set title 'Table 1: LAMMPS-like, 256 ranks, calibrated proxy, timesteps/s: paper beside morph'
set datafile separator ','
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set key outside top center horizontal
set ylabel 'timesteps/s'
set yrange [0:*]
plot 'table1.csv' skip 1 using 2:xtic(1) title 'morph default', '' skip 1 using 3 title 'morph TOFA', \\
     '' skip 1 using 4 title 'morph box', '' skip 1 using 5 title 'paper default-Slurm', \\
     '' skip 1 using 6 title 'paper TOFA'
EOF
gnuplot table1.gp
if [ $lammps_only = 1 ]; then
  result=$(echo "RESULT tofa_vs_default_lammps=$(ratio lammps16 tofa) morph_vs_default_lammps=$(ratio lammps16 box)" \
    "tofa_vs_default_lammps8=$(ratio lammps8 tofa) morph_vs_default_lammps8=$(ratio lammps8 box)" \
    "tofa_abort_ratio_lammps16=$(aborts lammps16 tofa) morph_abort_ratio_lammps16=$(aborts lammps16 box)" \
    "default_abort_ratio_lammps16=$(aborts lammps16 default) abort_model_agrees=$agree shape_lammps=$lshape" \
    "$calib batches=$batches seconds=$SECONDS")
  echo "$result"
  bench_record reproduce-tofa "$result"
  exit 0
fi

dt_t=$(awk -F, '$1 == "tofa" {print $2}' fig3-dt.csv)
dt_d=$(awk -F, '$1 == "default" {print $2}' fig3-dt.csv)
result=$(echo "RESULT tofa_vs_default_dt=$(ratio dt16 tofa) tofa_vs_default_lammps=$(ratio lammps16 tofa)" \
  "morph_vs_default_dt=$(ratio dt16 box) morph_vs_default_lammps=$(ratio lammps16 box)" \
  "tofa_abort_ratio=$(aborts dt16 tofa) default_abort_ratio=$(aborts dt16 default)" \
  "prof_overhead=$overhead prof_overhead_min=$overhead_min prof_overhead_max=$overhead_max prof_call_ns_sendrecv=$call_sr prof_call_ns_allreduce=$call_ar" \
  "tofa_vs_default_lammps8=$(ratio lammps8 tofa) tofa_abort_ratio_lammps16=$(aborts lammps16 tofa)" \
  "default_abort_ratio_lammps16=$(aborts lammps16 default) greedy_vs_default_dt=$(ratio dt16 greedy)" \
  "remap_vs_default_dt=$(ratio dt16 remap) dt_faultfree_tofa_vs_default=$(awk -v a="$dt_t" -v b="$dt_d" 'BEGIN {printf "%.3f", a / b}')" \
  "morph_vs_default_lammps8=$(ratio lammps8 box)" \
  "morph_abort_ratio=$(aborts dt16 box) morph_abort_ratio_lammps16=$(aborts lammps16 box)" \
  "abort_model_agrees=$agree shape_lammps=$lshape shape_dt=$dshape $calib batches=$batches seconds=$SECONDS")
echo "$result"
bench_record reproduce-tofa "$result"
