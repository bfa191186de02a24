# Host helpers shared by the cases of the emulated cluster
# (tests/cluster/cases.sh) and of Slurm on it (tests/slurm/cases.sh):
# `. hosts.sh` once CLUSTER_SH (scripts/cluster.sh) is set; the instance is
# $MORPH_CLUSTER. The callers define fail MESSAGE (prints and exits 1).
: "${CLUSTER_SH:?}"

# skip_if_build_in_tmp PATH CASE: exits 77 (skipped) when the build tree
# PATH is under /tmp, which each emulated host has private (a checkpoint
# written only locally must be caught), unless CASE needs no host: up,
# down and not-root.
skip_if_build_in_tmp() {
  case "$1" in /tmp/*)
    case "$2" in up | down | not-root) ;;
    *)
      echo "the build tree is under /tmp, which each emulated host has private: build elsewhere to run $2; skipped"
      exit 77 ;;
    esac ;;
  esac
}

# instance_up SCRIPT N SECONDS: brings the instance up with N nodes through
# SCRIPT (cluster.sh or slurm.sh) and checks its status, each within SECONDS.
instance_up() {
  timeout "$3" bash "$1" up "$2" || fail "$(basename "$1") up $2 failed"
  timeout "$3" bash "$1" status || fail "status is not 0 after up"
}

# instance_env SCRIPT: the instance's variables (hostfile, subnet, Open
# MPI's agent, MORPH_CLUSTER_STATE) in this shell.
instance_env() { eval "$(timeout 30 bash "$1" env 2>/dev/null)"; }

# instance_gone STATE: once down, no process names the instance's state
# folder STATE and the folder is gone.
instance_gone() {
  pgrep -f "$1/" >/dev/null && fail "processes of the instance left: $(pgrep -af "$1/")"
  [ -e "$1" ] && fail "state folder $1 left"
  true
}

expect_eq() { # WHAT GOT WANT
  [ "$2" = "$3" ] || fail "$1: got '$2', expected '$3'"
}

# on HOST CMD...: CMD on an emulated host (its own /tmp), at most 30 s.
on() { timeout 30 bash "$CLUSTER_SH" exec "$@"; }

# ns_pids NODE TEST: the PIDs of the processes in NODE's network namespace
# (the emulated hosts share one process table) for which the shell test
# TEST, on $d (/proc/PID), holds; fails when NODE cannot be reached.
ns_pids() {
  on "$1" bash -c 'for d in /proc/[0-9]*; do [ $d/ns/net -ef /proc/self/ns/net ] && '"$2"' &&
    echo ${d#/proc/}; done; true'
}

# ns_count NODE TEST: how many; nothing (which no count equals) when NODE
# cannot be reached.
ns_count() {
  local p
  p=$(ns_pids "$1" "$2") || return 1
  if [ -z "$p" ]; then echo 0; else wc -l <<<"$p"; fi
}

# orteds_on NODE: how many Open MPI daemons (orted) run on NODE.
orteds_on() { ns_count "$1" '[ "$(cat $d/comm 2>/dev/null)" = orted ]'; }
# pids_on NODE JOB: the PIDs of morph job JOB's processes (MORPH_JOB_ID in
# their environment) on NODE; procs_on: how many.
pids_on() { ns_pids "$1" "grep -qsxzF MORPH_JOB_ID=$2 \$d/environ"; }
procs_on() { ns_count "$1" "grep -qsxzF MORPH_JOB_ID=$2 \$d/environ"; }
# holds_on NODE JOB: how many placeholders of JOB run on NODE (docs/runtime.md).
holds_on() { ns_count "$1" "grep -qsxzF MORPH_HOLD_OF=$2 \$d/environ"; }
