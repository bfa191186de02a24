#!/usr/bin/env bash
# morph on Slurm, measured for real on the emulated cluster (docs/slurm.md).
#
#   bench/slurm.sh [--runs R] [--mix bursts|saturated] [--jobs J] [--no-workload]
#                  [--out DIR] [--name NAME]
#   bench/slurm.sh --runs 0              # the mixed workload only
#
# Its own Slurm instance (scripts/slurm.sh --name NAME, default bench-slurm-<pid>, 4
# nodes of 2 CPUs), taken down on every way out, and morphd --backend slurm.
#
# 1. Resizes, R runs (default 5): a Jacobi job submitted with morph submit
#    --slurm at 1 node (2 processes, limits 2-4) grows at once to 2 nodes;
#    then a foreign `sbatch -N3 --exclusive` job comes and morphd shrinks
#    it back to 1 node (the foreign job is cancelled once the morph job
#    ended). From morphd's log:
#      slurm_grow_s        morph's whole grow: Slurm's part plus the job's
#                          live resize, per run (the wait for the job's next
#                          point between them, under one iteration, left out)
#      slurm_grow_slurm_s  expander asked -> merged into the job (Slurm's part)
#      slurm_grow_live_s   the job's live resize 2 -> 4 (spawn, data, commit)
#      slurm_shrink_s      decision -> leavers gone (ACK)
#      node_release_s      the Slurm job update naming the nodes to keep
#    each as the median of the R runs with min and max. After each run, on
#    the same nodes, the bare Slurm steps of a grow by 1 node (expander
#    salloc --no-shell --dependency=expand:J, then NumNodes=0 on it), timed
#    on the head in one shell (slurm_grow_raw_s); slurm_grow_vs_raw is
#    slurm_grow_s / slurm_grow_raw_s (medians). Both grows start at least
#    35 s after the last job on node2 ended: slurmctld 22.05 keeps a node
#    that a job was shrunk off out of reach of --exclusive jobs after the
#    next job there ends, until it next pings the node (docs/slurm.md,
#    "A node shrunk off"); measured inside that window, the bare grow
#    waited 20-23 s for the backfill scheduler.
# 2. A mixed workload (unless --no-workload): J jobs, morph jobs (Jacobi
#    at 1 node) and foreign rigid `sbatch -N2 --exclusive` jobs (sleep 40),
#    on the schedule of --mix (see schedule() below):
#      bursts (default, J=29: 22 morph + 7 foreign)  every 70 s a long
#        morph job, then two short ones and a foreign job 35-41 s later;
#        the machine is busy in bursts and partly idle in between, the
#        load under which paper 000's malleable workloads gained;
#      saturated (J=25: 20 morph + 5 foreign)  a job every 3 s, every
#        fifth foreign: the queue is never empty from the 4th job on and
#        flexible cannot win (docs/slurm.md, runs of 27 Nov).
#    Run twice, side by side, each on its own instance of 4 nodes
#    (NAME-fix, NAME-fle) with its own morphd, so that both see the same
#    machine load (one after the other, the load of a shared machine
#    drifted between them by more than what they compare: docs/slurm.md):
#      fixed     morph jobs with --min = --max = 2 processes (1 node)
#      flexible  morph jobs with --min 2 --max 8 (1-4 nodes)
#    Both with Open MPI's mpi_yield_when_idle (below, in side).
#    Jacobi with --work-ms (per iteration W/P ms on P processes: strong
#    scaling) so that a grown job finishes sooner. morph report makes the
#    CSV and plots of morphd's journal (DIR/report/<kind>-*, in nodes);
#    sacct gives every job's wait, run and nodes (DIR/<kind>-sacct.txt);
#    morphd's log and sacct the grows decided while a foreign job pended.
#    The same schedule runs in `morph sim` too (DIR/sim, sim_metrics
#    below): its prediction is printed beside the real numbers.
#
# Ends with
#   RESULT slurm_nodes=4 slurm_grow_s=.. slurm_grow_min=.. slurm_grow_max=..
#          slurm_grow_slurm_s=.. slurm_grow_raw_s=.. slurm_grow_vs_raw=..
#          slurm_shrink_s=.. node_release_s=.. (min/max)
#          slurm_flexible_vs_fixed_completion=<makespan fixed / flexible>
#          slurm_foreign_wait_ratio=<foreign jobs' mean wait flexible / fixed>
#          slurm_utilization_fixed=.. slurm_utilization_flexible=.. runs=R jobs=J
#          mix=M sim_flexible_vs_fixed_completion=.. sim_foreign_wait_ratio=..
set -euo pipefail
. "$(dirname "$0")/lib.sh"
bench_init bench/slurm.sh
runs=5 jobs= mix=bursts no_workload=0 out= name=bench-slurm-$$
bench_parse "runs:,jobs:,mix:,no-workload,out:,name:" \
  "[--runs R] [--mix bursts|saturated] [--jobs J] [--no-workload] [--out DIR] [--name NAME]" "$@"
