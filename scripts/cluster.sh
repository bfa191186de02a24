#!/usr/bin/env bash
# An emulated cluster of real hosts on this machine: node1..nodeN, each a
# long-lived set of Linux namespaces (network, UTS, mount) kept alive by a
# holder process, with its own hostname, address, /tmp and sshd, joined by a
# bridge; and "head", the machine's network namespace with a UTS and mount
# namespace of its own (hostname "head", the bridge's address), where the
# programs that drive the cluster run. One munged with the cluster's own key
# serves every host. docs/cluster.md: address plan, rules, measured times.
#
#   cluster.sh [--name NAME] up N              start N nodes (or restart the missing ones)
#   cluster.sh [--name NAME] down              stop everything, check that nothing is left
#   cluster.sh [--name NAME] status            what runs (exit 0 all up, 1 partly, 3 down)
#   cluster.sh [--name NAME] exec HOST CMD...  run CMD on head or nodeI
#   cluster.sh [--name NAME] daemon HOST PIDFILE LOG CMD...  start CMD on HOST, detached
#   cluster.sh [--name NAME] ssh HOST [CMD...] ssh from the head to HOST
#   cluster.sh [--name NAME] env [--agent]     variables for mpirun & co (--agent: nsenter, not ssh)
#   cluster.sh [--name NAME] addr HOST | pid HOST | hosts
#   cluster.sh [--name NAME] link NODE up|down plug / unplug a node's cable
#   cluster.sh [--name NAME] kill NODE         power a node off ('up N' boots it again)
#
# The instance is --name, else $MORPH_CLUSTER, else "default". Needs root:
# without it, exit 77 (CTest's skip code).
set -euo pipefail

