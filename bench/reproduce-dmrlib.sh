#!/usr/bin/env bash
# Reproduces the workload study of paper 000 (DMRlib, section 5 and appendix
# B) with morph-sim and writes docs/reproduction-dmrlib.md and the plots
# docs/img/sim-*.{png,svg}. Ends with
#   RESULT rigid_completion_speedup=... moldable_completion_speedup=...
#          flexible_energy_vs_fixed=... best_policy=... best_vs_dmr_completion=...
#          best_rigid_completion_speedup=... stepping_cpu_hours=...
# (1,000-job workloads, 128 nodes, jobs of at most 32 nodes; the first three
# with Algorithm 2, `dmr`; best_*: the fastest engine policy on the rigid
# submitted malleable workload, workload time of dmr over its own).
# It also replays paper 002 Table 5.4 (stepping scheduler, one job).
# MORPH_BUILD: build folder with bin/morph-sim (built here when missing).
# --quick: sizes 100 and 1000 only.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${MORPH_BUILD:-$root/build-bench}
sim=$build/bin/morph-sim
if [ ! -x "$sim" ]; then
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$build" -j2 --target morph-sim >/dev/null
fi
sizes="100 250 500 1000 2000"
[ "${1:-}" = "--quick" ] && sizes="100 1000"
NODES=128 IA=2 SEED=1
ALG2="dmr"                         # Algorithm 2, FCFS starts, DMRlib sizes
TUNED="rdmr+easy -P sizes=any"     # flexible: reservation-aware DMR, any size
# Candidates for the rigid-submitted malleable workload (label:policy).
RIGID_POLICIES="dmr+easy:dmr+easy rdmr:rdmr rdmr+easy:rdmr+easy"
doc=$root/docs/reproduction-dmrlib.md
img=$root/docs/img
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$img"
res=$work/results.csv

# run LABEL SIZE KIND [morph-sim options...]: one CSV line in results.csv:
# label,size,<the --csv columns of morph-sim>
run() {
  local label=$1 size=$2 kind=$3
  shift 3
  printf '%s,%s,' "$label" "$size" >>"$res"
  "$sim" --generate "$size" --kind "$kind" --seed $SEED --interarrival $IA -n $NODES \
    --max-size 32 --csv "$@" >>"$res"
}

echo "reproduce-dmrlib: Fig. 4, 8, 9, 10 grid" >&2
for n in $sizes; do
  for k in fixed malleable moldable flexible; do
    run "$k" "$n" "$k" -p $ALG2
  done
  run fixed-easy "$n" fixed -p easy
  for lp in $RIGID_POLICIES; do
    run "malleable-${lp%%:*}" "$n" malleable -p "${lp#*:}"
  done
  run flexible-dmr-any "$n" flexible -p dmr+easy -P sizes=any
  run flexible-tuned "$n" flexible -p $TUNED
done
echo "reproduce-dmrlib: Table 7" >&2
for share in 0.25 0.5 0.75; do
  run "rigid-$share" 1000 malleable --malleable-share $share -p $ALG2
  run "moldable-$share" 1000 flexible --malleable-share $share -p $ALG2
done
for app in cg jacobi nbody hpg-aligner; do
  run "rigid-only-$app" 1000 malleable --malleable-app $app -p $ALG2
  run "moldable-only-$app" 1000 flexible --malleable-app $app -p $ALG2
done
echo "reproduce-dmrlib: Fig. 5 timelines" >&2
for k in moldable flexible; do
  "$sim" --generate 1000 --kind $k --seed $SEED --interarrival $IA -n $NODES -p $ALG2 \
    --bin 100 -o "$work" --name "fig5-$k" -q || true
done

echo "reproduce-dmrlib: paper 002 Table 5.4" >&2
# Paper 002 section 5.4.4: one tsunami run on 32 nodes, static on all 32
# against Elastic MPI from 1 node with a stepping scheduler (every 60 s).
# The time curve is an Amdahl fit (t1, serial) of the two run times, with
# the step (STEP nodes) that the elastic run's CPU hours imply; see the doc.
STEP=7 T1=806.8 SERIAL=0.2275
t54() {
  cat >"$work/t54-$1.json" <<JSON
{"format": "morph-workload", "version": 1, "name": "t54-$1", "nodes": 32, "jobs": [
 {"submit": 0, "kind": "$1", "app": "tsunami", "request": $2, "min": 1, "pref": 1, "max": 32,
  "model": {"type": "amdahl", "t1": $T1, "serial": $SERIAL, "iterations": 100,
            "data_bytes": 1e8, "inhibit": 0}}]}
JSON
  "$sim" "$work/t54-$1.json" -n 32 -p stepping -P sizes=any -P step_units=$STEP \
    -P step_period=60 -i 1 --csv
}
t54 fixed 32 >"$work/t54.csv"
t54 malleable 1 >>"$work/t54.csv"
# t54v KIND time|cpuh: run time, or CPU hours (16 processes per node).
t54v() {
  awk -F, -v k="$1" -v w="$2" '$3 == k { print (w == "time" ? $7 : \
    sprintf("%.2f", $11 * 32 * $7 * 16 / 3600)) }' "$work/t54.csv"
}

