#!/usr/bin/env bash
# Slurm 22.05 on an emulated cluster (scripts/cluster.sh): slurmctld, and
# slurmdbd with its MariaDB, on the head; one slurmd per node, each on its
# own host (own hostname and address, so Slurm sees distinct nodes); munge
# with the cluster's key. docs/slurm.md has the details and measured times.
#
#   slurm.sh [--name NAME] up N     the cluster (if needed) and Slurm on it, until N nodes are idle
#   slurm.sh [--name NAME] node-up NODE  that node's slurmd started again, until Slurm has it back
#   slurm.sh [--name NAME] down     Slurm and the cluster, checking that nothing is left
#   slurm.sh [--name NAME] status   daemons and sinfo (exit 0 all up, 1 partly, 3 down)
#   slurm.sh [--name NAME] env      variables for Slurm clients (SLURM_CONF, cluster's)
#   slurm.sh [--name NAME] exec CMD...  CMD on the head with SLURM_CONF set
#
# With MORPH_SPANK=/path/to/morph_spank.so, `up` loads morph's SPANK plugin
# (plugstack.conf), which gives sbatch --morph=min:max:pref.
#
# The instance is the cluster's: --name, else $MORPH_CLUSTER, else
# "default". Slurm clients must run on the head (`slurm.sh exec`, or
# `cluster.sh exec head` with SLURM_CONF set): that is where the node names
# resolve and where srun binds (CommunicationParameters=NoInAddrAny).
set -euo pipefail

SL_HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CLUSTER=$SL_HERE/cluster.sh
SL_TPL=$SL_HERE/slurm
SL_PORT0=16800   # ports 16800 + 10 * slot + 0..3: slurmctld, slurmd, slurmdbd, MariaDB
SL_WAIT_IDLE=60  # seconds for the nodes to register and become idle
# shellcheck source=cluster/cli.sh
. "$SL_HERE/cluster/cli.sh"

die() {
  echo "slurm.sh: $*" >&2
  exit 1
}

usage() {
  sed -n 's/^#   slurm.sh/usage: slurm.sh/p' "${BASH_SOURCE[0]}" >&2
  exit 2
}

cl() { bash "$CLUSTER" --name "$NAME" "$@"; }