MC_SELF=${BASH_SOURCE[0]}
[[ $MC_SELF == /* ]] || MC_SELF=$PWD/$MC_SELF
MC_ROOT=${MORPH_CLUSTER_ROOT:-/run/morph-cluster}
MC_NET=198.18.0  # the /24 reserved for benchmark networks (RFC 2544)
MC_SLOTS=8       # one /27 of it per instance
MC_MAX_NODES=20  # nodeI = base+10+I stays inside the /27
MC_LOCK_WAIT=120 # seconds a command waits while another one holds the instance
# shellcheck source=cluster/cli.sh
. "$(dirname "$MC_SELF")/cluster/cli.sh"

die() {
  echo "cluster.sh: $*" >&2
  exit 1
}

usage() {
  sed -n 's/^#   cluster.sh/usage: cluster.sh/p' "$MC_SELF" >&2
  exit 2
}

# --- the instance: name, state folder, slot, addresses ----------------------

mc_set_name() { # a name cli_parse checked
  NAME=$1
  ST=$MC_ROOT/$NAME
}

# mc_load: the instance's slot k (it owns 198.18.0.(32k)/27) and its number
# of nodes into SLOT, BASE and NODES; without forks, since exec and the
# nsenter agent run it on every call.
mc_load() {
  SLOT="" BASE="" NODES=0
  [ -f "$ST/slot" ] && read -r SLOT <"$ST/slot"
  [ -f "$ST/nodes" ] && read -r NODES <"$ST/nodes"
  [ -z "$SLOT" ] || BASE=$((32 * SLOT))
}

mc_subnet() { echo "$MC_NET.$BASE/27"; }
mc_bridge() { echo "morphbr$SLOT"; }
mc_veth() { echo "morph${SLOT}n${1#node}"; }

# mc_mac HOST: a fixed, locally administered MAC address per host, so that
# a node that comes back after a kill is not cut off by its peers' ARP
# caches (and the bridge's address does not change with its ports).
mc_mac() {
  local a
  a=$(mc_addr "$1")
  printf '02:6d:6f:72:%02x:%02x\n' "$SLOT" "${a##*.}"
}

# mc_addr HOST: head = base+1, nodeI = base+10+I.
mc_addr() {
  case $1 in
  head) echo "$MC_NET.$((BASE + 1))" ;;
  *) echo "$MC_NET.$((BASE + 10 + ${1#node}))" ;;
  esac
}

# mc_check_host HOST: HOST is head or one of the instance's nodes.
mc_check_host() {
  [ "$NODES" -gt 0 ] || die "instance $NAME is not up"
  case $1 in
  head) return 0 ;;
  node[1-9] | node[1-9][0-9]) [ "${1#node}" -le "$NODES" ] && return 0 ;;
  esac
  die "no host '$1' in instance $NAME (head, node1..node$NODES)"
}

mc_hosts_of() { # N: the hosts of an instance of N nodes, head first
  local i
  echo head
  for ((i = 1; i <= $1; i++)); do echo "node$i"; done
}

# --- locks -------------------------------------------------------------------
# One lock per instance (fd 8) so that two commands on it never race; one on
# the slot table (fd 9) so that two instances coming up at once never take
# the same /27. `down` removes the instance's lock file while it holds it: a
# command that was waiting then holds a lock on a file that is gone, sees
# it, and locks the new file instead. The daemons the script starts inherit
# no descriptor (mc_detached), or one would hold the lock for ever.

mc_lock() { # shared|exclusive
  local mode=-x i f=$MC_ROOT/$NAME.lock
  [ "$1" = shared ] && mode=-s
  # Reading an instance that does not exist needs no lock (and leaves no
  # lock file behind).
  if [ "$mode" = -s ] && [ ! -e "$f" ] && [ ! -d "$ST" ]; then
    mc_load
    return 0
  fi
  [ -d "$MC_ROOT" ] || mkdir -p "$MC_ROOT"
  for ((i = 0; i < 10; i++)); do
    exec 8>>"$f"
    flock $mode -w "$MC_LOCK_WAIT" 8 ||
      die "instance $NAME stayed busy for $MC_LOCK_WAIT s (another cluster.sh command holds it)"
    if [ /proc/self/fd/8 -ef "$f" ]; then
      mc_load
      return 0
    fi
    exec 8>&-
  done
  die "cannot lock $f"
}
mc_unlock() { exec 8>&-; }

# mc_take_slot: the lowest /27 that no instance and no interface of this
# machine uses.
mc_take_slot() {
  [ -n "$SLOT" ] && return 0
  exec 9>"$MC_ROOT/.slots.lock"
  flock -w "$MC_LOCK_WAIT" 9 || die "the slot table stayed busy for $MC_LOCK_WAIT s"
  local k used
  used=$(cat "$MC_ROOT"/*/slot 2>/dev/null || true)
  for ((k = 0; k < MC_SLOTS; k++)); do
    grep -qx "$k" <<<"$used" && continue
    ip link show "morphbr$k" >/dev/null 2>&1 && continue
    [ -z "$(ip -4 -o addr show to "$MC_NET.$((32 * k))/27")" ] || continue
    mkdir -p "$ST"
    echo "$k" >"$ST/slot"
    exec 9>&-
    mc_load
    return 0
  done
  exec 9>&-
  die "all $MC_SLOTS slots of $MC_NET.0/24 are taken ('cluster.sh --name X down' frees one)"
}

# --- processes of the instance ---------------------------------------------
# A holder is recognised by its name ("morph-cluster-hold NAME HOST"), a
# daemon by sharing its host's UTS namespace, so a PID is never acted on once
# it belongs to somebody else. Every process that runs on a host (sshd,
# munged, slurmd, what `exec` or ssh started) is in the host's namespaces,
# recorded at creation in ns/HOST: that finds them all without guessing
# names, and they are the instance's to end.

mc_pid() { # FILE: the PID recorded in pid/FILE, or nothing
  local pid=""
  [ -f "$ST/pid/$1" ] && read -r pid <"$ST/pid/$1"
  echo "$pid"
}

# mc_alive HOST: HOST's holder runs.
mc_alive() {
  local pid a0=""
  [ -f "$ST/pid/$1" ] && read -r pid <"$ST/pid/$1" || return 1
  [ -r "/proc/$pid/cmdline" ] && IFS= read -r -d '' a0 <"/proc/$pid/cmdline" || true
  [ "$a0" = "morph-cluster-hold $NAME $1" ]
}