# get LABEL SIZE COLUMN: a value from results.csv (columns: label, size,
# then morph-sim's: name policy kind jobs completed skipped makespan_s
# avg_wait_s avg_exec_s avg_completion_s allocation_rate energy_kwh
# throughput resizes decisions wall_s).
col() {
  case $1 in makespan) echo 9 ;; wait) echo 10 ;; exec) echo 11 ;; completion) echo 12 ;;
    alloc) echo 13 ;; energy) echo 14 ;; throughput) echo 15 ;; resizes) echo 16 ;; esac
}
get() {
  awk -F, -v l="$1" -v s="$2" -v c="$(col "$3")" '$1 == l && $2 == s { print $c }' "$res"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }
pct() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", (b > 0 ? 100 * a / b : 0) }'; }

# Data files for the plots: one line per size.
for n in $sizes; do
  echo "$n $(ratio "$(get fixed $n wait)" "$(get malleable $n wait)") \
$(ratio "$(get fixed $n exec)" "$(get malleable $n exec)") \
$(ratio "$(get fixed $n completion)" "$(get malleable $n completion)") \
$(ratio "$(get moldable $n wait)" "$(get flexible $n wait)") \
$(ratio "$(get moldable $n exec)" "$(get flexible $n exec)") \
$(ratio "$(get moldable $n completion)" "$(get flexible $n completion)")"
done >"$work/fig4.dat"
for n in $sizes; do
  line="$n"
  for k in fixed malleable moldable flexible; do
    line="$line $(get $k $n makespan) $(get $k $n exec) $(get $k $n alloc) \
$(pct "$(get $k $n energy)" "$(get fixed $n energy)")"
  done
  echo "$line"
done >"$work/fig8.dat"

echo "reproduce-dmrlib: plots" >&2
cat >"$work/plots.gp" <<GP
set grid
set key outside top center horizontal noenhanced
do for [fmt in "png svg"] {
  if (fmt eq "png") { set terminal pngcairo size 900,500 noenhanced } else { set terminal svg size 900,500 noenhanced }
  set output '$img/sim-fig4-speedup.'.fmt
  set title 'Fig. 4: speed-up of malleable over non-malleable (average per job)'
  set xlabel 'jobs in the workload'; set ylabel 'speed-up'; set logscale x
  plot '$work/fig4.dat' u 1:2 w lp dt 2 t 'rigid: waiting', '' u 1:3 w lp dt 2 t 'rigid: execution', \
       '' u 1:4 w lp dt 2 lw 2 t 'rigid: completion', '' u 1:5 w lp t 'moldable: waiting', \
       '' u 1:6 w lp t 'moldable: execution', '' u 1:7 w lp lw 3 t 'moldable: completion'
  unset logscale x
  set style data histograms; set style histogram clustered; set style fill solid 0.7
  set output '$img/sim-fig8a-makespan.'.fmt
  set title 'Fig. 8a: workload completion time'; set xlabel 'jobs'; set ylabel 'seconds'
  plot '$work/fig8.dat' u 2:xtic(1) t 'fixed', '' u 6 t 'malleable', '' u 10 t 'moldable', '' u 14 t 'flexible'
  set output '$img/sim-fig8b-exec.'.fmt
  set title 'Fig. 8b: average job execution time'; set ylabel 'seconds'
  plot '$work/fig8.dat' u 3:xtic(1) t 'fixed', '' u 7 t 'malleable', '' u 11 t 'moldable', '' u 15 t 'flexible'
  set output '$img/sim-fig9-allocation.'.fmt
  set title 'Fig. 9: resource allocation rate'; set ylabel 'allocated share of 128 nodes'; set yrange [0:1]
  plot '$work/fig8.dat' u 4:xtic(1) t 'fixed', '' u 8 t 'malleable', '' u 12 t 'moldable', '' u 16 t 'flexible'
  set yrange [*:*]
  set output '$img/sim-fig10-energy.'.fmt
  set title 'Fig. 10: energy relative to the fixed workload (%)'; set ylabel '%'
  plot '$work/fig8.dat' u 5:xtic(1) t 'fixed', '' u 9 t 'malleable', '' u 13 t 'moldable', '' u 17 t 'flexible'
  set style data lines
  set datafile separator ','
  set output '$img/sim-fig5-timeline.'.fmt
  set multiplot layout 2,1 title 'Fig. 5: 1,000-job workload, moldable submission'
  set title ''; set xlabel ''; set ylabel 'nodes, jobs'; set yrange [0:140]
  plot '$work/fig5-moldable-timeline.csv' skip 1 u 1:2 w steps lw 2 t 'allocated, pure moldable', \
       '$work/fig5-flexible-timeline.csv' skip 1 u 1:2 w steps lw 2 t 'allocated, flexible', \
       '$work/fig5-moldable-timeline.csv' skip 1 u 1:3 w steps t 'running, pure moldable', \
       '$work/fig5-flexible-timeline.csv' skip 1 u 1:3 w steps t 'running, flexible'
  set xlabel 'time (s)'; set ylabel 'completed per 100 s'; set yrange [0:*]
  plot '$work/fig5-moldable-completed.csv' skip 1 u 1:2 w boxes fs solid 0.4 t 'pure moldable', \
       '$work/fig5-flexible-completed.csv' skip 1 u 1:2 w boxes fs solid 0.4 t 'flexible'
  unset multiplot
  set datafile separator whitespace
}
GP
gnuplot "$work/plots.gp" || echo "reproduce-dmrlib: gnuplot failed; tables only" >&2