case $mix in
  bursts) njobs=${jobs:-29} ;;
  saturated) njobs=${jobs:-25} ;;
  *) echo "bench/slurm.sh: --mix bursts or saturated, not '$mix'" >&2; exit 2 ;;
esac
[ "$(id -u)" = 0 ] || { echo "bench/slurm.sh needs root (an emulated cluster)" >&2; exit 2; }
case $build in /tmp/*) echo "bench/slurm.sh: the build tree is under /tmp, private on each emulated host" >&2; exit 2 ;; esac
[ -x "$bin/jacobi.ompi" ] || { echo "bench/slurm.sh: no $bin/jacobi.ompi: build first" >&2; exit 2; }
N=4
SL="bash $root/scripts/slurm.sh --name $name"
out=${out:-$build/bench-slurm-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$out"

mdpid= mdwrap= sides=()
stop_morphd() {
  [ -n "$mdpid" ] || return 0
  kill "$mdpid" 2>/dev/null || true
  wait "$mdwrap" 2>/dev/null || true
  mdpid=
}
# The workload's two sides end with their own instance (their EXIT trap).
stop_sides() {
  [ ${#sides[@]} -eq 0 ] || { kill "${sides[@]}" 2>/dev/null; wait "${sides[@]}" 2>/dev/null; }
  sides=()
}
up=0
trap 'stop_sides; stop_morphd; [ $up = 0 ] || timeout 180 $SL down >/dev/null 2>&1 || echo "bench/slurm.sh: $name not down" >&2' EXIT
trap 'exit 130' INT TERM

s() { timeout 120 $SL exec "$@"; }
# instance_up: the instance of $SL with N nodes, its variables, morphd's address.
instance_up() {
  up=1
  timeout 300 $SL up $N > "$out/up-${SL##* }.log"
  eval "$($SL env)"
  addr=$MORPH_CLUSTER_HEAD:$((20000 + RANDOM % 20000))
}

start_morphd() { # DIR
  mkdir -p "$1"
  timeout 7200 $SL exec "$bin/morph-daemon" --backend slurm --dir "$1" --socket "$addr" \
    --interval 1 -v > "$1/morphd.log" 2>&1 &
  mdwrap=$!
  for _ in $(seq 100); do
    mdpid=$(s "$bin/morph" status --socket "$addr" --json 2>/dev/null |
      sed -n 's/^ *"pid": \([0-9]*\),*$/\1/p') && [ -n "$mdpid" ] && return 0
    sleep 0.3
  done
  echo "morphd did not start: $(cat "$1/morphd.log")" >&2
  exit 1
}

gone() { [ -z "$(s squeue -h -j "$1" -o %T 2>/dev/null)" ]; }
count_of() { s squeue -h -j "$1" -o %D 2>/dev/null; }
# sinfo -t idle matches IDLE+COMPLETING too: none may be completing.
idle() { [ "$(s sinfo -h -N -t idle -o %N | sort -u | wc -l)" -eq $N ] && [ -z "$(s sinfo -h -N -t completing -o %N)" ]; }
until_true() { # SECONDS CMD...
  local t=$1; shift
  for ((i = 0; i < t * 2; i++)); do "$@" && return 0; sleep 0.5; done
  return 1
}

# morph_job NAME MIN MAX ITERS: prints Slurm's job id.
morph_job() {
  s "$bin/morph" submit --slurm --server "$addr" --ppn 2 -n 2 --min "$2" --max "$3" --pref 2 \
    -J "$1" -o "$md/$1.out" -q "$bin/jacobi.ompi" --iters "$4" --work-ms 400 --serial-ms 5
}

# raw_grow: seconds of the bare Slurm steps of a grow by one node (no
# morph): a job on node1, an expander for node2 merged into it, timed on the
# head in one shell so that slurm.sh's own start-up is not counted.
raw_grow() {
  local j
  j=$(s sbatch --parsable -N1 -w node1 --exclusive -o /dev/null --wrap 'sleep 600')
  until_true 60 eval '[ "$(s squeue -h -j "$j" -o %T)" = RUNNING ]' || { s scancel "$j"; return 1; }
  # raw-grow-steps.txt: total, salloc, update (seconds) of each run.
  s bash -c 't0=$(date +%s.%N)
    e=$(salloc --no-shell -N1 -w node2 --exclusive --dependency=expand:'"$j"' 2>&1 |
      sed -n "s/.*Granted job allocation \([0-9]*\).*/\1/p")
    t1=$(date +%s.%N)
    [ -n "$e" ] && scontrol update JobId=$e NumNodes=0 || exit 1
    t2=$(date +%s.%N)
    awk -v a=$t0 -v b=$t1 -v c=$t2 "BEGIN { printf \"%.3f %.3f %.3f\n\", c - a, b - a, c - b }"' \
    >> "$out/raw-grow-steps.txt" || echo "raw grow failed" >&2
  cut -d' ' -f1 "$out/raw-grow-steps.txt" > "$out/raw-grow.txt"
  s scancel "$j"
  until_true 60 gone "$j" || true
  until_true 60 idle || true
  settle
}

