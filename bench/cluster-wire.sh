#!/usr/bin/env bash
# What the wire between two emulated hosts carries, and how much of it
# morph's cross-host redistribution gets (issue 28; keys in
# docs/performance.md, bench/cluster.sh section).
#
#   bench/cluster-wire.sh [--name NAME] [--mib M] [--runs R] [--quick] [--out DIR]
#
# On the emulated cluster instance NAME (default wire-<pid>): if it is up
# (bench/cluster.sh calls this on its own instance) it is used as it is,
# otherwise it is brought up with two nodes and taken down on every way out.
# R runs (default 5; --quick 3), each of them, node1 to node2 over the
# instance's bridge, back to back (so that the machine's load hits all
# four alike):
#   tcp     one plain TCP stream node1 -> node2 (python3 sockets, 4 MiB
#           writes), 512 MiB (--quick 256), timed by the receiver from
#           accept to end of stream
#   p2p     Open MPI point-to-point, one process on node1 and one on node2
#           (bench-wire: MPI_Send of 64 MiB, 10 times; --quick 5)
#   morph   morph run -n 2 on node1, live 2 -> 4 with the joiners on node2
#           (then 4 -> 2, which checks where they were), M MiB (default
#           64) of doubles in blocks (bench-reconf); t_redist from its
#           RECONF line
#   bare    the hand-written spawn + merge + Alltoallv of bench-bare onto
#           node2, its t_redist
# In the 2 -> 4 block layout the joiners (new ranks 2, 3 on node2) hold the
# upper half of the array, which old rank 1 (node1) held: M/2 MiB cross
# the hosts, the rest stays on node1.
# Output in DIR (default $MORPH_BUILD/bench-out/cluster-wire): wire.csv
# (one row per run), logs. Ends with
#   RESULT tcp_wire_mib_s=.. mpi_p2p_mib_s=.. cross_host_redist_mib_s=..
#          (_mib_min, _mib_max) cross_host_redist_vs_wire=.. (_min, _max)
#          bare_cross_host_redist_mib_s=..
# medians of the R runs; cross_host_redist_mib_s: (M/2) / t_redist;
# cross_host_redist_vs_wire: per run, that over the run's mpi_p2p_mib_s.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
bench_init bench/cluster-wire.sh
name=wire-$$ runs= mib=64 quick=0 out=
bench_parse "name:,runs:,mib:,quick,out:" "[--name NAME] [--mib M] [--runs R] [--quick] [--out DIR]" "$@"
[ -n "$runs" ] || { [ "$quick" = 1 ] && runs=3 || runs=5; }
tcp_mib=512 p2p_reps=10
[ "$quick" = 1 ] && tcp_mib=256 p2p_reps=5
[ "$(id -u)" = 0 ] || { echo "$bench_name needs root (an emulated cluster)" >&2; exit 2; }
case $build in /tmp/*) echo "$bench_name: the build tree is under /tmp, private on each emulated host" >&2; exit 2 ;; esac
bench_build morph morph-run bench-wire.ompi bench-bare.ompi bench-reconf.ompi
out=${out:-$build/bench-out/cluster-wire}
rm -rf "$out"
mkdir -p "$out/log"
out=$(cd "$out" && pwd)

CL="bash $root/scripts/cluster.sh --name $name"
if $CL status >/dev/null 2>&1; then
  echo "$bench_name: on instance $name, already up" >&2
else
  trap 'timeout 180 $CL down >/dev/null 2>&1 || echo "$bench_name: instance $name not down" >&2' EXIT
  trap 'exit 130' INT TERM
  echo "$bench_name: cluster $name up (load $(cut -d' ' -f1-3 /proc/loadavg))" >&2
  timeout 300 $CL up 2 >"$out/log/up.log"
fi
eval "$($CL env)"
hf=$MORPH_CLUSTER_HOSTFILE
bytes=$((mib << 20))
cross_mib=$(awk -v m="$mib" 'BEGIN { print m / 2 }')

# --- tcp: one stream node1 -> node2 ------------------------------------------
cat >"$out/tcp.py" <<'PY'
import socket, sys, time
CHUNK = 4 << 20
if sys.argv[1] == "recv":  # recv ADDR PORT READYFILE
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((sys.argv[2], int(sys.argv[3])))
    s.listen(1)
    open(sys.argv[4], "w").close()
    c, _ = s.accept()
    buf, n, t0 = bytearray(CHUNK), 0, time.monotonic()
    while True:
        k = c.recv_into(buf)
        if not k:
            break
        n += k
    t = time.monotonic() - t0
    print("TCP bytes=%d seconds=%.6f mib_s=%.1f" % (n, t, n / t / (1 << 20)))
else:  # send ADDR PORT MIB
    s = socket.create_connection((sys.argv[2], int(sys.argv[3])))
    buf = memoryview(bytearray(b"\1" * CHUNK))
    for _ in range(int(sys.argv[4]) * (1 << 20) // CHUNK):
        s.sendall(buf)
    s.shutdown(socket.SHUT_WR)
    s.close()
PY
a2=$($CL addr node2)
tcp_once() { # R: MiB/s of one stream node1 -> node2
  local log=$out/log/tcp-$1.out
  rm -f "$out/tcp.ready"
  $CL exec node2 timeout 120 python3 "$out/tcp.py" recv "$a2" 5928 "$out/tcp.ready" >"$log" 2>&1 &
  local rx=$!
  for _ in $(seq 100); do [ -e "$out/tcp.ready" ] && break; sleep 0.1; done
  $CL exec node1 timeout 120 python3 "$out/tcp.py" send "$a2" 5928 "$tcp_mib" 2>"$out/log/tcp-send-$1.err" ||
    echo "tcp run $1: sender failed: $(tail -2 "$out/log/tcp-send-$1.err")" >&2
  wait "$rx" || true
  sed -n 's/^TCP .* mib_s=\([0-9.]*\).*/\1/p' "$log" | grep .
}