# The analysis below quotes numbers of this run.
# nsj LABEL: node-seconds per job at 1,000 jobs (allocation x 128 x time / jobs).
nsj() { awk -v a="$(get "$1" 1000 alloc)" -v m="$(get "$1" 1000 makespan)" \
  'BEGIN { printf "%d", a * 128 * m / 1000 }'; }
notes() {
  cat <<MD

## Why the numbers differ

The arithmetic behind every workload time is: time = jobs x node-seconds
per job / (128 x allocation rate). For 1,000 jobs (\`morph sim ... -o DIR\`
gives the per-job CSV):

| kind, policy | node-seconds per job | allocation | workload time (s) |
|---|---|---|---|
| fixed, FCFS | $(nsj fixed) | $(alloc fixed) % | $(get fixed 1000 makespan) |
| fixed, EASY | $(nsj fixed-easy) | $(alloc fixed-easy) % | $(get fixed-easy 1000 makespan) |
| malleable (rigid), Algorithm 2 | $(nsj malleable) | $(alloc malleable) % | $(get malleable 1000 makespan) |
| malleable (rigid), $best | $(nsj malleable-$best) | $(alloc malleable-$best) % | $(get malleable-$best 1000 makespan) |
| pure moldable | $(nsj moldable) | $(alloc moldable) % | $(get moldable 1000 makespan) |
| flexible, Algorithm 2 | $(nsj flexible) | $(alloc flexible) % | $(get flexible 1000 makespan) |
| flexible, $TUNED | $(nsj flexible-tuned) | $(alloc flexible-tuned) % | $(get flexible-tuned 1000 makespan) |

- **Flexible agrees** ($(share flexible) % of the fixed time against
  25.15 %; energy $(pct "$(get flexible 1000 energy)" "$(get fixed 1000 energy)") % against about 20 %): jobs start small and
  Algorithm 2 keeps them near the preferred size, where the gain-difference
  heuristic put the efficient configurations.
- **Rigid-submitted malleable jobs, Algorithm 2** ($(share malleable) % of the
  fixed time against 36.12 %; completion speed-up $rigid against 3.25). Each
  job asks for 32 nodes (12 for HPG-aligner) and starts only when 32 nodes
  are free at once. Algorithm 2 as the paper states it shrinks *one* running
  job for a pending job ("by shrinking a running job ... an additional job
  could be initiated"), never below its preferred size, and expands any job
  whenever nodes are free (lines 8, 9, 11) — also while a 32-node job waits,
  so the nodes an ending job leaves go back to running jobs instead of
  accumulating for the head. Jobs keep most of their node-time near 32 nodes
  ($(nsj malleable) node-seconds per job against $(nsj fixed) fixed).
- **The same jobs under rdmr** ($(share malleable-rdmr) % of the fixed time,
  completion speed-up $(ratio "$fixed_c" "$(get malleable-rdmr 1000 completion)")): several jobs shrink to their preferred
  size for the waiting head, and free nodes are kept for it, so a job's
  node-time falls to $(nsj malleable-rdmr) node-seconds, close to the paper's 36 %. A
  plausible way the paper's Slurm got there, which the paper does not
  describe: the boosted pending job holds the released nodes (highest
  priority), and under sched/backfill an expansion (in Slurm, a job
  submitted for the extra nodes) cannot take nodes reserved for a job of
  higher priority. We cannot check this against the paper; \`rdmr\` makes
  both explicit. The remaining gap: allocation drops to
  $(alloc malleable-rdmr) % (nodes held while shrinks complete or jobs end), and energy is
  $(pct "$(get malleable-rdmr 1000 energy)" "$(get fixed 1000 energy)") % of fixed against about 30 %.
- **Pure moldable gains less** ($(share moldable) % against about 36 %): our
  moldable start gives a job every free node up to 32, and free nodes appear
  mostly when a 32-node job ends, so pure moldable jobs start large and run
  near their efficient size less often than the paper's (it stresses the
  execution-time growth, Fig. 8b).
- **Fixed allocation is $(alloc fixed) % with FCFS** against 96.37 %: Slurm used
  sched/backfill. With EASY backfilling (exact run-time estimates) the fixed
  workload reaches $(alloc fixed-easy) % and takes $(pct "$(get fixed-easy 1000 makespan)" "$(get fixed 1000 makespan)") % of the FCFS time.
- **Absolute times are a calibration**: paper 000 gives the gain differences
  (Fig. 3) and limits (Table 5), not the execution times; docs/sim.md derives
  the curves and the one-node times. Energy follows workload time closely
  (energy is mostly loaded time), in the paper and here.

## Algorithm 2 as implemented (\`dmr\`), checked against the text

Re-reading section 5.1: "the policy checks if by shrinking a running job
(but never with fewer processes than preferred) and deallocating part of its
resources (line 6), an additional job could be initiated. When this action
is scheduled for the first job, the additional one, responsible for the
shrinking, is assigned the highest priority to run." One running job is
shrunk per pending job, only above its preferred size, and the pending job
gets the released nodes first. \`dmr\` does exactly that (START depending on
the SHRINK) and is left unchanged. What the text leaves to Slurm is (a)
start order: sched/backfill, so \`dmr+easy\` is the closer model of the
paper's scheduler than \`dmr\` (FCFS); on these workloads it changes little
($(get malleable-dmr+easy 1000 makespan) s against $(get malleable 1000 makespan) s), because backfill cannot make a
32-node job start; and (b) that nodes held for the boosted job are not
expanded into, which \`rdmr\` adds.

## Beating Algorithm 2

\`$best\` completes the rigid-submitted malleable 1,000-job workload
$best_vs x faster than Algorithm 2 (table above for every size) and
$(ratio "$(get fixed-easy 1000 makespan)" "$(get malleable-$best 1000 makespan)") x faster than EASY backfilling of the same jobs submitted fixed;
its average completion time is $best_rigid x shorter than the fixed
workload's (paper: about 3.25). For flexible jobs, where Algorithm 2 is
already close to the paper, \`$TUNED\` takes
$(pct "$(get flexible-tuned 1000 makespan)" "$(get flexible 1000 makespan)") % of Algorithm 2's time at 1,000 jobs (\`dmr+easy -P sizes=any\`:
$(pct "$(get flexible-dmr-any 1000 makespan)" "$(get flexible 1000 makespan)") %): the gain there comes from EASY starts and any resize size,
hardly from reservations, as flexible jobs already start small.

## Paper 002 Table 5.4: stepping scheduler

One tsunami simulation (sam(oa)², growing grid) on 32 nodes of 16
processes: static on all 32 nodes, or Elastic MPI from 1 node with a
scheduler that adds nodes every 60 s (\`stepping\`, \`-P step_units=$STEP -P
step_period=60\`). The simulator has no growing workload, so the job's
curve is an Amdahl fit of the paper's two run times (t1 = $T1 s, serial
fraction $SERIAL) and the step of $STEP nodes is what the elastic run's CPU
hours imply (average 13.2 nodes over 270 s: 1, 8, 15, 22, 29 nodes). The
fit makes the run times agree by construction, and the step comes from the
CPU hours, so the agreement below checks the simulated timing of the steps
(wake-ups every 60 s after the last change, resizes at iteration ends, their
costs), not an independent prediction. The paper's static figure is itself
512 processes x 200 s; 203 s gives 28.87 hours:

| run | paper time (s) | sim time (s) | paper CPU hours | sim CPU hours |
|---|---|---|---|---|
| static MPI, 32 nodes | 203 | $(t54v fixed time) | 28.48 | $(t54v fixed cpuh) |
| Elastic MPI, stepping | 270 | $(t54v malleable time) | 15.89 | $(t54v malleable cpuh) |
MD
}

echo "reproduce-dmrlib: $doc" >&2
big=1000
fixed_c=$(get fixed $big completion)
rigid=$(ratio "$fixed_c" "$(get malleable $big completion)")
mold=$(ratio "$(get moldable $big completion)" "$(get flexible $big completion)")
fe=$(ratio "$(get flexible $big energy)" "$(get fixed $big energy)")
best="" best_m=""
for lp in $RIGID_POLICIES; do
  l=${lp%%:*} m=$(get "malleable-${lp%%:*}" $big makespan)
  if [ -z "$best_m" ] || awk -v a="$m" -v b="$best_m" 'BEGIN { exit !(a < b) }'; then
    best=$l best_m=$m
  fi
done
best_vs=$(ratio "$(get malleable $big makespan)" "$best_m")
best_rigid=$(ratio "$fixed_c" "$(get "malleable-$best" $big completion)")
fixed_m=$(get fixed $big makespan)
share() { pct "$(get "$1" $big makespan)" "$fixed_m"; }
alloc() { awk -v a="$(get "$1" $big alloc)" 'BEGIN { printf "%.2f", 100 * a }'; }
{
  cat <<MD
# Reproduction of the DMRlib workload study (paper 000, section 5, appendix B)

Regenerated by \`bench/reproduce-dmrlib.sh\` (this file and \`docs/img/sim-*\`).
Setting: 128 nodes, jobs of at most 32 nodes, the four applications mixed at
random (Table 4 configurations, Table 5 limits, Table 6 requests, time curves
of docs/sim.md), Poisson arrivals with a mean gap of $IA s (seed $SEED: the
1,000 jobs arrive within about $((IA * 1000)) s, far less than any workload
takes: the stressed case), scheduler every 10 s and on every event, DMRlib
inhibitors (10 s for CG and Jacobi), resizes at iteration ends with the cost
model of docs/sim.md. Policy: the shared engine's \`dmr\` (Algorithm 2 with
FCFS starts and DMRlib's multiple-or-divisor sizes) unless a column says
otherwise; \`rdmr\` is the reservation-aware DMR of docs/policy.md; the
same generated arrivals and applications for every kind and policy.
Energy: idle 100 W, loaded 340 W.

## Headline numbers (1,000 jobs)

| metric | paper 000 | morph-sim |
|---|---|---|
| completion-time speed-up, rigid submission (malleable over fixed) | about 3.25 | $rigid |
| the same with \`$best\` (reservation-aware DMR, this report's best) | about 3.25 | $best_rigid |
| workload time, malleable rigid with \`$best\`, % of fixed | 36.12 % | $(share malleable-$best) % |
| completion-time speed-up, moldable submission (flexible over pure moldable) | about 1.5 | $mold |
| workload time, malleable rigid, % of fixed (Table 7 "All") | 36.12 % | $(share malleable) % |
| workload time, flexible, % of fixed (Table 7) | 25.15 % | $(share flexible) % |
| workload time, pure moldable, % of fixed (Fig. 8a: close to malleable rigid) | about 36 % | $(share moldable) % |
| energy, malleable rigid, vs fixed (Fig. 10) | about 30 % | $(pct "$(get malleable $big energy)" "$(get fixed $big energy)") % |
| energy, pure moldable, vs fixed | 40-50 % | $(pct "$(get moldable $big energy)" "$(get fixed $big energy)") % |
| energy, flexible, vs fixed | about 20 % | $(pct "$(get flexible $big energy)" "$(get fixed $big energy)") % |
| allocation rate, fixed (Table 7) | 96.37 % | $(alloc fixed) % (EASY: $(alloc fixed-easy) %) |

## Per workload size (Fig. 4, 8, 9, 10)

| jobs | kind | workload time (s) | avg wait (s) | avg exec (s) | avg completion (s) | allocation | energy (kWh) | vs fixed energy |
|---|---|---|---|---|---|---|---|---|
MD
  for n in $sizes; do
    for k in fixed malleable moldable flexible; do
      echo "| $n | $k | $(get $k $n makespan) | $(get $k $n wait) | $(get $k $n exec) | $(get $k $n completion) | $(get $k $n alloc) | $(get $k $n energy) | $(pct "$(get $k $n energy)" "$(get fixed $n energy)") % |"
    done
  done
  cat <<MD

Speed-ups of the average job (Fig. 4; rigid: malleable over fixed, moldable:
flexible over pure moldable):

| jobs | rigid wait | rigid exec | rigid completion | moldable wait | moldable exec | moldable completion |
|---|---|---|---|---|---|---|
MD
  awk '{ printf "| %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6, $7 }' "$work/fig4.dat"
  cat <<MD

![Fig. 4](img/sim-fig4-speedup.png)
![Fig. 5](img/sim-fig5-timeline.png)
![Fig. 8a](img/sim-fig8a-makespan.png)
![Fig. 8b](img/sim-fig8b-exec.png)
![Fig. 9](img/sim-fig9-allocation.png)
![Fig. 10](img/sim-fig10-energy.png)

## Table 7: partly malleable workloads (1,000 jobs; % of the fixed workload's time)

| workload | rigid submission: time | rigid: allocation | moldable submission: time | moldable: allocation |
|---|---|---|---|---|
| none malleable (reference) | 100 % | $(alloc fixed) % | $(share moldable) % | $(alloc moldable) % |
MD
  for s in 0.25 0.5 0.75; do
    echo "| $s malleable | $(share rigid-$s) % | $(alloc rigid-$s) % | $(share moldable-$s) % | $(alloc moldable-$s) % |"
  done
  for a in cg jacobi nbody hpg-aligner; do
    echo "| only $a malleable | $(share rigid-only-$a) % | $(alloc rigid-only-$a) % | $(share moldable-only-$a) % | $(alloc moldable-only-$a) % |"
  done
  echo "| all malleable | $(share malleable) % | $(alloc malleable) % | $(share flexible) % | $(alloc flexible) % |"
  cat <<MD

Paper: rigid 75 % malleable 53.77 %, only N-body 56.39 %, all 36.12 %;
moldable only CG 25.51 %, all 25.15 %; fixed allocation 96.37 %.

## Policies side by side: Algorithm 2, rdmr, EASY backfilling

Workload time in seconds (lower is better), same workloads. Rigid
submission (every job asks for its maximum):

| jobs | fixed, FCFS | fixed, EASY | malleable, Algorithm 2 (\`dmr\`) | malleable, \`dmr+easy\` | malleable, \`rdmr\` | malleable, \`rdmr+easy\` | best vs Algorithm 2 |
|---|---|---|---|---|---|---|---|
MD
  for n in $sizes; do
    echo "| $n | $(get fixed $n makespan) | $(get fixed-easy $n makespan) | $(get malleable $n makespan) | $(get malleable-dmr+easy $n makespan) | $(get malleable-rdmr $n makespan) | $(get malleable-rdmr+easy $n makespan) | $(ratio "$(get malleable $n makespan)" "$(get malleable-$best $n makespan)") x |"
  done
  cat <<MD

Average completion-time speed-up over fixed (FCFS; Fig. 4's rigid line;
paper about 3.25):

| jobs | Algorithm 2 | \`rdmr\` | \`rdmr+easy\` | fixed EASY |
|---|---|---|---|---|
MD
  for n in $sizes; do
    fc=$(get fixed $n completion)
    echo "| $n | $(ratio "$fc" "$(get malleable $n completion)") | $(ratio "$fc" "$(get malleable-rdmr $n completion)") | $(ratio "$fc" "$(get malleable-rdmr+easy $n completion)") | $(ratio "$fc" "$(get fixed-easy $n completion)") |"
  done
  cat <<MD

Moldable submission:

| jobs | pure moldable | flexible, Algorithm 2 | flexible, \`dmr+easy -P sizes=any\` | flexible, \`$TUNED\` |
|---|---|---|---|---|
MD
  for n in $sizes; do
    echo "| $n | $(get moldable $n makespan) | $(get flexible $n makespan) | $(get flexible-dmr-any $n makespan) | $(get flexible-tuned $n makespan) |"
  done
  notes
} >"$doc"
echo "RESULT rigid_completion_speedup=$rigid moldable_completion_speedup=$mold flexible_energy_vs_fixed=$fe best_policy=$best best_vs_dmr_completion=$best_vs best_rigid_completion_speedup=$best_rigid stepping_cpu_hours=$(t54v malleable cpuh)"