# mc_daemon_alive FILE HOST: the process recorded in pid/FILE runs on HOST.
mc_daemon_alive() {
  local pid holder
  mc_alive "$2" || return 1
  pid=$(mc_pid "$1")
  holder=$(mc_pid "$2")
  [ -n "$pid" ] && [ "/proc/$pid/ns/uts" -ef "/proc/$holder/ns/uts" ]
}

# mc_procs_of HOST...: the PIDs of every process in a namespace of the hosts
# (one find over /proc: a readlink per process takes seconds under load).
mc_procs_of() {
  local h ids=""
  for h in "$@"; do
    [ -f "$ST/ns/$h" ] && ids="$ids $(cat "$ST/ns/$h")"
  done
  [ -z "$ids" ] && return 0
  # find fails on a process that ends while it looks: no error here.
  { find /proc/[0-9]*/ns -maxdepth 1 \( -name uts -o -name mnt -o -name net \) \
    -printf '%h %l\n' 2>/dev/null || true; } |
    awk -v ids="$ids" 'BEGIN { n = split(ids, a); for (i = 1; i <= n; i++) want[a[i]] = 1 }
      want[$2] { split($1, p, "/"); print p[3] }' | sort -un | mc_ours
}

# mc_ours: the PIDs read (one a line) that see this instance's /etc/hosts.
# A namespace's ID is reused once its last process is gone: the records
# of a host that died could then name another instance's new host (seen:
# one `down` listed another instance's holder, started in the same
# second). Every host of the instance bind-mounts $ST/etc/hosts, so a
# process in its namespaces sees that very file.
mc_ours() {
  local pid
  while read -r pid; do
    [ "/proc/$pid/root/etc/hosts" -ef "$ST/etc/hosts" ] && echo "$pid"
  done
  return 0
}

# mc_kill_hosts SIGNAL HOST...: end every process on the hosts: SIGNAL and
# up to 5 s for them to go (unless SIGNAL is KILL), then SIGKILL and up to
# 5 s more. Fails if some survive.
mc_kill_hosts() {
  local sig=$1 pids i
  shift
  pids=$(mc_procs_of "$@")
  [ -z "$pids" ] && return 0
  if [ "$sig" != KILL ]; then
    kill -"$sig" $pids 2>/dev/null || true
    for ((i = 0; i < 50; i++)); do
      pids=$(mc_procs_of "$@")
      [ -z "$pids" ] && return 0
      sleep 0.1
    done
  fi
  kill -KILL $pids 2>/dev/null || true
  for ((i = 0; i < 50; i++)); do
    [ -z "$(mc_procs_of "$@")" ] && return 0
    sleep 0.1
  done
  return 1
}

# --- files the hosts share -------------------------------------------------

mc_write_hosts() {
  local h
  {
    echo "# morph cluster $NAME: the only names its hosts resolve"
    echo "127.0.0.1 localhost"
    for h in $(mc_hosts_of "$NODES"); do echo "$(mc_addr "$h") $h"; done
  } >"$ST/etc/hosts"
  for ((h = 1; h <= NODES; h++)); do
    echo "node$h slots=${MORPH_CLUSTER_SLOTS:-$(nproc)}"
  done >"$ST/etc/hostfile"
}

# Names come from the hosts file only, so no lookup can leave the machine.
mc_write_resolver() {
  sed 's/^hosts:.*/hosts:          files/' /etc/nsswitch.conf >"$ST/etc/nsswitch.conf"
  grep -q '^hosts:' "$ST/etc/nsswitch.conf" || echo "hosts:          files" >>"$ST/etc/nsswitch.conf"
  echo "# morph cluster $NAME: no name server; names come from /etc/hosts" >"$ST/etc/resolv.conf"
}