# --- MPI point-to-point node1 -> node2 ---------------------------------------
p2p_once() { # R: MiB/s of Open MPI point-to-point node1 -> node2
  local log=$out/log/p2p-$1.out
  timeout 300 $CL exec head mpirun --host node1:1,node2:1 -n 2 "$bin/bench-wire.ompi" --mib 64 \
    --reps "$p2p_reps" >"$log" 2>&1 || { echo "p2p run $1 failed: $(tail -3 "$log")" >&2; return 1; }
  sed -n 's/^WIRE .* mib_s=\([0-9.]*\) hosts=node1,node2$/\1/p' "$log" | grep . ||
    { echo "p2p run $1: not node1 -> node2: $(grep WIRE "$log")" >&2; return 1; }
}

# --- morph's and bare's 2 -> 4 onto node2 -------------------------------------
morph_redist() { # R: morph's t_redist of the 2 -> 4, in seconds
  local log=$out/log/morph-$1.out
  MORPH_SPAWN_PAUSE=0 timeout 300 $CL exec head "$bin/morph" run --hostfile "$hf" --listen '*:0' \
    --job-id "$name-$$-$1" -n 2 --schedule "4@it10,2@it20" -- \
    "$bin/bench-reconf.ompi" --bytes "$bytes" --iters 60 --sleep-ms 10 >"$log" 2>&1 ||
    { echo "morph run $1 failed: $(tail -3 "$log")" >&2; return 1; }
  grep -q 'CHECK PASSED' "$log" || { echo "morph run $1: data check failed" >&2; return 1; }
  # where the joiners were is reported when they leave (the 4 -> 2)
  grep -q '4->2 live ok.*leavers were on node2:2' "$log" ||
    { echo "morph run $1: the joiners were not on node2: $(grep 'morph run' "$log" | tail -3)" >&2; return 1; }
  sed -n 's/^RECONF old=2 new=4 mech=live .*t_redist=\([0-9.]*\).*/\1/p' "$log" | head -1 | grep .
}
bare_redist() { # R: bare's t_redist of the 2 -> 4 (its one Alltoallv), in seconds
  local log=$out/log/bare-$1.out
  timeout 300 $CL exec head mpirun --hostfile "$hf" -n 2 "$bin/bench-bare.ompi" --mode bare \
    --old 2 --new 4 --bytes "$bytes" --host node2:2 >"$log" 2>&1 || { echo "bare run $1 failed: $(tail -3 "$log")" >&2; return 1; }
  grep -q '^BARE .*errors=0 hosts=node1,node1,node2,node2$' "$log" ||
    { echo "bare run $1: wrong data or hosts: $(grep BARE "$log")" >&2; return 1; }
  sed -n 's/^BARE .* t_redist=\([0-9.]*\) .*/\1/p' "$log"
}
csv=$out/wire.csv
echo "run,tcp_mib_s,p2p_mib_s,morph_t_redist_s,morph_cross_mib_s,bare_t_redist_s,bare_cross_mib_s,morph_vs_p2p" >"$csv"
rate() { awk -v b="$cross_mib" -v t="$1" 'BEGIN { if (t > 0) printf "%.1f", b / t; else print "-" }'; }
for r in $(seq "$runs"); do
  tcp=$(tcp_once "$r") || tcp=-
  p2p=$(p2p_once "$r") || p2p=-
  mt=$(morph_redist "$r") || mt=-
  bt=$(bare_redist "$r") || bt=-
  mr=$(rate "$mt")
  vs=-
  [ "$mr" = - ] || [ "$p2p" = - ] || vs=$(bench_ratio "$mr" "$p2p")
  echo "$r,$tcp,$p2p,$mt,$mr,$bt,$(rate "$bt"),$vs" >>"$csv"
  echo "$bench_name: run $r: tcp $tcp MiB/s, MPI p2p $p2p MiB/s; morph t_redist $mt s ($mr MiB/s across, $vs of p2p), bare $bt s ($(rate "$bt") MiB/s) (load $(cut -d' ' -f1 /proc/loadavg))" >&2
done
col() { awk -F, -v c="$1" 'NR > 1 && $c != "" && $c != "-" { print $c }' "$csv" | bench_stats; }
read -r tm _ _ <<<"$(col 2)"
read -r pm _ _ <<<"$(col 3)"
read -r rm rlo rhi <<<"$(col 5)"
read -r bm _ _ <<<"$(col 7)"
read -r vm vlo vhi <<<"$(col 8)"
echo "files: $out"
echo "RESULT tcp_wire_mib_s=$tm mpi_p2p_mib_s=$pm cross_host_redist_mib_s=$rm" \
  "cross_host_redist_mib_min=$rlo cross_host_redist_mib_max=$rhi cross_host_redist_vs_wire=$vm" \
  "cross_host_redist_vs_wire_min=$vlo cross_host_redist_vs_wire_max=$vhi bare_cross_host_redist_mib_s=$bm" \
  "wire_runs=$runs wire_mib=$mib load=$(cut -d' ' -f1 /proc/loadavg)"
