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
