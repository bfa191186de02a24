#!/usr/bin/env bash
# Held-out evaluation of the policy engine (docs/policy-evaluation.md, which
# this script writes with its plots docs/img/heldout-*.png): workloads the
# policies were not designed on. SWF traces drawn from the Lublin-Feitelson
# model (morph workload lublin) for machines shaped like the Parallel
# Workloads Archive's CTC-SP2 (430 nodes) and KTH-SP2 (100 nodes), at three
# offered loads and several seeds. Each trace runs twice: "fixed" (every
# job rigid, as traced) and "flexible" (a share of the jobs moldable and
# malleable, the rest rigid). Ends with
#   RESULT best_heldout_vs_easy=... best_heldout_policy=... <policy>_vs_easy=...
# (mean bounded slowdown over the whole held-out set, of the best flexible
# policy and of each, over fixed EASY's; lower is better).
# MORPH_BUILD: build folder with bin/morph-sim and bin/morph-workload
# (built here when missing). --quick: 3 seeds of 1,000 jobs.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${MORPH_BUILD:-$root/build-bench}
sim=$build/bin/morph-sim wlgen=$build/bin/morph-workload
if [ ! -x "$sim" ] || [ ! -x "$wlgen" ]; then
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$build" -j2 --target morph-sim morph-workload >/dev/null
fi
SHAPES="ctc kth"
LOADS="light:0.5 balanced:0.85 overloaded:1.2"
SEEDS="1 2 3 4 5" JOBS=2000 SHARE=0.5
[ "${1:-}" = "--quick" ] && SEEDS="1 2 3" JOBS=1000
FIXED_POLICIES="fcfs easy"
FLEX_POLICIES="fcfs easy dmr+easy dmr-slurm+easy rdmr+easy edmr+easy mtct+easy granularity+easy"
doc=$root/docs/policy-evaluation.md
img=$root/docs/img
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$img"
res=$work/runs.csv

nodes_of() { case $1 in ctc) echo 430 ;; kth) echo 100 ;; esac; }

# One line per run: shape,load,seed,variant,policy,makespan,wait,bsld,energy
runsim() { # SHAPE LOAD SEED VARIANT POLICY TRACE [options]
  local shape=$1 load=$2 seed=$3 variant=$4 pol=$5 trace=$6 line
  shift 6
  if ! line=$("$sim" --swf "$trace" -n "$(nodes_of "$shape")" -p "$pol" -P sizes=any --csv "$@" \
                2>"$work/err"); then
    echo "policies: morph-sim failed on $shape $load seed $seed $variant $pol:" >&2
    cat "$work/err" >&2
    exit 1
  fi
  awk -F, -v k="$shape,$load,$seed,$variant,$pol" '{ print k "," $7 "," $8 "," $17 "," $12 }' \
    <<<"$line" >>"$res"
}

echo "policies: simulating $(echo $SHAPES | wc -w) shapes x 3 loads x $(echo $SEEDS | wc -w) seeds" >&2
t0=$(date +%s)
for shape in $SHAPES; do
  for ll in $LOADS; do
    load=${ll%%:*}
    for seed in $SEEDS; do
      trace=$work/$shape-$load-$seed.swf
      "$wlgen" lublin --shape "$shape" --jobs $JOBS --load "${ll#*:}" --seed "$seed" -o "$trace" 2>/dev/null
      for p in $FIXED_POLICIES; do
        runsim "$shape" "$load" "$seed" fixed "$p" "$trace" --kind fixed
      done
      for p in $FLEX_POLICIES; do
        runsim "$shape" "$load" "$seed" flexible "$p" "$trace" --kind flexible \
          --malleable-share $SHARE --rest-fixed
      done
    done
  done
done
elapsed=$(($(date +%s) - t0))

# Mean and 95 % confidence half-width over seeds (Student's t) of each
# metric, per shape, load, variant and policy: agg.csv with columns
# shape,load,variant,policy,n, then mean,ci for makespan wait bsld energy.
awk -F, '
  function t95(n) { return n <= 1 ? 0 : (n == 2 ? 12.706 : n == 3 ? 4.303 : n == 4 ? 3.182 :
                    n == 5 ? 2.776 : n <= 10 ? 2.262 : 1.96) }
  { k = $1 "," $2 "," $4 "," $5; n[k]++; keys[k] = 1
    for (m = 6; m <= 9; m++) { s[k, m] += $m; q[k, m] += $m * $m } }
  END { for (k in keys) { line = k "," n[k]
      for (m = 6; m <= 9; m++) { mu = s[k, m] / n[k]; v = n[k] > 1 ? (q[k, m] - n[k] * mu * mu) / (n[k] - 1) : 0
        line = line "," mu "," t95(n[k]) * sqrt(v > 0 ? v : 0) / sqrt(n[k]) }
      print line } }' "$res" | sort >"$work/agg.csv"