# settle: past slurmctld's next ping of every node (every 10 s, by halves:
# up to 30 s apart), which gives back to --exclusive jobs a node that a
# shrunk job left (docs/slurm.md, "A node shrunk off").
settle() { sleep 35; }

# --- 1. resizes --------------------------------------------------------------
# --runs 0 leaves them out (the workload alone, ~15 min at load 40).
resizes() {
  md=$out/resize
  start_morphd "$md"
  for r in $(seq "$runs"); do
    j=$(morph_job "resize-$r" 2 4 150)
    until_true 120 eval '[ "$(count_of "$j")" = 2 ]' || { echo "run $r: job $j did not grow" >&2; exit 1; }
    until_true 60 grep -q "job $j: resize [0-9]* done, size 4" "$md/morphd.log" || true
    # The foreign job outlives the morph job: a second grow onto nodes a job
    # left crashes Open MPI 4.1's spawn (docs/slurm.md).
    f=$(s sbatch --parsable -N3 --exclusive -o /dev/null --wrap 'sleep 600')
    until_true 300 gone "$j" || { echo "run $r: job $j did not end" >&2; exit 1; }
    s scancel "$f"
    until_true 60 gone "$f" || true
    until_true 60 idle || true
    settle
    grep -q '^CHECK PASSED' "$md/resize-$r.out" || echo "run $r: job $j's check did not pass" >&2
    echo "resize run $r: job $j $(grep -c "job $j: resize .* done" "$md/morphd.log") resizes"
    raw_grow
  done
  stop_morphd
  log=$md/morphd.log
  bench_row_head "seconds ($runs runs, load $(cut -d' ' -f1 /proc/loadavg))"
  # Per run: Slurm's part (expander asked -> merged) plus the job's live
  # resize (morph run's report: spawn, data, commit); the wait for the
  # job's next point between them (at most one iteration) is not counted.
  grep 'merged, .* after it was asked for' "$log" | sed 's/.*merged, \([0-9.]*\) s after.*/\1/' \
    > "$out/grow-slurm.txt"
  grep -E 'resize [0-9]+ done, size 4: 2 -> 4 live in' "$log" |
    sed 's/.* live in \([0-9.]*\) s.*/\1/' > "$out/grow-live.txt"
  grow=$(paste "$out/grow-slurm.txt" "$out/grow-live.txt" | awk 'NF == 2 { print $1 + $2 }' | bench_stats)
  raw=$(bench_stats < "$out/raw-grow.txt")
  bench_row slurm_grow_s "grow 2 -> 4 (Slurm's part + live resize)" "$grow"
  bench_row slurm_grow_slurm_s "  Slurm's part (expander merged)" "$(bench_stats < "$out/grow-slurm.txt")"
  bench_row slurm_grow_live_s "  the job's live resize" "$(bench_stats < "$out/grow-live.txt")"
  bench_row slurm_grow_raw_s "bare Slurm grow (salloc + merge)" "$raw"
  bench_result+=" slurm_grow_vs_raw=$(bench_ratio "${grow%% *}" "${raw%% *}")"
  bench_row slurm_shrink_s "shrink 4 -> 2 (decision -> ACK)" "$(grep -E 'resize [0-9]+ done, size 2: 4 -> 2 live in' "$log" |
    sed 's/.* live in \([0-9.]*\) s.*/\1/' | bench_stats)"
  bench_row node_release_s "  Slurm update (nodes released)" "$(grep 'now on .*(update' "$log" |
    sed 's/.*(update \([0-9.]*\) s).*/\1/' | bench_stats)"
}