mc_write_ssh() {
  local d=$ST/ssh tpl
  tpl=$(dirname "$MC_SELF")/cluster
  [ -f "$d/id_ed25519" ] || ssh-keygen -q -t ed25519 -N '' -C "morph-cluster-$NAME" -f "$d/id_ed25519"
  [ -f "$d/host_ed25519" ] || ssh-keygen -q -t ed25519 -N '' -C "morph-cluster-$NAME-host" -f "$d/host_ed25519"
  cp "$d/id_ed25519.pub" "$d/authorized_keys"
  sed "s|@STATE@|$ST|g" "$tpl/sshd_config.in" >"$d/sshd_config"
  mc_write_ssh_client "$tpl"
  # One program name for launchers that take no arguments with it.
  printf '#!/bin/sh\nexec ssh -F %s "$@"\n' "$d/config" >"$ST/bin/ssh"
  printf '#!/bin/sh\nexec %s --name %s __agent "$@"\n' "$MC_SELF" "$NAME" >"$ST/bin/agent"
  chmod 755 "$ST/bin/ssh" "$ST/bin/agent"
}

# The client config gives every host its address and refuses any other
# destination: nothing sent through it can leave the cluster.
mc_write_ssh_client() { # TEMPLATE-FOLDER
  local h ours=""
  {
    for h in $(mc_hosts_of "$NODES"); do
      printf 'Host %s %s\n  HostName %s\n' "$h" "$(mc_addr "$h")" "$(mc_addr "$h")"
      ours="$ours !$h !$(mc_addr "$h")"
    done
    printf 'Host *%s\n  ProxyCommand sh -c "echo %s >&2; exit 1"\n' "$ours" \
      "'morph cluster $NAME: %h is not one of its hosts'"
    sed "s|@STATE@|$ST|g" "$1/ssh_config.in"
  } >"$ST/ssh/config"
}

mc_write_munge() {
  local d=$ST/munge
  mkdir -p "$d/etc" "$d/run" "$d/log" "$d/lib"
  [ -f "$d/etc/munge.key" ] || mungekey --create --bits=1024 --keyfile="$d/etc/munge.key"
  chown -R munge:munge "$d"
  chmod 700 "$d/etc" "$d/log" "$d/lib"
  chmod 755 "$d" "$d/run"
  chmod 600 "$d/etc/munge.key"
}

mc_prepare() {
  mkdir -p "$ST"/{etc,ssh,pid,ns,log,bin,host,home}
  chmod 755 "$ST"
  chmod 700 "$ST/ssh" "$ST/home"
  echo "$NODES" >"$ST/nodes"
  mc_write_hosts
  mc_write_resolver
  mc_write_ssh
  mc_write_munge
  # The packages' own runtime folders (systemd makes them at boot): every
  # host binds the cluster's munge socket folder on /run/munge, and sshd
  # wants /run/sshd. In the machine's own namespace both stay empty.
  [ -d /run/munge ] || install -d -o munge -g munge -m 755 /run/munge
  [ -d /run/sshd ] || install -d -m 755 /run/sshd
}

# --- hosts -------------------------------------------------------------------

# mc_hold HOST [TMP]: runs inside the fresh namespaces of HOST: names it,
# gives it the cluster's resolver files and munge socket and, on a node, its
# own /tmp and /dev/shm (a relaunch checkpoint left in either is not seen
# on another host, as on a real cluster) and the cluster's home folder for root (shared by the nodes as an
# NFS home would be; the machine's /root, whose .bashrc takes seconds, stays
# out of their ssh sessions), then keeps the namespaces alive until killed.
mc_hold() {
  local host=$1 tmp=${2:-}
  hostname "$host"
  if [ -n "$tmp" ]; then
    mount --bind "$tmp" /tmp
    mount --bind "${tmp%/tmp}/shm" /dev/shm
    mount --bind "$ST/home" /root
  fi
  mount --bind "$ST/etc/hosts" /etc/hosts
  mount --bind "$ST/etc/nsswitch.conf" /etc/nsswitch.conf
  mount --bind "$ST/etc/resolv.conf" /etc/resolv.conf
  mount --bind "$ST/munge/run" /run/munge
  cd /
  echo $$ >"$ST/pid/$host.new"
  exec -a "morph-cluster-hold $NAME $host" sleep infinity
}