agg() { # SHAPE LOAD VARIANT POLICY METRIC(makespan wait bsld energy) mean|ci
  local c
  case $5 in makespan) c=6 ;; wait) c=8 ;; bsld) c=10 ;; energy) c=12 ;; esac
  [ "$6" = ci ] && c=$((c + 1))
  awk -F, -v k="$1,$2,$3,$4" -v c=$c '$1 "," $2 "," $3 "," $4 == k { print $c }' "$work/agg.csv"
}
fmt() { awk -v m="$1" -v c="$2" -v d="${3:-0}" 'BEGIN { printf "%.*f ± %.*f", d, m, d, c }'; }

# Over the whole held-out set: each policy's mean bounded slowdown over
# fixed EASY's (ratio of the means over every trace), and the geometric
# mean of the per-trace ratios (so that one overloaded trace does not
# decide alone).
overall() { # VARIANT POLICY -> "ratio geomean"
  awk -F, -v v="$1" -v p="$2" '
    $4 == "fixed" && $5 == "easy" { e[$1 "," $2 "," $3] = $8; se += $8 }
    $4 == v && $5 == p { b[$1 "," $2 "," $3] = $8; sb += $8 }
    END { for (k in b) { lg += log(b[k] / e[k]); n++ }
          printf "%.3f %.3f", sb / se, exp(lg / n) }' "$res"
}
best="" best_r=""
results=""
for p in $FLEX_POLICIES; do
  read -r r g <<<"$(overall flexible "$p")"
  results="$results ${p}_vs_easy=$r"
  if [ -z "$best_r" ] || awk -v a="$r" -v b="$best_r" 'BEGIN { exit !(a < b) }'; then
    best=$p best_r=$r
  fi
done

echo "policies: plots" >&2
# One data file per shape and metric: a row per (variant, policy), columns
# mean and ci for each load.
for shape in $SHAPES; do
  for metric in bsld energy wait; do
    {
      for v in fixed flexible; do
        ps=$FIXED_POLICIES
        [ $v = flexible ] && ps=$FLEX_POLICIES
        for p in $ps; do
          line="$v:$p"
          for ll in $LOADS; do
            line="$line $(agg "$shape" "${ll%%:*}" $v "$p" $metric mean) $(agg "$shape" "${ll%%:*}" $v "$p" $metric ci)"
          done
          echo "$line"
        done
      done
    } >"$work/$shape-$metric.dat"
  done
done
cat >"$work/plots.gp" <<GP
set terminal pngcairo size 1000,520 noenhanced
set grid ytics
set key outside top center horizontal
set style data histograms
set style histogram errorbars gap 2 lw 1
set style fill solid 0.75 border -1
set xtics rotate by -35
do for [shape in "$SHAPES"] {
  set output '$img/heldout-'.shape.'-bsld.png'
  set title 'Held-out '.shape.' traces: mean bounded slowdown (95 % CI over seeds; log scale)'
  set ylabel 'bounded slowdown'; set logscale y
  plot '$work/'.shape.'-bsld.dat' u 2:3:xtic(1) t 'light (0.5)', '' u 4:5 t 'balanced (0.85)', '' u 6:7 t 'overloaded (1.2)'
  unset logscale y
  set output '$img/heldout-'.shape.'-energy.png'
  set title 'Held-out '.shape.' traces: energy (kWh, 95 % CI over seeds)'
  set ylabel 'kWh'
  plot '$work/'.shape.'-energy.dat' u 2:3:xtic(1) t 'light (0.5)', '' u 4:5 t 'balanced (0.85)', '' u 6:7 t 'overloaded (1.2)'
}
GP
gnuplot "$work/plots.gp" || echo "policies: gnuplot failed; tables only" >&2