bench_result="RESULT slurm_nodes=$N"
if [ "$runs" -gt 0 ]; then
  instance_up
  resizes
  timeout 180 $SL down >/dev/null 2>&1 || echo "bench/slurm.sh: $name not down" >&2
  up=0
fi
result="$bench_result runs=$runs"

# --- 2. mixed workload -------------------------------------------------------
# schedule: the workload, one job a line: "SUBMIT_S morph ITERATIONS" or
# "SUBMIT_S foreign 0" (sbatch -N2 --exclusive, sleep 40).
#   bursts     periods of 70 s: a long morph job (300 iterations) at the
#              start, two short ones (100) 35 and 37 s in, a foreign job
#              41 s in; job 4k+1 of a last period is its long job alone.
#              The machine is busy in bursts and partly idle between
#              them (fixed: 76 % of the node-seconds, `morph sim`).
#   saturated  a job every 3 s, every fifth foreign, morph jobs 150
#              iterations: the queue is never empty from the 4th job on.
schedule() {
  local i k
  for ((i = 0; i < njobs; i++)); do
    if [ "$mix" = saturated ]; then
      if ((i % 5 == 4)); then echo "$((3 * i)) foreign 0"; else echo "$((3 * i)) morph 150"; fi
      continue
    fi
    k=$((70 * (i / 4)))
    case $((i % 4)) in
      0) echo "$k morph 300" ;;
      1) echo "$((k + 35)) morph 100" ;;
      2) echo "$((k + 37)) morph 100" ;;
      3) echo "$((k + 41)) foreign 0" ;;
    esac
  done
}

run_workload() { # KIND MAX
  local kind=$1 max=$2 ids=() i=0 at what iters t0
  md=$out/$kind
  start_morphd "$md"
  t0=$(date +%s.%N)
  while read -r at what iters; do
    sleep "$(awk -v t0="$t0" -v at="$at" -v now="$(date +%s.%N)" 'BEGIN { d = t0 + at - now; print (d > 0 ? d : 0) }')"
    if [ "$what" = foreign ]; then
      ids+=("$(s sbatch --parsable -N2 --exclusive -J "foreign-$i" -o /dev/null --wrap 'sleep 40')")
    else
      ids+=("$(morph_job "$kind-$i" 2 "$max" "$iters")")
    fi
    i=$((i + 1))
  done < <(schedule)
  for i in "${ids[@]}"; do until_true 1800 gone "$i" || { echo "$kind: job $i did not end" >&2; exit 1; }; done
  stop_morphd
  s sacct -n -X -P -j "$(IFS=,; echo "${ids[*]}")" -o JobID,JobName,State,Submit,Start,End,NNodes \
    > "$out/$kind-sacct.txt"
  s "$bin/morph" report -d "$md" -o "$out/report" --prefix "$kind" -q | sed 's/^/  /' || true
  echo "$kind: $(grep -l '^CHECK PASSED' "$md"/*.out | wc -l) morph jobs passed their check"
}

