#!/usr/bin/env bash
# Evaluation of the policy engine on workloads it was not designed on
# (docs/policy-evaluation.md, which this script writes with one page and
# one plot per workload): three real traces of the Parallel Workloads
# Archive replayed as recorded and compressed to loads 0.8-2.0, and
# Lublin-Feitelson traces with Tsafrir's user estimates at loads 0.5-2.0,
# 5 seeds each. Every trace runs "fixed" (every job rigid, as traced) and
# "flexible" (half the jobs, chosen per seed, moldable and malleable). The
# schedulers plan with the users' requested times (SWF field 9; the model's
# for a trace without them) and kill a job at its limit, like Slurm.
# Ends with
#   RESULT default_policy=... default_worst_bsld_vs_best=...
#     default_worst_makespan_vs_best=... default_worst_vs_easy_fixed=...
#     workloads=... traces=...
# (the default policy's mean bounded slowdown and makespan over the best
# flexible policy's, and the worse of both over EASY on the fixed jobs, on
# the workload where each is largest; targets <= 1.05, <= 1.02, < 1).
#
# The real traces are not in the repository (bench/traces/README.md says
# where they come from and their terms): put them, as the archive
# distributes them (.swf or .swf.gz), in bench/traces or in $MORPH_TRACES;
# a missing one is skipped with a message.
#
# Options: --quick (2 seeds, 2,000-job windows), --smoke (what CTest runs:
# one seed, one load, 300 jobs, two policies), --docs DIR (where the pages
# and plots go; default the tree's docs), --out DIR (keep the runs).
# MORPH_BUILD: a build folder with bin/morph-sim and bin/morph-workload.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
bench_init policies build-bench
quick= smoke= docs= out=
bench_parse "quick,smoke,docs:,out:" "[--quick] [--smoke] [--docs DIR] [--out DIR]" "$@"
bench_build morph-sim morph-workload
docs=${docs:-$root/docs}
traces=${MORPH_TRACES:-$root/bench/traces}
work=${out:-$(mktemp -d /tmp/morph-policies.XXXXXX)}
[ -n "$out" ] || trap 'rm -rf "$work"' EXIT
mkdir -p "$work" "$docs/img"

# The default of morph sim and of morphd's embedded backend (morph sim
# --help says which), and the policies it is compared with.
DEFAULT=$("$bin/morph-sim" --help | sed -n 's/.*--policy NAME (\([^)]*\)).*/\1/p')
POLICIES="fcfs easy dmr+easy dmr-slurm+easy rdmr+easy edmr edmr+easy mtct+easy granularity+easy"
case " $POLICIES " in *" $DEFAULT "*) ;; *) POLICIES="$POLICIES $DEFAULT" ;; esac
SEEDS="1 2 3 4 5" REAL_JOBS=10000 LUBLIN_JOBS=5000
REAL_LOADS="rec 0.8 1.2 1.6 2.0" LUBLIN_LOADS="0.5 0.85 1.2 2.0"
[ -n "$quick" ] && SEEDS="1 2" REAL_JOBS=2000 LUBLIN_JOBS=2000
if [ -n "$smoke" ]; then
  SEEDS=1 REAL_JOBS=300 LUBLIN_JOBS=300 REAL_LOADS=1.2 LUBLIN_LOADS=1.2
  POLICIES="easy $DEFAULT"
fi

# The real traces: name, file, units (nodes) and processors per unit, the
# estimates (requested: the trace's field 9; model:MAX: Tsafrir's model,
# MAX the largest), whether "as recorded" is a replay (NASA-iPSC's submit
# times are its start times: nothing waits as recorded, by construction).
REAL="kth-sp2 KTH-SP2-1996-2.1-cln.swf 100 1 requested rec
lanl-cm5 LANL-CM5-1994-4.1-cln.swf 32 32 requested rec
nasa-ipsc NASA-iPSC-1993-3.1-cln.swf 128 1 model:64800 norec"
SHAPES="ctc:430 kth:100"

# find_trace FILE: the trace (plain or gzipped) unpacked into the work
# folder; nothing when it is missing.
find_trace() {
  if [ -f "$traces/$1" ]; then echo "$traces/$1"
  elif [ -f "$traces/$1.gz" ]; then gzip -dc "$traces/$1.gz" >"$work/$1" && echo "$work/$1"
  fi
}

