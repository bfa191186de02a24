# The prologue the bench scripts share; sourced, not run:
#
#   . "$(dirname "$0")/lib.sh"        (bench/runtime/: "$(dirname "$0")/../lib.sh")
#   bench_init NAME [DEFAULT_BUILD]   root, build (MORPH_BUILD, else
#                                     DEFAULT_BUILD under the tree, else build),
#                                     bin; Open MPI may run as root
#   runs=5 out=                       defaults, then
#   bench_parse "runs:,out:,quick" "[--runs R] [--out DIR] [--quick]" "$@"
#                                     --name VALUE sets $name (- -> _),
#                                     a flag sets it to 1 (util-linux getopt)
#   bench_build TARGET...             builds the targets whose bin/TARGET is
#                                     missing (-j2: the machine is shared; a new
#                                     tree is configured Release)
#   ... | bench_stats                 "median min max" of numbers, one a line
#   bench_ratio A B                   A / B with 3 decimals (0 when B is 0)
#   bench_row_head TITLE; bench_row KEY LABEL "MEDIAN MIN MAX"
#                                     a table of medians (below) and the keys
#                                     of its RESULT line in $bench_result
#   bench_write_workload KIND FILE NJOBS GAP ROW...   a workload file (below)
#   bench_record NAME "$result" [CSV_FILE]
#                                     keeps the run's RESULT line(s) as data
#                                     in bench/results/NAME/ (below); called
#                                     where a script prints its RESULT line
#
# Recording. bench_record appends to bench/results/NAME/results.csv one row
# per key of the RESULT lines given (one run, however many lines):
#   date_utc,commit,host,nproc,load,key,value
# (commit: short hash, "-dirty" when the tree differs from it outside
# bench/results; load: /proc/loadavg's three averages; a bare word in a
# RESULT line, as in "RESULT calls init_s=1", prefixes the keys after it:
# calls.init_s). It then rewrites bench/results/NAME/latest.md, a table of
# that run, and copies CSV_FILE (the run's own data) to latest.csv. Nothing
# is written when MORPH_BENCH_NO_RECORD is set (the CTest cases that run a
# bench set it, and a bench that runs another whose keys its own RESULT
# line carries) or for a --quick or --smoke run ($quick or $smoke set and
# not 0, --ratios too): their figures are not the benchmark's. MORPH_BENCH_RESULTS moves
# bench/results elsewhere (the test of this file).

bench_init() { # NAME [DEFAULT_BUILD]
  bench_name=$1
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  build=${MORPH_BUILD:-$root/${2:-build}}
  bin=$build/bin
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
}