# mc_detached CMD...: in a background subshell, CMD with no descriptor of
# the caller but 0-2: a daemon that inherits a lock or a pipe (CTest's
# output) would hold it for ever.
mc_detached() {
  local fd
  for fd in /proc/"$BASHPID"/fd/*; do
    fd=${fd##*/}
    [ "$fd" -le 2 ] || eval "exec $fd>&-" 2>/dev/null || true
  done
  exec "$@"
}

# mc_spawn_holder HOST: starts HOST's holder in new namespaces (a node gets
# a network of its own; the head keeps the machine's, only its UTS and mount
# namespaces are the instance's). mc_await_holder records it.
mc_spawn_holder() {
  local host=$1 tmp="" flags=(--uts --mount)
  rm -f "$ST/pid/$host" "$ST/pid/$host.new" "$ST/ns/$host"
  if [ "$host" != head ]; then
    flags+=(--net)
    tmp=$ST/host/$host/tmp
    rm -rf "$ST/host/$host"
    install -d -m 1777 "$tmp" "$ST/host/$host/shm"
  fi
  mc_detached setsid unshare "${flags[@]}" --propagation slave -- \
    "$MC_SELF" --name "$NAME" __hold "$host" $tmp </dev/null >>"$ST/log/$host.log" 2>&1 &
}

# mc_await_holder HOST: waits (10 s at most) for HOST's holder, records its
# PID and namespaces.
mc_await_holder() {
  local host=$1 i pid
  for ((i = 0; i < 200; i++)); do
    [ -s "$ST/pid/$host.new" ] && break
    sleep 0.05
  done
  [ -s "$ST/pid/$host.new" ] || die "the holder of $host did not come up in 10 s (see $ST/log/$host.log)"
  read -r pid <"$ST/pid/$host.new"
  {
    readlink "/proc/$pid/ns/uts"
    readlink "/proc/$pid/ns/mnt"
    [ "$host" = head ] || readlink "/proc/$pid/ns/net"
  } >"$ST/ns/$host"
  mv "$ST/pid/$host.new" "$ST/pid/$host"
}

mc_bridge_up() {
  local br
  br=$(mc_bridge)
  ip link show "$br" >/dev/null 2>&1 && return 0
  ip link add "$br" address "$(mc_mac head)" type bridge
  sysctl -qw "net.ipv6.conf.$br.disable_ipv6=1"
  ip addr add "$(mc_addr head)/27" dev "$br"
  ip link set "$br" up
}

# mc_plug NODE: the node's eth0 (a veth whose other end is on the bridge),
# its address and loopback; no default route, and IPv6 off: nothing but the
# cluster's IPv4 on the wire.
mc_plug() {
  local node=$1 pid veth
  pid=$(mc_pid "$node")
  veth=$(mc_veth "$node")
  ip link del "$veth" 2>/dev/null || true
  ip link add "$veth" type veth peer name eth0 address "$(mc_mac "$node")" netns "$pid"
  sysctl -qw "net.ipv6.conf.$veth.disable_ipv6=1"
  ip link set "$veth" master "$(mc_bridge)" up
  nsenter -t "$pid" -n sh -e -c "
    sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
    ip addr add $(mc_addr "$node")/27 dev eth0
    ip link set lo up
    ip link set eth0 up"
}

# mc_daemon HOST PIDFILE LOG PROGRAM ARGS...: PROGRAM in HOST's namespaces
# (working folder /), in its own session, with no descriptor of the caller,
# input /dev/null, output appended to LOG; its PID written to PIDFILE
# (nsenter execs PROGRAM, so $! is its PID). Returns at once.
mc_daemon() {
  local host=$1 pidfile=$2 log=$3
  shift 3
  mc_detached setsid nsenter -t "$(mc_pid "$host")" -n -u -m --wd=/ -- "$@" \
    </dev/null >>"$log" 2>&1 &
  echo $! >"$pidfile"
}

# mc_start_daemon FILE HOST PROGRAM ARGS...: a daemon of the cluster itself,
# its PID in pid/FILE, its output in log/FILE.log.
mc_start_daemon() {
  local file=$1 host=$2
  shift 2
  mc_daemon "$host" "$ST/pid/$file" "$ST/log/$file.log" "$@"
}