# sl_load: the cluster's variables (MORPH_CLUSTER_*) and Slurm's paths and
# ports; fails when the cluster is not up.
sl_load() {
  local e
  e=$(cl env 2>/dev/null) || return 1
  eval "$e"
  SL=$MORPH_CLUSTER_STATE/slurm
  HEAD_ADDR=$MORPH_CLUSTER_HEAD
  local slot=$((${HEAD_ADDR##*.} / 32))
  CTLD_PORT=$((SL_PORT0 + 10 * slot))
  SLURMD_PORT=$((CTLD_PORT + 1))
  DBD_PORT=$((CTLD_PORT + 2))
  MYSQL_PORT=$((CTLD_PORT + 3))
  export SLURM_CONF=$SL/etc/slurm.conf
}

# --- locks -------------------------------------------------------------------
# slurm.sh up/down of one instance never race (fd 7). cluster.sh keeps its
# own lock, taken by each cluster.sh command slurm.sh runs.

sl_lock() {
  local f=${MORPH_CLUSTER_ROOT:-/run/morph-cluster}/$NAME.slurm.lock i
  mkdir -p "$(dirname "$f")"
  for ((i = 0; i < 10; i++)); do
    exec 7>>"$f"
    flock -w 300 7 || die "Slurm of instance $NAME stayed busy for 300 s"
    [ /proc/self/fd/7 -ef "$f" ] && return 0
    exec 7>&-
  done
  die "cannot lock $f"
}
sl_unlock_remove() { rm -f "${MORPH_CLUSTER_ROOT:-/run/morph-cluster}/$NAME.slurm.lock"; }

# --- daemons -------------------------------------------------------------------

sl_pid() { cat "$SL/pid/$1" 2>/dev/null || true; }

# sl_alive NAME PROGRAM: the daemon recorded as NAME runs and is PROGRAM
# (Debian's /usr/sbin/slurmd is a link to slurmd-wlm).
sl_alive() {
  local pid
  pid=$(sl_pid "$1")
  [ -n "$pid" ] && [ "$(readlink "/proc/$pid/exe" 2>/dev/null)" = "$(readlink -f "$2")" ]
}

# sl_start NAME HOST PROGRAM ARGS...: PROGRAM on HOST, detached, its PID
# in pid/NAME, its output in log/NAME.out.
sl_start() {
  local name=$1 host=$2
  shift 2
  cl daemon "$host" "$SL/pid/$name" "$SL/log/$name.out" "$@"
}

# sl_wait WHAT SECONDS CMD...: until CMD succeeds, at most SECONDS.
sl_wait() {
  local what=$1 n=$(($2 * 10)) i
  shift 2
  for ((i = 0; i < n; i++)); do
    "$@" >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  die "$what: not ready after $((n / 10)) s (logs in $SL/log)"
}

# sl_stop NAME PROGRAM: SIGTERM, up to 10 s, then SIGKILL.
sl_stop() {
  local pid i
  sl_alive "$1" "$2" || return 0
  pid=$(sl_pid "$1")
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < 100; i++)); do
    sl_alive "$1" "$2" || return 0
    sleep 0.1
  done
  kill -KILL "$pid" 2>/dev/null || true
}

tcp_open() { timeout 1 bash -c "exec 3<>/dev/tcp/$1/$2" 2>/dev/null; }
on_head() { cl exec head "$@"; }

# --- configuration ---------------------------------------------------------------

# sl_fill TEMPLATE OUT [MODE]: the template with this instance's values.
sl_fill() {
  local n=$MORPH_CLUSTER_NODES first last
  first=$(cl addr node1)
  last=$(cl addr "node$n")
  sed -e "s|@SL@|$SL|g" -e "s|@CLUSTER@|$CLUSTER_NAME|g" -e "s|@HEAD_ADDR@|$HEAD_ADDR|g" \
    -e "s|@CTLD_PORT@|$CTLD_PORT|g" -e "s|@SLURMD_PORT@|$SLURMD_PORT|g" \
    -e "s|@DBD_PORT@|$DBD_PORT|g" -e "s|@MYSQL_PORT@|$MYSQL_PORT|g" \
    -e "s|@MUNGE_SOCKET@|$MORPH_CLUSTER_STATE/munge/run/munge.socket.2|g" \
    -e "s|@NODE_NAMES@|node[1-$n]|g" -e "s|@NODE_ADDRS@|${first%.*}.[${first##*.}-${last##*.}]|g" \
    -e "s|@CPUS@|${MORPH_SLURM_CPUS:-$(nproc)}|g" -e "s|@DB_PASS@|$(cat "$SL/etc/db.pass")|g" \
    "$SL_TPL/$1" >"$2"
  chmod "${3:-644}" "$2"
}

sl_configure() {
  local i
  mkdir -p "$SL"/{etc,ctld,run,log,pid}
  for ((i = 1; i <= MORPH_CLUSTER_NODES; i++)); do mkdir -p "$SL/spool/node$i"; done
  mkdir -p "$SL/mysql/data" "$SL/mysql/run" "$SL/mysql/log"
  chown -R mysql:mysql "$SL/mysql"
  [ -s "$SL/etc/db.pass" ] || (umask 077 && head -c 18 /dev/urandom | base64 | tr -d '/+=' >"$SL/etc/db.pass")
  # Slurm keeps the cluster name in table names: lower case letters,
  # digits and _ only.
  CLUSTER_NAME=$(echo "m_$NAME" | tr 'A-Z' 'a-z' | tr -c 'a-z0-9_\n' '_' | cut -c1-30)
  sl_fill slurm.conf.in "$SL/etc/slurm.conf"
  sl_fill slurmdbd.conf.in "$SL/etc/slurmdbd.conf" 600
  sl_fill cgroup.conf.in "$SL/etc/cgroup.conf"
  sl_fill my.cnf.in "$SL/etc/my.cnf"
  # $MORPH_SPANK: morph's SPANK plugin (sbatch --morph=min:max:pref).
  if [ -n "${MORPH_SPANK:-}" ]; then
    echo "optional $MORPH_SPANK" >"$SL/etc/plugstack.conf"
  else
    : >"$SL/etc/plugstack.conf"
  fi
}

# --- bring-up, one daemon after the other ----------------------------------------

sl_port_free() { # PORT WHAT
  ! tcp_open 127.0.0.1 "$1" && ! tcp_open "$HEAD_ADDR" "$1" ||
    die "port $1 ($2) is already in use on this machine"
}

sl_mariadb_up() {
  sl_alive mariadb /usr/sbin/mariadbd && return 0
  if [ ! -d "$SL/mysql/data/mysql" ]; then
    mariadb-install-db --defaults-file="$SL/etc/my.cnf" --auth-root-authentication-method=socket \
      --skip-test-db >"$SL/log/mariadb-install.out" 2>&1 ||
      die "mariadb-install-db failed (see $SL/log/mariadb-install.out)"
  fi
  sl_port_free "$MYSQL_PORT" MariaDB
  sl_start mariadb head /usr/sbin/mariadbd --defaults-file="$SL/etc/my.cnf"
  sl_wait "MariaDB" 30 mariadb --defaults-file="$SL/etc/my.cnf" -u root -e "SELECT 1"
  mariadb --defaults-file="$SL/etc/my.cnf" -u root <<EOF
CREATE USER IF NOT EXISTS 'slurm'@'127.0.0.1' IDENTIFIED BY '$(cat "$SL/etc/db.pass")';
GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1';
EOF
}

sl_slurmdbd_up() {
  sl_alive slurmdbd /usr/sbin/slurmdbd && return 0
  sl_port_free "$DBD_PORT" slurmdbd
  sl_start slurmdbd head /usr/sbin/slurmdbd -D
  sl_wait "slurmdbd" 30 tcp_open "$HEAD_ADDR" "$DBD_PORT"
  if ! on_head sacctmgr -n -P list cluster format=cluster | grep -qx "$CLUSTER_NAME"; then
    on_head sacctmgr -i add cluster "$CLUSTER_NAME" >/dev/null ||
      die "sacctmgr add cluster $CLUSTER_NAME failed"
  fi
}

sl_slurmctld_up() {
  sl_alive slurmctld /usr/sbin/slurmctld && return 0
  sl_port_free "$CTLD_PORT" slurmctld
  sl_start slurmctld head /usr/sbin/slurmctld -D -f "$SLURM_CONF"
  sl_wait "slurmctld" 30 on_head scontrol ping
}

sl_slurmd_up() {
  local i
  for ((i = 1; i <= MORPH_CLUSTER_NODES; i++)); do
    sl_alive "slurmd-node$i" /usr/sbin/slurmd && continue
    sl_start "slurmd-node$i" "node$i" /usr/sbin/slurmd -D -f "$SLURM_CONF"
  done
}

sl_idle_count() {
  on_head sinfo -h -N -t idle -o '%N' 2>/dev/null | sort -u | wc -l
}

sl_all_idle() { [ "$(sl_idle_count)" -eq "$MORPH_CLUSTER_NODES" ]; }

cmd_up() {
  local n=${1:-}
  [[ $n =~ ^[1-9][0-9]*$ ]] || die "up needs a number of nodes"
  sl_lock
  trap 'echo "slurm.sh: up failed: taking instance $NAME down" >&2; sl_teardown >&2 || true' EXIT
  trap 'exit 130' INT TERM
  cl up "$n" >/dev/null
  sl_load || die "cluster $NAME did not come up"
  sl_configure
  sl_mariadb_up
  sl_slurmdbd_up
  sl_slurmctld_up
  sl_slurmd_up
  sl_wait "$n idle nodes in sinfo" "$SL_WAIT_IDLE" sl_all_idle
  trap - EXIT INT TERM
  echo "slurm $NAME: $n nodes idle; SLURM_CONF=$SLURM_CONF (clients: slurm.sh exec CMD)"
}

# sl_node_back NODE: slurmctld has the node back in service: responding
# (no '*'), neither down nor drained; idle or running jobs alike.
sl_node_back() {
  local st
  st=$(on_head sinfo -h -N -n "$1" -o %T 2>/dev/null) || return 1
  [[ $st =~ ^(idle|mixed|allocated|completing)$ ]]
}

# node-up NODE: one node's slurmd (killed, or its host's daemons gone)
# started again and waited for alone, bounded; unlike `up`, nothing else is
# waited for (the other nodes may be running jobs) and a failure leaves the
# instance as it is.
cmd_node_up() {
  local node=${1:-}
  [[ $node =~ ^node([1-9][0-9]*)$ ]] || die "node-up needs a node name (node1, node2, ...)"
  sl_lock
  sl_load || die "cluster $NAME is not up"
  [ "${BASH_REMATCH[1]}" -le "$MORPH_CLUSTER_NODES" ] || die "$node is not a node of instance $NAME"
  sl_alive slurmctld /usr/sbin/slurmctld || die "slurmctld of instance $NAME is not running: use up"
  sl_alive "slurmd-$node" /usr/sbin/slurmd ||
    sl_start "slurmd-$node" "$node" /usr/sbin/slurmd -D -f "$SLURM_CONF"
  sl_wait "$node back in service" "$SL_WAIT_IDLE" sl_node_back "$node"
  echo "slurm $NAME: $node $(on_head sinfo -h -N -n "$node" -o %T)"
}

# sl_teardown: Slurm's daemons stopped in order (slurmds and slurmctld
# first so that nothing writes to slurmdbd, MariaDB last and cleanly), then
# the cluster, whose `down` ends whatever is left on its hosts (job steps)
# and checks that nothing remains.
sl_teardown() {
  local i
  if sl_load; then
    for ((i = 1; i <= MORPH_CLUSTER_NODES; i++)); do sl_stop "slurmd-node$i" /usr/sbin/slurmd & done
    sl_stop slurmctld /usr/sbin/slurmctld &
    wait
    sl_stop slurmdbd /usr/sbin/slurmdbd
    sl_stop mariadb /usr/sbin/mariadbd
  fi
  cl down && sl_unlock_remove
}

cmd_down() {
  sl_lock
  trap '' INT TERM
  sl_teardown
}

cmd_status() {
  local rc=0 d p
  if ! sl_load; then
    echo "slurm $NAME: down"
    return 3
  fi
  cl status || rc=1
  for d in mariadb:mariadbd slurmdbd:slurmdbd slurmctld:slurmctld \
    $(for ((p = 1; p <= MORPH_CLUSTER_NODES; p++)); do echo "slurmd-node$p:slurmd"; done); do
    if sl_alive "${d%%:*}" "/usr/sbin/${d#*:}"; then
      echo "  ${d%%:*} $(sl_pid "${d%%:*}")"
    else
      echo "  ${d%%:*} DEAD"
      rc=1
    fi
  done
  on_head sinfo -N -o '%N %T %C' 2>&1 | sed 's/^/  /' || rc=1
  return $rc
}

cmd_env() {
  sl_load || die "cluster $NAME is not up"
  cl env
  echo "export SLURM_CONF=$SLURM_CONF"
}

cmd_exec() {
  [ $# -ge 1 ] || usage
  sl_load || die "cluster $NAME is not up"
  exec bash "$CLUSTER" --name "$NAME" exec head "$@"
}

main() {
  local cmd
  cli_parse usage "$@"
  NAME=$CLI_NAME
  set -- "${CLI_ARGS[@]}"
  cmd=$1
  shift
  cli_need_root slurm.sh "an emulated cluster, Slurm's daemons"
  case $cmd in
  up) cmd_up "$@" ;;
  down) cmd_down ;;
  node-up) cmd_node_up "$@" ;;
  status) cmd_status ;;
  env) cmd_env ;;
  exec) cmd_exec "$@" ;;
  *) usage ;;
  esac
}

main "$@"
