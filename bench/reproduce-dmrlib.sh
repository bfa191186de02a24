#!/usr/bin/env bash
# Reproduces the workload study of paper 000 (DMRlib, section 5 and appendix
# B) with morph-sim and writes docs/reproduction-dmrlib.md and the plots
# docs/img/sim-*.{png,svg}. Ends with
#   RESULT rigid_completion_speedup=... moldable_completion_speedup=...
#          flexible_energy_vs_fixed=... best_policy=... best_vs_dmr_completion=...
#          best_rigid_completion_speedup=... best_moldable_completion_speedup=...
#          best_flexible_energy_vs_dmr=... stepping_cpu_hours=...
#   RESULT waits_s ... (average wait per application and job kind, fixed
#          FCFS against the best policy; every ratio must be <= 1)
# (1,000-job workloads, 128 nodes, jobs of at most 32 nodes; the first three
# with Algorithm 2, `dmr`; best_*: the engine policy with the highest
# average completion-time speed-up on the rigid-submitted malleable
# workload; best_vs_dmr_completion: dmr's workload time over its own).
# It also measures which open assumptions of the paper move its headline
# numbers (the gap table) and replays paper 002 Table 5.4 (stepping
# scheduler, one job).
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
OURS="edmr+easy"                   # ours: docs/policy.md
# Candidates for the rigid-submitted malleable workload (label:policy).
RIGID_POLICIES="dmr+easy:dmr+easy dmr-slurm:dmr-slurm rdmr:rdmr rdmr+easy:rdmr+easy edmr+easy:edmr+easy"
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
  run flexible-ours "$n" flexible -p $OURS
done
echo "reproduce-dmrlib: Table 7" >&2
for share in 0.25 0.5 0.75; do
  run "rigid-$share" 1000 malleable --malleable-share $share -p $ALG2
  run "moldable-$share" 1000 flexible --malleable-share $share -p $ALG2
  run "rigid-rdmr-$share" 1000 malleable --malleable-share $share -p rdmr
  run "rigid-ours-$share" 1000 malleable --malleable-share $share -p $OURS
done
for app in cg jacobi nbody hpg-aligner; do
  run "rigid-only-$app" 1000 malleable --malleable-app $app -p $ALG2
  run "moldable-only-$app" 1000 flexible --malleable-app $app -p $ALG2
  run "rigid-rdmr-only-$app" 1000 malleable --malleable-app $app -p rdmr
  run "rigid-ours-only-$app" 1000 malleable --malleable-app $app -p $OURS
done