echo "policies: $doc" >&2
table() { # SHAPE
  echo "| load | workload | policy | makespan (s) | mean wait (s) | mean bounded slowdown | energy (kWh) |"
  echo "|---|---|---|---|---|---|---|"
  for ll in $LOADS; do
    load=${ll%%:*}
    for v in fixed flexible; do
      ps=$FIXED_POLICIES
      [ $v = flexible ] && ps=$FLEX_POLICIES
      for p in $ps; do
        echo "| $load (${ll#*:}) | $v | \`$p\` | $(fmt "$(agg "$1" "$load" $v "$p" makespan mean)" "$(agg "$1" "$load" $v "$p" makespan ci)") | $(fmt "$(agg "$1" "$load" $v "$p" wait mean)" "$(agg "$1" "$load" $v "$p" wait ci)") | $(fmt "$(agg "$1" "$load" $v "$p" bsld mean)" "$(agg "$1" "$load" $v "$p" bsld ci)" 1) | $(fmt "$(agg "$1" "$load" $v "$p" energy mean)" "$(agg "$1" "$load" $v "$p" energy ci)") |"
      done
    done
  done
}
summary() {
  echo "| flexible workload, policy | mean bounded slowdown over fixed EASY's (ratio of means) | geometric mean of per-trace ratios |"
  echo "|---|---|---|"
  read -r r g <<<"$(overall fixed fcfs)"
  echo "| (fixed workload, \`fcfs\`) | $r | $g |"
  for p in $FLEX_POLICIES; do
    read -r r g <<<"$(overall flexible "$p")"
    echo "| \`$p\` | $r | $g |"
  done
}
wins() { # which flexible policy has the lowest mean bsld per shape and load
  for shape in $SHAPES; do
    for ll in $LOADS; do
      w="" wb=""
      for p in $FLEX_POLICIES; do
        b=$(agg "$shape" "${ll%%:*}" flexible "$p" bsld mean)
        if [ -z "$wb" ] || awk -v a="$b" -v c="$wb" 'BEGIN { exit !(a < c) }'; then w=$p wb=$b; fi
      done
      echo "| $shape | ${ll%%:*} | \`$w\` | $(awk -v b="$wb" 'BEGIN { printf "%.1f", b }') | $(awk -v b="$wb" -v e="$(agg "$shape" "${ll%%:*}" fixed easy bsld mean)" 'BEGIN { printf "%.2f", b / e }') |"
    done
  done
}
{
  cat <<MD
# Policies on held-out workloads

Regenerated by \`bench/policies.sh\` (this file and \`docs/img/heldout-*.png\`;
$elapsed s on the shared 2-core machine). The policies of docs/policy.md
were designed and tuned on paper 000's workload (docs/reproduction-dmrlib.md:
four applications with table-driven speed-ups, 32-node requests, arrivals
every 2 s). This page runs them on workloads they were not designed on.

## The held-out set

- **Traces**: SWF files written by \`morph workload lublin\`
  (src/workload/lublin.c): the Lublin-Feitelson model (JPDC 2003), fitted
  on the Parallel Workloads Archive's logs: serial jobs and power-of-two
  sizes, log2 sizes from a two-stage uniform up to the machine size, run
  times from a hyper-gamma whose mix depends on the size (bigger jobs run
  longer), arrivals with a daily cycle, batch and interactive jobs.
  Shapes: **ctc** (430 nodes, CTC-SP2's batch partition; run times up to
  18 h) and **kth** (100 nodes, KTH-SP2; up to 60 h). $JOBS jobs per
  trace, seeds $(echo $SEEDS | tr ' ' ','), offered loads 0.5 (light),
  0.85 (balanced) and 1.2 (overloaded), reached by scaling the arrival
  gaps (the daily cycle kept).
- **Jobs**: the SWF importer turns each record into an Amdahl model with
  5 % serial work whose time at the traced size is the traced run time;
  estimates for EASY are exact.
- **fixed**: every job rigid at its traced size. **flexible**: a share of
  $SHARE of the jobs (chosen per seed) is submitted min-max and is
  malleable (min = 1/4, preferred = the traced size, max = 2x), the
  others stay rigid (\`--kind flexible --malleable-share $SHARE --rest-fixed\`).
  Resizes to any size (\`-P sizes=any\`); resize cost: 1 GiB of state per
  node, the simulator's defaults.
- **Metrics** (docs/report.md): makespan, mean wait, mean bounded slowdown
  max(1, (wait + run) / max(run, 10 s)), energy (idle 100 W, loaded 340 W
  per node). Mean ± the 95 % confidence half-width over the seeds
  (Student's t).

## Summary

RESULT best_heldout_vs_easy=$best_r best_heldout_policy=$best (mean
bounded slowdown of the best flexible policy over fixed EASY's, on every
trace together; lower is better).

$(summary)

Best flexible policy per shape and load (mean bounded slowdown; ratio to
fixed EASY):

| shape | load | best | bounded slowdown | vs fixed EASY |
|---|---|---|---|---|
$(wins)

MD
  for shape in $SHAPES; do
    cat <<MD
## $shape ($(nodes_of "$shape") nodes)

![$shape bounded slowdown](img/heldout-$shape-bsld.png)
![$shape energy](img/heldout-$shape-energy.png)

$(table "$shape")

MD
  done
} >"$doc"
echo "RESULT best_heldout_vs_easy=$best_r best_heldout_policy=$best$results runs=$(wc -l <"$res") seconds=$elapsed"
