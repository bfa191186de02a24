#!/usr/bin/env bash
# bench/lib.sh, the bench scripts' shared prologue: options, statistics,
# ratios, and the workload files it writes, which `morph workload check`
# must accept. Usage: bench-lib.sh MORPH (the morph binary).
set -euo pipefail
morph=$1
. "$(dirname "$0")/../../bench/lib.sh"
bench_init test-bench-lib
fails=0
expect() { # WHAT GOT WANT
  [ "$2" = "$3" ] || { echo "FAIL $1: got '$2', want '$3'"; fails=$((fails + 1)); }
}

runs=5 out= quick=0 no_workload=0
bench_parse "runs:,out:,quick,no-workload" "[--runs R]" --runs 7 --quick --out "a b" --no-workload
expect "value" "$runs" 7
expect "value with a space" "$out" "a b"
expect "flag" "$quick" 1
expect "flag with a dash" "$no_workload" 1
rc=0
(bench_parse "runs:" "[--runs R]" --bogus) 2>/dev/null || rc=$?
expect "unknown option's status" "$rc" 2
rc=0
(bench_parse "runs:" "[--runs R]" stray) 2>/dev/null || rc=$?
expect "stray argument's status" "$rc" 2

expect "median of 5" "$(printf '5\n1\n4\n2\n3\n' | bench_stats)" "3.000 1.000 5.000"
expect "median of 4" "$(printf '0.5\n2\n1\n10\n' | bench_stats)" "1.500 0.500 10.000"
expect "no numbers" "$(bench_stats </dev/null)" "- - -"
bench_result="RESULT"
row=$(bench_row grow_s "grow" "1.5 1 2"; echo "$bench_result")
expect "row and keys" "$(echo $row)" "grow 1.5 1 2 RESULT grow_s=1.5 grow_min=1 grow_max=2"
bench_row ratio "ratio" "0.9 0.8 1.1" >/dev/null
expect "keys of a ratio" "$bench_result" "RESULT ratio=0.9 ratio_min=0.8 ratio_max=1.1"
expect "ratio" "$(bench_ratio 3 2)" "1.500"
expect "ratio over 0" "$(bench_ratio 3 0)" "0.000"

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
rows=("jacobi|4|2|4|4|--size 64 --iters 10" "cg|2|2|2|4|--size 32")
for kind in fixed flexible; do
  bench_write_workload "$kind" "$dir/$kind.json" 3 4 "${rows[@]}"
  "$morph" workload check "$dir/$kind.json" >"$dir/$kind.out" 2>&1 ||
    { echo "FAIL morph workload check $kind: $(cat "$dir/$kind.out")"; fails=$((fails + 1)); }
done
expect "jobs written" "$(grep -c '"name": "' "$dir/fixed.json")" 4 # the workload's and 3 jobs
expect "third job cycles back" "$(grep -c '"name": "jacobi-2", "submit": 8' "$dir/fixed.json")" 1
expect "fixed request" "$(grep -c '"request": 4,' "$dir/fixed.json")" 2
expect "flexible request" "$(grep -c '"request": "2-4",' "$dir/flexible.json")" 2

# bench_record: one row per key, a bare word prefixing keys, a value with a
# comma quoted, latest.md of the newest run only, and nothing written under
# MORPH_BENCH_NO_RECORD or for a --quick run.
export MORPH_BENCH_RESULTS=$dir/results
unset MORPH_BENCH_NO_RECORD
quick=0
echo "x,y" >"$dir/run.csv"
bench_record t "RESULT a_s=1.5 b=[1,2]" "$dir/run.csv"
bench_record t "RESULT a_s=2.5 flood=
RESULT calls init_s=0.1"
csv=$dir/results/t/results.csv
expect "csv header" "$(head -1 "$csv")" "date_utc,commit,host,nproc,load,key,value"
expect "rows, one per key" "$(tail -n +2 "$csv" | wc -l)" 5
expect "quoted value" "$(sed -n 3p "$csv" | cut -d, -f6-)" 'b,"[1,2]"'
expect "stamp columns" "$(sed -n 2p "$csv" | awk -F, '{ print NF }')" 7
expect "prefixed key" "$(tail -1 "$csv" | cut -d, -f6-)" "calls.init_s,0.1"
expect "empty value" "$(sed -n 5p "$csv" | cut -d, -f6-)" "flood,"
md=$dir/results/t/latest.md
expect "latest run's row" "$(grep -c '^| a_s | 2.5 |$' "$md")" 1
expect "older run not in latest" "$(grep -c '1.5\|^| b ' "$md")" 0
expect "run's own csv copied" "$(cat "$dir/results/t/latest.csv")" "x,y"
MORPH_BENCH_NO_RECORD=1 bench_record u "RESULT a=1"
quick=1 bench_record v "RESULT a=1"
expect "no record when asked or quick" "$(ls "$dir/results")" "t"
[ "$fails" = 0 ] && echo "bench/lib.sh: all checks passed"
exit "$fails"