mc_start_munged() {
  mc_daemon_alive munged head && return 0
  rm -f "$ST/munge/run/munge.socket.2"*
  mc_start_daemon munged head setpriv --reuid=munge --regid=munge --clear-groups \
    /usr/sbin/munged --foreground \
    --key-file="$ST/munge/etc/munge.key" --socket="$ST/munge/run/munge.socket.2" \
    --pid-file="$ST/munge/run/munged.pid" --log-file="$ST/munge/log/munged.log" \
    --seed-file="$ST/munge/lib/munged.seed" --origin="$(mc_addr head)"
}

mc_start_sshd() { # NODE
  mc_daemon_alive "$1.sshd" "$1" && return 0
  mc_start_daemon "$1.sshd" "$1" /usr/sbin/sshd -D -f "$ST/ssh/sshd_config" \
    -E "$ST/log/$1.sshd.log" -o "ListenAddress=$(mc_addr "$1")"
}

# mc_wait_port ADDR PORT WHAT: bounded wait until a TCP port answers.
mc_wait_port() {
  local i
  for ((i = 0; i < 200; i++)); do
    timeout 1 bash -c "exec 3<>/dev/tcp/$1/$2" 2>/dev/null && return 0
    sleep 0.05
  done
  die "$3 does not answer on $1:$2 after 10 s"
}

mc_wait_munge() {
  local i
  for ((i = 0; i < 200; i++)); do
    [ -S "$ST/munge/run/munge.socket.2" ] && return 0
    # Alive means the process exists: until nsenter has entered the head's
    # namespaces (a moment on a busy machine) mc_daemon_alive sees it in
    # the machine's and said "died" (cluster-cycles, 3 of 4 on 27 Nov).
    kill -0 "$(mc_pid munged)" 2>/dev/null || die "munged died (see $ST/munge/log/munged.log)"
    sleep 0.05
  done
  die "munged did not open its socket in 10 s"
}

# mc_boot HOST...: fresh hosts in place of those whose holder is gone (a
# node that was killed comes back with an empty /tmp, like a rebooted
# tmpfs), all at once: one by one takes seconds on a loaded machine.
mc_boot() {
  local h pids=()
  for h in "$@"; do
    mc_kill_hosts KILL "$h" || die "processes of the old $h survive SIGKILL"
    mc_spawn_holder "$h"
  done
  for h in "$@"; do mc_await_holder "$h"; done
  for h in "$@"; do
    [ "$h" = head ] || { mc_plug "$h" & pids+=($!); }
  done
  for h in "${pids[@]}"; do wait "$h" || die "could not plug a node into $(mc_bridge)"; done
}

# --- commands ----------------------------------------------------------------