# From sacct (one line per size a job had; the first Submit/Start and the
# last End of a job count): makespan, mean wait of the foreign jobs, and
# node-seconds used over nodes x makespan.
sacct_metrics() { # KIND -> "makespan foreign_wait utilization"
  awk -F'|' -v n=$N '
    function t(s) { gsub(/[-T:]/, " ", s); return mktime(s) }
    { id = $1; sub(/\..*/, "", id)
      if (!(id in sub0)) { sub0[id] = t($4); st[id] = t($5); name[id] = $2 }
      en[id] = t($6); ns += (t($6) - t($5)) * $7 }
    END { first = 1e18; last = 0
      for (id in sub0) { if (sub0[id] < first) first = sub0[id]; if (en[id] > last) last = en[id]
        if (name[id] ~ /^foreign/) { fw += st[id] - sub0[id]; nf++ } }
      span = last - first
      printf "%d %.1f %.3f\n", span, (nf ? fw / nf : 0), (span > 0 ? ns / (n * span) : 0) }' "$out/$1-sacct.txt"
}

# Grows morphd decided while a foreign job was pending (sacct's submit to
# start): each one took nodes that job could have started on or made it
# wait behind an expander. Times of day (morphd's log has no date): a
# workload that runs over midnight miscounts.
grows_while_foreign() { # KIND
  awk -F'|' '
    function sec(s) { sub(/.*T/, "", s); split(s, a, ":"); return a[1] * 3600 + a[2] * 60 + a[3] }
    FNR == NR { if ($2 ~ /^foreign/ && $1 !~ /\./) { sub0[$1] = sec($4); st[$1] = sec($5) } next }
    / expand [0-9]+ -> [0-9]+ \(resize / { split($0, w, " "); t = sec(w[2])
      for (f in sub0) if (sub0[f] <= t && t < st[f]) { n++; break } }
    END { print n + 0 }' "$out/$1-sacct.txt" "$out/$1/morphd.log"
}

# overhead: the fixed morph jobs' mean seconds beyond their emulated work
# (0.205 s per iteration at 1 node: 400 ms / 2 processes + 5 ms serial):
# start-up, check and teardown on this machine at this load.
overhead() {
  schedule | awk -F'|' 'FNR == NR { split($0, w, " "); it[NR - 1] = w[3]; next }
    function t(s) { gsub(/[-T:]/, " ", s); return mktime(s) }
    $2 ~ /^fixed-/ && $1 !~ /\./ { i = substr($2, 7); o += t($6) - t($5) - 0.205 * it[i]; n++ }
    END { printf "%.1f\n", n ? (o / n > 0 ? o / n : 0) : 20 }' - "$out/fixed-sacct.txt"
}

# sim_metrics KIND OVERHEAD: the same workload in `morph sim` (same policy
# engine, rdmr+easy, 1 s interval, any size), in nodes: a morph job of I
# iterations takes OVERHEAD + 0.205 I s at 1 node (its emulated work
# divided among its nodes, the overhead not), a grow 2.7 s and a shrink
# 0.5 s (the medians measured above, docs/slurm.md); a foreign job 41 s
# on 2 nodes. Prints "makespan foreign_wait utilization" like
# sacct_metrics.
sim_metrics() {
  local kind=$1 oh=$2 f=$out/sim/$1.json
  mkdir -p "$out/sim"
  schedule | jq -R -s --arg kind "$kind" --argjson oh "$oh" '[split("\n")[] | select(length > 0) | split(" ")]
    | {format: "morph-workload", version: 1, nodes: 4, jobs: [to_entries[] | .key as $i | .value
      | (.[0] | tonumber) as $at | (.[2] | tonumber) as $it | ($oh + 0.205 * $it) as $t1
      | if .[1] == "foreign" then
          {name: "foreign-\($i)", submit: $at, kind: "fixed", app: "generic", request: 2,
           model: {type: "amdahl", t1: 41, serial: 1}}
        else
          {name: "\($kind)-\($i)", submit: $at, app: "jacobi", request: 1, min: 1, pref: 1,
           kind: (if $kind == "fixed" then "fixed" else "malleable" end),
           max: (if $kind == "fixed" then 1 else 4 end),
           model: {type: "amdahl", t1: $t1, serial: ($oh / $t1), iterations: $it, data_bytes: 0,
                   inhibit: 0}}
        end]}' > "$f"
  "$bin/morph" sim "$f" -n $N -p rdmr+easy -P sizes=any -i 1 --inhibit 0 --expand-cost 2.7 \
    --shrink-cost 0.5 -q -o "$out/sim" --name "$kind" >/dev/null
  awk -F, -v n=$N 'NR > 1 { if (NR == 2 || $5 < first) first = $5; if ($7 > last) last = $7; ns += $15
      if ($1 ~ /^foreign/) { fw += $8; nf++ } }
    END { span = last - first; printf "%d %.1f %.3f\n", span, (nf ? fw / nf : 0), ns / (n * span) }' \
    "$out/sim/$kind-jobs.csv"
}