# One line per run to jobs.txt: workload load seed variant policy nodes
# estimates then morph-sim's input options.
jobs=$work/jobs.txt
: >"$jobs"
add_runs() { # WORKLOAD LOAD NODES ESTIMATES INPUT...
  local wl=$1 load=$2 n=$3 est=$4 seed p
  shift 4
  for seed in $SEEDS; do
    echo "$wl $load $seed fixed easy $n $est $* --kind fixed" >>"$jobs"
    [ -z "$smoke" ] && echo "$wl $load $seed fixed fcfs $n $est $* --kind fixed" >>"$jobs"
    for p in $POLICIES; do
      echo "$wl $load $seed flexible $p $n $est $* --kind flexible --malleable-share 0.5 --rest-fixed --seed $seed" >>"$jobs"
    done
  done
}
found=0
while read -r name file units upn est rec; do
  path=$(find_trace "$file")
  if [ -z "$path" ]; then
    echo "policies: $file not found in $traces (bench/traces/README.md: where to get it); $name skipped" >&2
    continue
  fi
  found=$((found + 1))
  opts="--swf $path --swf-units-per-node $upn --swf-limit $REAL_JOBS"
  [ "${est%%:*}" = model ] && opts="$opts --estimate-model ${est#model:}"
  for load in $REAL_LOADS; do
    [ "$load" = rec ] && [ "$rec" = norec ] && continue
    l=; [ "$load" = rec ] || l="--load $load"
    add_runs "$name" "$load" "$units" "${est%%:*}" $opts $l
  done
done <<<"$REAL"
for sh in $SHAPES; do
  for load in $LUBLIN_LOADS; do
    for seed in $SEEDS; do
      trace=$work/lublin-${sh%%:*}-$load-$seed.swf
      "$bin/morph-workload" lublin --shape "${sh%%:*}" --jobs "$LUBLIN_JOBS" --load "$load" \
        --seed "$seed" -o "$trace" 2>/dev/null
    done
    # Each seed its own trace: the run line names it through SEED.
    add_runs "lublin-${sh%%:*}" "$load" "${sh#*:}" tsafrir --swf "$work/lublin-${sh%%:*}-$load-SEED.swf"
  done
done

# run_one LINE: one simulation, one CSV line to stdout (workload, load,
# seed, variant, policy, estimates, then morph-sim's --csv columns).
run_one() {
  local wl load seed var pol n est line
  read -r wl load seed var pol n est rest <<<"$1"
  rest=${rest//SEED/$seed}
  # shellcheck disable=SC2086
  if ! line=$("$bin/morph-sim" $rest -n "$n" -p "$pol" -P sizes=any --csv 2>"$work/err.$wl.$load.$seed.$var.$pol"); then
    echo "policies: morph-sim failed on $wl load $load seed $seed $var $pol:" >&2
    cat "$work/err.$wl.$load.$seed.$var.$pol" >&2
    return 1
  fi
  rm -f "$work/err.$wl.$load.$seed.$var.$pol"
  echo "$wl,$load,$seed,$var,$pol,$est,$line"
}
export -f run_one
export bin work
echo "policies: $(wc -l <"$jobs") runs ($found real traces of 3, $(echo $SHAPES | wc -w) Lublin shapes, seeds $SEEDS); default policy $DEFAULT" >&2
t0=$(date +%s)
res=$work/runs.csv
tr '\n' '\0' <"$jobs" | xargs -0 -P "$(nproc)" -I{} bash -c 'run_one "$1"' _ {} >"$res"
[ "$(wc -l <"$res")" -eq "$(wc -l <"$jobs")" ] || { echo "policies: some runs failed" >&2; exit 1; }
elapsed=$(($(date +%s) - t0))
python3 "$root/bench/policies-report.py" --runs "$res" --docs "$docs" --default "$DEFAULT" \
  --traces "$found" --seconds "$elapsed" --work "$work" ${smoke:+--smoke} | tee "$work/report.out"
bench_record policies "$(grep '^RESULT' "$work/report.out")" "$res"