bench_parse() { # SPEC USAGE ARGS...
  local spec=$1 usage=$2 parsed opt
  shift 2
  parsed=$(getopt -n "$bench_name" -o '' --long "$spec" -- "$@") ||
    { echo "usage: $bench_name $usage" >&2; exit 2; }
  eval set -- "$parsed"
  while [ "$1" != -- ]; do
    opt=${1#--}
    if [[ ,$spec, == *,$opt:,* ]]; then
      printf -v "${opt//-/_}" %s "$2"
      shift 2
    else
      printf -v "${opt//-/_}" 1
      shift
    fi
  done
  shift
  [ $# -eq 0 ] || { echo "$bench_name: unexpected argument $1; usage: $bench_name $usage" >&2; exit 2; }
}

bench_build() { # TARGET...
  local t missing=()
  for t in "$@"; do [ -x "$bin/$t" ] || missing+=("$t"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "$bench_name: building ${missing[*]} in $build" >&2
  { [ -f "$build/CMakeCache.txt" ] || cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null; } &&
    cmake --build "$build" -j2 --target "${missing[@]}" >/dev/null ||
    { echo "$bench_name: the build failed" >&2; exit 1; }
}

bench_stats() {
  sort -g | awk '{ v[NR] = $1 } END { if (!NR) { print "- - -"; exit }
    m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
    printf "%.3f %.3f %.3f\n", m, v[1], v[NR] }'
}

bench_row_head() { printf "%-40s %8s %8s %8s\n" "$1" median min max; }

# bench_row KEY LABEL "MEDIAN MIN MAX": one line of the table, and
# " KEY=MEDIAN BASE_min=MIN BASE_max=MAX" added to bench_result (BASE: KEY
# without its unit _s).
bench_row() {
  local key=$1 m lo hi
  read -r m lo hi <<<"$3"
  printf "%-40s %8s %8s %8s\n" "$2" "$m" "$lo" "$hi"
  bench_result+=" $key=$m ${key%_s}_min=$lo ${key%_s}_max=$hi"
}

bench_ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }'; }

# bench_write_workload KIND FILE NJOBS GAP ROW...: a workload file of
# `morph workload run` (docs/workload.md): NJOBS jobs, one every GAP
# seconds, cycling through the rows "app|rigid request|min|pref|max|args".
# KIND fixed: rigid at the request; flexible: moldable from min to the
# request and malleable within [min, max] around pref.
bench_write_workload() {
  local kind=$1 file=$2 njobs=$3 gap=$4 sep= i app req min pref max args request a
  shift 4
  local rows=("$@")
  { echo "{\"name\": \"bench-$kind\", \"jobs\": ["
    for ((i = 0; i < njobs; i++)); do
      IFS='|' read -r app req min pref max args <<<"${rows[$((i % ${#rows[@]}))]}"
      request=$req
      [ "$kind" = flexible ] && request="\"$min-$req\""
      a=\"${args// /\", \"}\"
      echo "$sep {\"name\": \"$app-$i\", \"submit\": $((i * gap)), \"kind\": \"$kind\", \"app\": \"$app\","
      echo "   \"request\": $request, \"min\": $min, \"pref\": $pref, \"max\": $max, \"args\": [$a]}"
      sep=,
    done
    echo "]}"; } >"$file"
}

bench_record() { # NAME RESULT_LINES [CSV_FILE]
  [ -z "${MORPH_BENCH_NO_RECORD:-}" ] || return 0
  [[ "${quick:-0}${smoke:-0}" =~ ^0*$ ]] || return 0
  local top dir stamp
  top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  dir=${MORPH_BENCH_RESULTS:-$top/bench/results}/$1
  stamp=$(bench_stamp "$top")
  mkdir -p "$dir" || { echo "bench_record: cannot create $dir" >&2; return 1; }
  [ -s "$dir/results.csv" ] || echo "date_utc,commit,host,nproc,load,key,value" >"$dir/results.csv"
  bench_result_pairs "$2" | awk -F'\t' -v s="$stamp" '{ v = $2
    if (v ~ /[",]/) { gsub(/"/, "\"\"", v); v = "\"" v "\"" }
    print s "," $1 "," v }' >>"$dir/results.csv"
  [ -z "${3:-}" ] || cp "$3" "$dir/latest.csv"
  bench_latest_md "$1" "$stamp" "$2" "${3:+latest.csv}" >"$dir/latest.md"
}

# The columns before key,value: date, commit, host, cores, load averages.
bench_stamp() { # TOP
  local commit
  commit=$(git -C "$1" rev-parse --short HEAD 2>/dev/null || echo unknown)
  git -C "$1" diff --quiet HEAD -- . ':!bench/results' 2>/dev/null || commit+=-dirty
  printf "%s,%s,%s,%s,%s" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$commit" "$(hostname)" \
    "$(nproc)" "$(cut -d' ' -f1-3 /proc/loadavg)"
}

# "KEY<tab>VALUE" per key=value of the RESULT lines, a bare word prefixing the
# keys after it on its line.
bench_result_pairs() {
  awk -v OFS='\t' '/^RESULT/ { p = ""; for (i = 2; i <= NF; i++) {
      e = index($i, "=")
      if (e) print p substr($i, 1, e - 1), substr($i, e + 1); else p = $i "." } }' <<<"$1"
}

bench_latest_md() { # NAME STAMP RESULT_LINES [CSV]
  local date commit host nproc load
  IFS=, read -r date commit host nproc load <<<"$2"
  echo "# bench/results/$1: the latest run"
  echo
  echo "Written by bench_record (bench/lib.sh); every run is in results.csv."
  echo
  echo "Run $date, commit $commit, host $host ($nproc cores, load $load)."
  [ -z "${4:-}" ] || echo "The run's own data: [$4]($4)."
  echo
  echo "| key | value |"
  echo "|---|---|"
  bench_result_pairs "$3" | awk -F'\t' '{ v = $2; gsub(/\|/, "\\|", v); print "| " $1 " | " v " |" }'
}
