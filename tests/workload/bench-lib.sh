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
[ "$fails" = 0 ] && echo "bench/lib.sh: all checks passed"
exit "$fails"