echo "reproduce-dmrlib: the gap table" >&2
# gaprow ID FIXED_POLICY MALLEABLE_POLICY [morph-sim options]: the fixed
# workload under FIXED_POLICY and the all-, 75 %- and N-body-only
# malleable rigid workloads under MALLEABLE_POLICY, with the options (one
# open assumption changed from the settings above), as gap-ID-{fixed,all,
# 0.75,nbody} lines of results.csv.
gaprow() {
  local id=$1 fp=$2 mp=$3
  shift 3
  run "gap-$id-fixed" 1000 fixed -p $fp "$@"
  run "gap-$id-all" 1000 malleable -p $mp "$@"
  run "gap-$id-0.75" 1000 malleable --malleable-share 0.75 -p $mp "$@"
  run "gap-$id-nbody" 1000 malleable --malleable-app nbody -p $mp "$@"
}
# One line per row: ID|description|fixed policy|malleable policy|options.
GAP_ROWS="base|Algorithm 2 as written (\`dmr\`), the settings above|fcfs|dmr|
ia10|arrivals every 10 s on average (5x fewer per second)|fcfs|dmr|--interarrival 10
ia17|arrivals every 17 s|fcfs|dmr|--interarrival 17
ia20|arrivals every 20 s|fcfs|dmr|--interarrival 20
ia40|arrivals every 40 s (neither workload queues for long)|fcfs|dmr|--interarrival 40
cap16|requests capped at 16 nodes instead of 32|fcfs|dmr|--max-size 16
inh0|no scheduling inhibitor (Table 5: 10 s for CG and Jacobi)|fcfs|dmr|--inhibit 0
inh60|inhibitor of 60 s for every job|fcfs|dmr|--inhibit 60
free|reconfigurations cost nothing|fcfs|dmr|--expand-cost 0 --shrink-cost 0 --bandwidth 1e18
x10|reconfigurations cost 10 times more|fcfs|dmr|--expand-cost 8 --shrink-cost 2.5 --bandwidth 1e9
min|a shrink may go below the preferred size, to the minimum|fcfs|dmr|-P shrink_floor=min
slurm|free nodes kept for the waiting head (\`dmr-slurm\`)|fcfs|dmr-slurm|
multi1|kept nodes, several jobs may shrink, at most 1 per start (\`rdmr -P shrink_jobs=1\`)|fcfs|rdmr|-P shrink_jobs=1
multi2|kept nodes, at most 2 shrinks per start|fcfs|rdmr|-P shrink_jobs=2
multi|kept nodes, any number of shrinks per start (\`rdmr\`)|fcfs|rdmr|
multimin|\`rdmr\` and shrinks down to the minimum|fcfs|rdmr|-P shrink_floor=min
easy|fixed jobs backfilled (EASY, exact estimates)|easy|dmr|
easy16|EASY and requests capped at 16 nodes|easy|dmr|--max-size 16
ours|ours, \`$OURS\`|fcfs|$OURS|"
while IFS='|' read -r id _ fp mp opts; do
  # shellcheck disable=SC2086 # opts holds several options
  gaprow "$id" "$fp" "$mp" $opts 2>/dev/null
done <<<"$GAP_ROWS"

echo "reproduce-dmrlib: waits per kind" >&2
# Per-job CSVs of fixed FCFS, and of the best policy on the all-malleable
# and the half-malleable workloads: average wait per application and kind.
waits() { # LABEL KIND POLICY [options]
  local label=$1 kind=$2 pol=$3
  shift 3
  "$sim" --generate 1000 --kind "$kind" --seed $SEED --interarrival $IA -n $NODES --max-size 32 \
    -p "$pol" -o "$work" --name "wait-$label" -q "$@" 2>/dev/null
}
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
big=1000
fixed_c=$(get fixed $big completion)
fixed_m=$(get fixed $big makespan)
rigid=$(ratio "$fixed_c" "$(get malleable $big completion)")
mold=$(ratio "$(get moldable $big completion)" "$(get flexible $big completion)")
fe=$(ratio "$(get flexible $big energy)" "$(get fixed $big energy)")
# The best candidate: highest average completion-time speed-up (the
# paper's Fig. 4 metric) on the rigid-submitted malleable workload.
best="" best_c=""
for lp in $RIGID_POLICIES; do
  l=${lp%%:*} c=$(get "malleable-${lp%%:*}" $big completion)
  if [ -z "$best_c" ] || awk -v a="$c" -v b="$best_c" 'BEGIN { exit !(a < b) }'; then
    best=$l best_c=$c
  fi
done
best_m=$(get "malleable-$best" $big makespan)
best_vs=$(ratio "$(get malleable $big makespan)" "$best_m")
best_rigid=$(ratio "$fixed_c" "$best_c")
ours_mold=$(ratio "$(get moldable $big completion)" "$(get flexible-ours $big completion)")
ours_fe=$(ratio "$(get flexible-ours $big energy)" "$(get flexible $big energy)")
share() { pct "$(get "$1" $big makespan)" "$fixed_m"; }
alloc() { awk -v a="$(get "$1" $big alloc)" 'BEGIN { printf "%.2f", 100 * a }'; }
nsj() { awk -v a="$(get "$1" 1000 alloc)" -v m="$(get "$1" 1000 makespan)" \
  'BEGIN { printf "%d", a * 128 * m / 1000 }'; }

# Gap table: rigid speed-up over the row's fixed workload, energy against
# it, Table 7 rows in % of its time, its allocation.
gapcell() { # ID WHAT
  local f="gap-$1-fixed"
  case $2 in
    speedup) ratio "$(get "$f" $big completion)" "$(get "gap-$1-all" $big completion)" ;;
    energy) pct "$(get "gap-$1-all" $big energy)" "$(get "$f" $big energy)" ;;
    all|0.75|nbody) pct "$(get "gap-$1-$2" $big makespan)" "$(get "$f" $big makespan)" ;;
    alloc) awk -v a="$(get "$f" $big alloc)" 'BEGIN { printf "%.2f", 100 * a }' ;;
  esac
}
gap_table() {
  echo "| assumption changed (one at a time) | rigid completion speed-up | energy, malleable rigid vs fixed | Table 7: 75 % malleable | only N-body | all malleable | fixed allocation |"
  echo "|---|---|---|---|---|---|---|"
  echo "| **paper 000** | **about 3.25** | **about 30 %** | **53.77 %** | **56.39 %** | **36.12 %** | **96.37 %** |"
  while IFS='|' read -r id what _; do
    echo "| $what | $(gapcell "$id" speedup) | $(gapcell "$id" energy) % | $(gapcell "$id" 0.75) % | $(gapcell "$id" nbody) % | $(gapcell "$id" all) % | $(gapcell "$id" alloc) % |"
  done <<<"$GAP_ROWS"
}

# Average wait per application and per kind, from a run's per-job CSV.
waits "fixed" fixed fcfs
waits "best" malleable "$best"
waits "mixed" malleable "$best" --malleable-share 0.5
waits "mixed-dmr" malleable "$ALG2" --malleable-share 0.5
avgwait() { # LABEL FIELD(2 app | 3 kind) VALUE
  awk -F, -v f="$2" -v v="$3" 'NR > 1 && $4 == "completed" && $f == v { s += $8; n++ }
    END { printf "%.0f", n ? s / n : 0 }' "$work/wait-$1-jobs.csv"
}
APPS="cg jacobi nbody hpg-aligner"
waits_line="RESULT waits_s policy=$best"
worst_ratio=0
for a in $APPS; do
  f=$(avgwait fixed 2 "$a") b=$(avgwait best 2 "$a") m=$(avgwait mixed 2 "$a")
  waits_line="$waits_line $a=$b/$f mixed_$a=$m/$f"
  worst_ratio=$(awk -v w="$worst_ratio" -v b="$b" -v m="$m" -v f="$f" \
    'BEGIN { r = b / f; if (m / f > r) r = m / f; printf "%.3f", (r > w ? r : w) }')
done
fk=$(avgwait fixed 3 fixed)
waits_line="$waits_line mixed_fixed=$(avgwait mixed 3 fixed)/$fk mixed_malleable=$(avgwait mixed 3 malleable)/$fk worst_wait_vs_fixed_fcfs=$worst_ratio"
wait_table() {
  echo "| application | fixed FCFS | \`$best\`, all malleable | \`$best\`, half malleable | \`$ALG2\`, half malleable |"
  echo "|---|---|---|---|---|"
  for a in $APPS; do
    echo "| $a | $(avgwait fixed 2 "$a") | $(avgwait best 2 "$a") | $(avgwait mixed 2 "$a") | $(avgwait mixed-dmr 2 "$a") |"
  done
  echo "| fixed jobs | $fk | - | $(avgwait mixed 3 fixed) | $(avgwait mixed-dmr 3 fixed) |"
  echo "| malleable jobs | - | $(avgwait best 3 malleable) | $(avgwait mixed 3 malleable) | $(avgwait mixed-dmr 3 malleable) |"
}

notes() {
  cat <<MD

## Why the numbers differ: the open assumptions, measured

Paper 000 leaves open how fast jobs arrive (the Feitelson model "with a
factor of 1"), how Slurm carried out Algorithm 2 (which free nodes an
expansion may take, how many jobs one start may shrink), and how the
fixed workload was scheduled (sched/backfill, "without defining a wall
time request"). Each row below changes one of these from the settings
above (1,000 jobs, seed $SEED) and reruns the fixed workload (its own
row's policy) and the all-, 75 %- and N-body-only-malleable rigid
workloads; speed-up, energy and Table 7 are against that row's fixed
workload.

$(gap_table)

What moves what:

- **Rigid completion speed-up: the arrival rate and the reading of
  Algorithm 2.** With arrivals every 2 s both workloads hold a queue of
  hundreds of jobs, and the average completion time is about half the
  workload time for both, so the speed-up is about the ratio of workload
  times ($(gapcell base speedup)). The fixed workload needs the cluster
  for about $(awk -v m="$fixed_m" 'BEGIN { printf "%.0f", m / 1000 }') s per job, the malleable one for less: for
  arrival gaps in between, the fixed queue keeps growing while the
  malleable one stays short, and the speed-up is
  $(gapcell ia17 speedup) at 17 s and $(gapcell ia20 speedup) at 20 s;
  it falls back to $(gapcell ia40 speedup) at 40 s, where neither queue
  grows. Any value can be had by picking the rate, the paper's 3.25
  included. The reading of Algorithm 2 moves it as much at
  the stressed rate: keeping free nodes for the waiting head
  ($(gapcell slurm speedup)), letting several jobs shrink for one start
  ($(gapcell multi1 speedup), $(gapcell multi2 speedup),
  $(gapcell multi speedup) for at most 1, 2 or any number), and
  shrinking below the preferred size ($(gapcell multimin speedup)).
  Inhibitor periods ($(gapcell inh0 speedup) to $(gapcell inh60 speedup))
  and reconfiguration costs ($(gapcell free speedup) to
  $(gapcell x10 speedup)) hardly matter: a reconfiguration costs about
  a second against jobs of minutes.
- **Energy and Table 7: only the reading of Algorithm 2.** They follow
  the node-seconds a job uses. With one shrink per start and expansions
  into any free node, jobs spend most of their time near 32 nodes
  ($(gapcell base energy) % of the fixed energy, $(gapcell base all) % of
  its time); no arrival rate, inhibitor or cost brings that below
  $(gapcell ia20 all) %. Several shrinks per start with the nodes kept for
  the waiting job give $(gapcell multi energy) % and $(gapcell multi all) %
  (paper: about 30 % and 36.12 %), and the 75 % row
  $(gapcell multi 0.75) % against the paper's 53.77 %: the reading of
  Algorithm 2 closest to all of the paper's numbers at once is
  \`rdmr\`'s. Shrinking below the preferred size goes further
  ($(gapcell multimin energy) %, $(gapcell multimin all) %).
- **Fixed allocation: job sizes and backfilling.** 32-node requests on
  128 nodes leave holes that FCFS cannot fill ($(gapcell base alloc) %);
  EASY backfilling gives $(gapcell easy alloc) %, requests of at most 16
  nodes $(gapcell cap16 alloc) %, both $(gapcell easy16 alloc) % (paper
  96.37 %). The arrival rate does not move it
  ($(gapcell ia10 alloc) %-$(gapcell ia20 alloc) % while saturated).

The named variant \`dmr-slurm\` is Algorithm 2 as Slurm's priority
scheduler would carry it out (an expansion is a queued request, so it
waits behind the jobs already waiting; line 6 then counts the nodes kept
that way): closer to the paper than the literal \`dmr\` on every number
of the table. \`rdmr\` adds several shrinks per start and comes closest.

The arithmetic behind every workload time is: time = jobs x node-seconds
per job / (128 x allocation rate). For 1,000 jobs:

| kind, policy | node-seconds per job | allocation | workload time (s) |
|---|---|---|---|
| fixed, FCFS | $(nsj fixed) | $(alloc fixed) % | $(get fixed 1000 makespan) |
| fixed, EASY | $(nsj fixed-easy) | $(alloc fixed-easy) % | $(get fixed-easy 1000 makespan) |
| malleable (rigid), Algorithm 2 | $(nsj malleable) | $(alloc malleable) % | $(get malleable 1000 makespan) |
| malleable (rigid), \`dmr-slurm\` | $(nsj malleable-dmr-slurm) | $(alloc malleable-dmr-slurm) % | $(get malleable-dmr-slurm 1000 makespan) |
| malleable (rigid), \`rdmr\` | $(nsj malleable-rdmr) | $(alloc malleable-rdmr) % | $(get malleable-rdmr 1000 makespan) |
| malleable (rigid), \`$best\` | $(nsj malleable-$best) | $(alloc malleable-$best) % | $(get malleable-$best 1000 makespan) |
| pure moldable | $(nsj moldable) | $(alloc moldable) % | $(get moldable 1000 makespan) |
| flexible, Algorithm 2 | $(nsj flexible) | $(alloc flexible) % | $(get flexible 1000 makespan) |
| flexible, \`$OURS\` | $(nsj flexible-ours) | $(alloc flexible-ours) % | $(get flexible-ours 1000 makespan) |

- **Flexible agrees** ($(share flexible) % of the fixed time against
  25.15 %; energy $(pct "$(get flexible 1000 energy)" "$(get fixed 1000 energy)") % against about 20 %): jobs start small and
  Algorithm 2 keeps them near the preferred size.
- **Pure moldable gains less** ($(share moldable) % against about 36 %): our
  moldable start gives a job every free node up to 32, and free nodes appear
  mostly when a 32-node job ends, so pure moldable jobs start large.
- **Absolute times are a calibration**: paper 000 gives the gain differences
  (Fig. 3) and limits (Table 5), not the execution times; docs/sim.md derives
  the curves and the one-node times.

## Ours: \`$OURS\`

\`$best\` (docs/policy.md) serves the waiting queue with several shrinks,
least efficient job first, above the preferred size first and down to the
minimum only for what is still missing, keeps free nodes for the waiting
jobs, and grows a job beyond its preferred size only where its MPI time
says it scales. On the paper's setting (1,000 jobs, arrivals every 2 s):

| | fixed FCFS | Algorithm 2 | \`$best\` | paper |
|---|---|---|---|---|
| rigid submission: average completion (s) | $fixed_c | $(get malleable $big completion) | $best_c | |
| rigid completion speed-up over fixed | 1 | $rigid | **$best_rigid** | about 3.25 |
| rigid: workload time, % of fixed | 100 % | $(share malleable) % | $(share malleable-$best) % | 36.12 % |
| rigid: energy, % of fixed | 100 % | $(pct "$(get malleable $big energy)" "$(get fixed $big energy)") % | $(pct "$(get malleable-$best $big energy)" "$(get fixed $big energy)") % | about 30 % |
| moldable submission: completion speed-up over pure moldable | | $mold | $ours_mold | about 1.5 |
| moldable submission: energy (kWh) | | $(get flexible $big energy) | $(get flexible-ours $big energy) | |

Average wait (s) per application and kind: no kind waits longer than
under fixed FCFS (worst ratio $worst_ratio); Algorithm 2 on the
half-malleable workload does make some wait longer than fixed FCFS:

$(wait_table)

Table 7's rigid rows with each policy (% of the fixed workload's time):

| workload | Algorithm 2 | \`rdmr\` | \`$OURS\` | paper |
|---|---|---|---|---|
| 0.25 malleable | $(share rigid-0.25) % | $(share rigid-rdmr-0.25) % | $(share rigid-ours-0.25) % | |
| 0.5 malleable | $(share rigid-0.5) % | $(share rigid-rdmr-0.5) % | $(share rigid-ours-0.5) % | |
| 0.75 malleable | $(share rigid-0.75) % | $(share rigid-rdmr-0.75) % | $(share rigid-ours-0.75) % | 53.77 % |
| only cg malleable | $(share rigid-only-cg) % | $(share rigid-rdmr-only-cg) % | $(share rigid-ours-only-cg) % | |
| only jacobi malleable | $(share rigid-only-jacobi) % | $(share rigid-rdmr-only-jacobi) % | $(share rigid-ours-only-jacobi) % | |
| only nbody malleable | $(share rigid-only-nbody) % | $(share rigid-rdmr-only-nbody) % | $(share rigid-ours-only-nbody) % | 56.39 % |
| only hpg-aligner malleable | $(share rigid-only-hpg-aligner) % | $(share rigid-rdmr-only-hpg-aligner) % | $(share rigid-ours-only-hpg-aligner) % | |
| all malleable | $(share malleable) % | $(share malleable-rdmr) % | $(share malleable-$best) % | 36.12 % |

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
otherwise; \`dmr-slurm\` and \`rdmr\` are readings of it (docs/policy.md),
\`$OURS\` is ours; the same generated arrivals and applications for every
kind and policy. Energy: idle 100 W, loaded 340 W.

## Headline numbers (1,000 jobs)

| metric | paper 000 | morph-sim |
|---|---|---|
| completion-time speed-up, rigid submission (malleable over fixed), Algorithm 2 | about 3.25 | $rigid |
| the same with \`dmr-slurm\` / \`rdmr\` (readings of Algorithm 2) | about 3.25 | $(ratio "$fixed_c" "$(get malleable-dmr-slurm $big completion)") / $(ratio "$fixed_c" "$(get malleable-rdmr $big completion)") |
| the same with \`$best\` (ours, the best here) | about 3.25 | **$best_rigid** |
| completion-time speed-up, moldable submission (flexible over pure moldable), Algorithm 2 / ours | about 1.5 | $mold / $ours_mold |
| workload time, malleable rigid, % of fixed (Table 7 "All"), Algorithm 2 / \`rdmr\` / ours | 36.12 % | $(share malleable) % / $(share malleable-rdmr) % / $(share malleable-$best) % |
| workload time, flexible, % of fixed (Table 7) | 25.15 % | $(share flexible) % |
| workload time, pure moldable, % of fixed (Fig. 8a: close to malleable rigid) | about 36 % | $(share moldable) % |
| energy, malleable rigid, vs fixed (Fig. 10), Algorithm 2 / \`rdmr\` / ours | about 30 % | $(pct "$(get malleable $big energy)" "$(get fixed $big energy)") % / $(pct "$(get malleable-rdmr $big energy)" "$(get fixed $big energy)") % / $(pct "$(get malleable-$best $big energy)" "$(get fixed $big energy)") % |
| energy, pure moldable, vs fixed | 40-50 % | $(pct "$(get moldable $big energy)" "$(get fixed $big energy)") % |
| energy, flexible, vs fixed, Algorithm 2 / ours | about 20 % | $(pct "$(get flexible $big energy)" "$(get fixed $big energy)") % / $(pct "$(get flexible-ours $big energy)" "$(get fixed $big energy)") % |
| allocation rate, fixed (Table 7) | 96.37 % | $(alloc fixed) % (EASY: $(alloc fixed-easy) %; EASY with 16-node requests: $(gapcell easy16 alloc) %) |

The section "Why the numbers differ" measures which open assumptions move
each of these.

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

## Policies side by side

Workload time in seconds (lower is better), same workloads. Rigid
submission (every job asks for its maximum):

| jobs | fixed, FCFS | fixed, EASY | malleable, Algorithm 2 (\`dmr\`) | \`dmr+easy\` | \`dmr-slurm\` | \`rdmr\` | \`rdmr+easy\` | \`$OURS\` | best vs Algorithm 2 |
|---|---|---|---|---|---|---|---|---|---|
MD
  for n in $sizes; do
    echo "| $n | $(get fixed $n makespan) | $(get fixed-easy $n makespan) | $(get malleable $n makespan) | $(get malleable-dmr+easy $n makespan) | $(get malleable-dmr-slurm $n makespan) | $(get malleable-rdmr $n makespan) | $(get malleable-rdmr+easy $n makespan) | $(get malleable-$OURS $n makespan) | $(ratio "$(get malleable $n makespan)" "$(get malleable-$best $n makespan)") x |"
  done
  cat <<MD

Average completion-time speed-up over fixed (FCFS; Fig. 4's rigid line;
paper about 3.25):

| jobs | Algorithm 2 | \`dmr-slurm\` | \`rdmr\` | \`rdmr+easy\` | \`$OURS\` | fixed EASY |
|---|---|---|---|---|---|---|
MD
  for n in $sizes; do
    fc=$(get fixed $n completion)
    echo "| $n | $(ratio "$fc" "$(get malleable $n completion)") | $(ratio "$fc" "$(get malleable-dmr-slurm $n completion)") | $(ratio "$fc" "$(get malleable-rdmr $n completion)") | $(ratio "$fc" "$(get malleable-rdmr+easy $n completion)") | $(ratio "$fc" "$(get malleable-$OURS $n completion)") | $(ratio "$fc" "$(get fixed-easy $n completion)") |"
  done
  cat <<MD

Moldable submission:

| jobs | pure moldable | flexible, Algorithm 2 | flexible, \`dmr+easy -P sizes=any\` | flexible, \`$TUNED\` | flexible, \`$OURS\` |
|---|---|---|---|---|---|
MD
  for n in $sizes; do
    echo "| $n | $(get moldable $n makespan) | $(get flexible $n makespan) | $(get flexible-dmr-any $n makespan) | $(get flexible-tuned $n makespan) | $(get flexible-ours $n makespan) |"
  done
  notes
} >"$doc"
echo "RESULT rigid_completion_speedup=$rigid moldable_completion_speedup=$mold flexible_energy_vs_fixed=$fe best_policy=$best best_vs_dmr_completion=$best_vs best_rigid_completion_speedup=$best_rigid best_moldable_completion_speedup=$ours_mold best_flexible_energy_vs_dmr=$ours_fe stepping_cpu_hours=$(t54v malleable cpuh)"
echo "$waits_line"
