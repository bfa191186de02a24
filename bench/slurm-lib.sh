# What bench/slurm.sh and bench/slurm-scale.sh share; sourced after lib.sh
# (bench_init), with SL set to "bash .../scripts/slurm.sh --name NAME":
#
#   s CMD...              a Slurm client command on the head, SLURM_CONF set, 120 s at most
#   until_true SECONDS CMD...  CMD every 0.5 s until it succeeds (1: it never did)
#   start_morphd DIR [ARGS...]  morphd --backend slurm on the head, on $addr, its log in
#                         DIR/morphd.log, DIR its own state folder (mode 700); sets mdpid
#   stop_morphd           SIGTERM to it, and waits for it

mdpid= mdwrap=

s() { timeout 120 $SL exec "$@"; }

until_true() { # SECONDS CMD...
  local t=$1 i
  shift
  for ((i = 0; i < t * 2; i++)); do "$@" && return 0; sleep 0.5; done
  return 1
}

start_morphd() { # DIR [ARGS...]
  local dir=$1
  shift
  mkdir -p "$dir"
  chmod 700 "$dir"
  timeout 7200 $SL exec "$bin/morph-daemon" --backend slurm --dir "$dir" --socket "$addr" \
    -v "$@" > "$dir/morphd.log" 2>&1 &
  mdwrap=$!
  for _ in $(seq 100); do
    mdpid=$(s "$bin/morph" status --socket "$addr" --json 2>/dev/null |
      sed -n 's/^ *"pid": \([0-9]*\),*$/\1/p') && [ -n "$mdpid" ] && return 0
    sleep 0.3
  done
  echo "morphd did not start: $(cat "$dir/morphd.log")" >&2
  exit 1
}

stop_morphd() {
  [ -n "$mdpid" ] || return 0
  kill "$mdpid" 2>/dev/null || true
  wait "$mdwrap" 2>/dev/null || true
  mdpid=
}