# side KIND MAX, run in the background (a subshell: its variables and
# traps are its own): run_workload on an instance of its own (NAME-<3
# letters of KIND>), taken down on every way out.
side() {
  SL="bash $root/scripts/slurm.sh --name $name-${1:0:3}" up=0 mdpid= mdwrap= sides=()
  trap 'stop_morphd; [ $up = 0 ] || timeout 180 $SL down >/dev/null 2>&1 || echo "bench/slurm.sh: ${SL##* } not down" >&2' EXIT
  trap 'exit 130' INT TERM
  # The emulated nodes' CPUs are the machine's 2 cores: Open MPI processes
  # waiting in MPI spin and starve the others, so a grown job ran slower
  # (Jacobi, 40 iterations at load 60-80: 59 s at 6 processes, 15-19 s at
  # 2), unless they yield (8-9 s at 6). Real nodes have their own cores.
  export OMPI_MCA_mpi_yield_when_idle=1
  instance_up
  run_workload "$1" "$2"
}

if [ "$no_workload" = 0 ]; then
  side fixed 2 > "$out/fixed.log" 2>&1 &
  sides+=($!)
  side flexible 8 > "$out/flexible.log" 2>&1 &
  sides+=($!)
  ok=1
  for p in "${sides[@]}"; do wait "$p" || ok=0; done
  sides=()
  cat "$out/fixed.log" "$out/flexible.log"
  [ $ok = 1 ] || { echo "bench/slurm.sh: a workload failed (above)" >&2; exit 1; }
  read -r mfix wfix ufix < <(sacct_metrics fixed)
  read -r mflex wflex uflex < <(sacct_metrics flexible)
  printf "\n%-28s %10s %10s\n" "workload ($njobs jobs)" fixed flexible
  printf "%-28s %10s %10s\n" "makespan_s" "$mfix" "$mflex"
  printf "%-28s %10s %10s\n" "foreign mean wait_s" "$wfix" "$wflex"
  printf "%-28s %10s %10s\n" "node utilization" "$ufix" "$uflex"
  printf "%-28s %10s %10s\n" "grows, a foreign job pending" "$(grows_while_foreign fixed)" \
    "$(grows_while_foreign flexible)"
  for k in fixed flexible; do
    [ -f "$out/report/$k-summary.csv" ] && { echo "$k (morph report):"; sed 's/^/  /' "$out/report/$k-summary.csv"; }
  done
  oh=$(overhead)
  read -r sfix swfix sufix < <(sim_metrics fixed "$oh")
  read -r sflex swflex suflex < <(sim_metrics flexible "$oh")
  echo "morph sim: a morph job's overhead beyond its work ${oh} s (the fixed jobs' mean)"
  printf "%-28s %10s %10s\n" "morph sim: makespan_s" "$sfix" "$sflex"
  printf "%-28s %10s %10s\n" "morph sim: foreign wait_s" "$swfix" "$swflex"
  printf "%-28s %10s %10s\n" "morph sim: utilization" "$sufix" "$suflex"
  result+=" slurm_flexible_vs_fixed_completion=$(bench_ratio "$mfix" "$mflex")"
  result+=" slurm_foreign_wait_ratio=$(bench_ratio "$wflex" "$wfix")"
  result+=" slurm_utilization_fixed=$ufix slurm_utilization_flexible=$uflex jobs=$njobs mix=$mix"
  result+=" sim_flexible_vs_fixed_completion=$(bench_ratio "$sfix" "$sflex")"
  result+=" sim_foreign_wait_ratio=$(bench_ratio "$swflex" "$swfix")"
fi
echo "files: $out"
echo "$result"
bench_record slurm "$result"