cmd_up() {
  local n=${1:-} i h dead=()
  [[ $n =~ ^[1-9][0-9]*$ ]] && [ "$n" -le $MC_MAX_NODES ] ||
    die "up needs a number of nodes, 1..$MC_MAX_NODES"
  mc_lock exclusive
  [ "$NODES" -eq 0 ] || [ "$NODES" -eq "$n" ] ||
    die "instance $NAME is up with $NODES nodes; 'down' first to change that"
  # Any failure, or a signal, takes the whole instance down: half a cluster
  # is worse than none.
  trap 'echo "cluster.sh: up failed: taking instance $NAME down" >&2; mc_teardown >&2 || true' EXIT
  trap 'exit 130' INT TERM
  mc_take_slot
  NODES=$n
  mc_prepare
  mc_bridge_up
  for h in $(mc_hosts_of "$n"); do mc_alive "$h" || dead+=("$h"); done
  [ ${#dead[@]} -eq 0 ] || mc_boot "${dead[@]}"
  mc_start_munged
  for ((i = 1; i <= n; i++)); do mc_start_sshd "node$i"; done
  mc_wait_munge
  for ((i = 1; i <= n; i++)); do mc_wait_port "$(mc_addr "node$i")" 22 "the sshd of node$i"; done
  trap - EXIT INT TERM
  echo "cluster $NAME: $n nodes on $(mc_subnet) (head $(mc_addr head), bridge $(mc_bridge)), state $ST"
}

# mc_leftovers: what of the instance still exists, one thing per line.
mc_leftovers() {
  # shellcheck disable=SC2046
  mc_procs_of $(ls "$ST/ns" 2>/dev/null) | sed 's/^/process /'
  [ -n "$SLOT" ] || return 0
  ip -o link show | awk -F': ' '{ sub(/@.*/, "", $2); print $2 }' |
    grep -E "^morph(br$SLOT|${SLOT}n[0-9]+)$" | sed 's/^/link /' || true
  ip -4 -o addr show to "$(mc_subnet)" | awk '{ print "address " $4 " on " $2 }'
}

# mc_teardown: every process on the instance's hosts (their namespaces go
# with the last one, a node's veth pair with its network namespace), the
# bridge, then a check; the state folder goes only if nothing is left.
mc_teardown() {
  local left
  if [ ! -d "$ST" ]; then
    rm -f "$MC_ROOT/$NAME.lock"
    echo "cluster $NAME: down, nothing left"
    return 0
  fi
  # shellcheck disable=SC2046
  mc_kill_hosts TERM $(ls "$ST/ns" 2>/dev/null) || true
  # A veth pair goes with its network namespace, but the kernel frees a
  # namespace in a work queue after its last process: the host's end may
  # still be there a moment later (cluster-cycles: "left behind: link
  # morph0n1", 2 in 15 runs). Deleting it is immediate and takes the peer.
  local h
  for h in $(ls "$ST/ns" 2>/dev/null); do
    [ -z "$SLOT" ] || [ "${h#node}" = "$h" ] || ip link del "$(mc_veth "$h")" 2>/dev/null || true
  done
  [ -z "$SLOT" ] || ip link del "$(mc_bridge)" 2>/dev/null || true
  left=$(mc_leftovers)
  if [ -n "$left" ]; then
    echo "cluster $NAME: left behind by down (state kept in $ST):"
    echo "$left" | sed 's/^/  /'
    return 1
  fi
  rm -rf "$ST" "$MC_ROOT/$NAME.lock"
  echo "cluster $NAME: down, nothing left"
}

cmd_down() {
  mc_lock exclusive
  trap '' INT TERM # half a teardown is worse than a late one
  mc_teardown
}

mc_status_line() { # HOST
  local h=$1 line
  line="  $h $(mc_addr "$h")"
  if mc_alive "$h"; then line="$line holder $(mc_pid "$h")"; else line="$line holder DEAD"; fi
  if [ "$h" = head ]; then
    if mc_daemon_alive munged head; then line="$line munged $(mc_pid munged)"; else line="$line munged DEAD"; fi
  else
    if mc_daemon_alive "$h.sshd" "$h"; then line="$line sshd $(mc_pid "$h.sshd")"; else line="$line sshd DEAD"; fi
    if ip link show "$(mc_veth "$h")" 2>/dev/null | grep -q 'state UP'; then
      line="$line link up"
    else
      line="$line link DOWN"
    fi
  fi
  echo "$line"
}

cmd_status() {
  local h out
  mc_lock shared
  if [ "$NODES" -eq 0 ]; then
    echo "cluster $NAME: down"
    return 3
  fi
  echo "cluster $NAME: $NODES nodes on $(mc_subnet), state $ST"
  out=$(for h in $(mc_hosts_of "$NODES"); do mc_status_line "$h"; done)
  echo "$out"
  ! grep -q DEAD <<<"$out"
}

# mc_enter HOST CMD...: CMD in HOST's namespaces (a node's network is its
# own; the head's is the machine's), in the caller's working folder.
mc_enter() {
  local host=$1 pid
  shift
  mc_lock shared
  mc_check_host "$host"
  mc_alive "$host" || die "$host of instance $NAME is not running"
  read -r pid <"$ST/pid/$host"
  mc_unlock
  exec nsenter -t "$pid" -n -u -m --wd="$PWD" -- "$@"
}

cmd_exec() {
  [ $# -ge 2 ] || usage
  local host=$1
  shift
  [ "$1" != -- ] || shift
  mc_enter "$host" "$@"
}

cmd_daemon() {
  [ $# -ge 4 ] || usage
  mc_lock shared
  mc_check_host "$1"
  mc_alive "$1" || die "$1 of instance $NAME is not running"
  mc_daemon "$@"
}

cmd_ssh() {
  [ $# -ge 1 ] || usage
  mc_enter head ssh -F "$ST/ssh/config" "$@"
}

# The nsenter shortcut in place of ssh for launchers (Open MPI's
# plm_rsh_agent): called as `agent [-x] HOST COMMAND...`, it runs the
# command through a shell on HOST, as sshd would.
cmd_agent() {
  while [[ ${1:-} == -* ]]; do shift; done
  [ $# -ge 2 ] || usage
  local host=$1
  shift
  mc_enter "$host" /bin/sh -c "$*"
}

cmd_env() {
  local agent=$ST/bin/ssh
  [ "${1:-}" != --agent ] || agent=$ST/bin/agent
  mc_lock shared
  [ "$NODES" -gt 0 ] || die "instance $NAME is not up"
  cat <<EOF
export MORPH_CLUSTER=$NAME
export MORPH_CLUSTER_STATE=$ST
export MORPH_CLUSTER_SUBNET=$(mc_subnet)
export MORPH_CLUSTER_HEAD=$(mc_addr head)
export MORPH_CLUSTER_NODES=$NODES
export MORPH_CLUSTER_HOSTFILE=$ST/etc/hostfile
export MORPH_CLUSTER_SSH_CONFIG=$ST/ssh/config
export OMPI_MCA_plm_rsh_agent=$agent
export OMPI_MCA_oob_tcp_if_include=$(mc_subnet)
export OMPI_MCA_btl_tcp_if_include=$(mc_subnet)
export HYDRA_LAUNCHER=ssh
export HYDRA_LAUNCHER_EXEC=$agent
EOF
}

cmd_link() {
  [ $# -eq 2 ] && [[ $2 =~ ^(up|down)$ ]] || usage
  mc_lock exclusive
  mc_check_host "$1"
  [ "$1" != head ] || die "the head has no cable of its own"
  mc_alive "$1" || die "$1 of instance $NAME is not running"
  ip link set "$(mc_veth "$1")" "$2"
}

cmd_kill() {
  [ $# -eq 1 ] || usage
  mc_lock exclusive
  mc_check_host "$1"
  [ "$1" != head ] || die "kill nodes, not the head ('down' stops everything)"
  mc_kill_hosts KILL "$1" || die "processes of $1 survive SIGKILL: $(mc_procs_of "$1" | xargs)"
  rm -f "$ST/pid/$1" "$ST/pid/$1.sshd" "$ST/ns/$1"
}

cmd_addr() {
  [ $# -eq 1 ] || usage
  mc_lock shared
  mc_check_host "$1"
  mc_addr "$1"
}

cmd_pid() {
  [ $# -eq 1 ] || usage
  mc_lock shared
  mc_check_host "$1"
  mc_alive "$1" || die "$1 of instance $NAME is not running"
  mc_pid "$1"
}

main() {
  local cmd
  cli_parse usage "$@"
  mc_set_name "$CLI_NAME"
  set -- "${CLI_ARGS[@]}"
  cmd=$1
  shift
  cli_need_root cluster.sh "namespaces, a bridge, daemons"
  case $cmd in
  up) cmd_up "$@" ;;
  down) cmd_down ;;
  status) cmd_status ;;
  exec) cmd_exec "$@" ;;
  daemon) cmd_daemon "$@" ;;
  ssh) cmd_ssh "$@" ;;
  env) cmd_env "$@" ;;
  addr) cmd_addr "$@" ;;
  pid) cmd_pid "$@" ;;
  hosts) cat "$ST/etc/hosts" ;;
  link) cmd_link "$@" ;;
  kill) cmd_kill "$@" ;;
  __hold) mc_hold "$@" ;;
  __agent) cmd_agent "$@" ;;
  *) usage ;;
  esac
}

main "$@"
