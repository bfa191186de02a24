#!/usr/bin/env bash
# morphd as a shared service under attack, measured (docs/security.md):
#
#   flood    10,000 hostile connections (silent and half-open, over the
#            Unix socket and over TCP) from another user while root asks
#            for the status and submits every half second: the share of
#            those requests answered within 2 s;
#   auth     messages per second over TCP with every line sealed, against
#            the same without (and against a MUNGE credential per message,
#            Slurm's way), side by side in rounds;
#   attacks  every attack case of tests/security, run for real;
#   crash    every crash point of bench/crash-points.sh, run for real.
#
#   bench/security.sh [--runs R] [--out DIR] [--quick]
# Needs root (the attacker is a second user it makes and removes) and
# munged (a private one is started, as the tests do). Writes
# DIR/flood.csv (t, transport, request, seconds, ok) and DIR/flood.png,
# and ends with
#   RESULT flood_legit_ok= auth_msg_overhead= munge_per_msg_vs_plain=
#          crash_points= crash_points_failed= attacks= attacks_refused_share=
set -euo pipefail
. "$(dirname "$0")/lib.sh"
bench_init security.sh
runs=5 out= quick=
bench_parse "runs:,out:,quick" "[--runs R] [--out DIR] [--quick]" "$@"
[ "$(id -u)" = 0 ] || { echo "security.sh: needs root (it makes the attacking user)" >&2; exit 2; }
# Everything runs beside one private munged.
[ -n "${MORPH_MUNGE_SOCKET:-}" ] || exec bash "$root/tests/protocol/with-munged.sh" bash "$0" "$@"
bench_build morph morphd-query bench-seal-rate security-ask
out=${out:-$build/bench-security}
mkdir -p "$out"
peers=$root/tests/security/peers.py
conns=10000 flood_s=40
[ -z "$quick" ] || conns=3000 flood_s=15

T=$(mktemp -d /tmp/morph-bench-security.XXXXXX)
chmod 711 "$T"
U=msecb$$
pids=()
finish() {
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
  pkill -KILL -u "$U" 2>/dev/null || true
  userdel "$U" 2>/dev/null || true
  getent group "$U" > /dev/null && groupdel "$U" 2>/dev/null || true
  rm -rf "$T"
}
trap finish EXIT
useradd -M -r -U -s /usr/sbin/nologin "$U"

# flood_one TRANSPORT ADDR: the flood against a morphd at ADDR while a
# client of root's asks for the status and submits every half second
# (security-ask, each request timed from its connection to the answer);
# rows into flood.csv.
flood_one() {
  local transport=$1 addr=$2
  runuser -u "$U" -- python3 "$peers" flood "$addr" $((conns * 3 / 4)) $((conns / 4)) "$flood_s" \
    > "$T/flood-$transport.out" &
  local fpid=$!
  sleep 1
  "$bin/security-ask" "$addr" $((flood_s - 2)) 0.5 > "$T/ask-$transport.out"
  wait "$fpid" || true
  awk -v tr="$transport" '$2 == "failed:" { print "0," tr "," $1 ",10,0"; next }
    { printf "%s,%s,%s,%s,%d\n", $3, tr, $1, $2, ($2 < 2) }' "$T/ask-$transport.out" >> "$out/flood.csv"
  echo "flood over $transport: $(cat "$T/flood-$transport.out") hostile connections opened"
}

flood_all() {
  echo "t,transport,request,seconds,ok" > "$out/flood.csv"
  "$bin/morph" daemon -d "$T/unix" --slots 2 --interval 0.5 > "$T/unix.log" 2>&1 &
  pids+=($!)
  for _ in $(seq 100); do "$bin/morph" status -d "$T/unix" > /dev/null 2>&1 && break; sleep 0.1; done
  flood_one unix "$T/unix/morphd.sock"
  local port=$((20000 + RANDOM % 12000))
  "$bin/morph" daemon -d "$T/tcp" --socket "127.0.0.1:$port" --slots 2 --interval 0.5 \
    > "$T/tcp.log" 2>&1 &
  pids+=($!)
  for _ in $(seq 100); do "$bin/morph" status --socket "127.0.0.1:$port" > /dev/null 2>&1 && break; sleep 0.1; done
  flood_one tcp "127.0.0.1:$port"
}

plot_flood() {
  command -v gnuplot > /dev/null || return 0
  gnuplot <<EOF2 2>/dev/null || true
set terminal pngcairo size 900,450
set output "$out/flood.png"
set datafile separator ","
set title "Legitimate requests during a flood of $conns hostile connections"
set xlabel "seconds into the flood"
set ylabel "answered in (s)"
set key top right
set yrange [0:*]
plot "< grep ',unix,' $out/flood.csv" using 1:4 with points pt 7 title "Unix socket", \
     "< grep ',tcp,' $out/flood.csv" using 1:4 with points pt 5 title "TCP + MUNGE", \
     2 with lines dt 2 title "2 s"
EOF2
}

echo "== flood: $conns connections per transport for $flood_s s"
flood_all
plot_flood
flood_ok=$(awk -F, 'NR > 1 { n++; ok += $5 } END { printf "%.3f", n ? ok / n : 0 }' "$out/flood.csv")
echo "legitimate requests answered within 2 s: $flood_ok ($(($(wc -l < "$out/flood.csv") - 1)) requests)"

echo "== auth: messages per second, $runs rounds"
"$bin/bench-seal-rate" "$runs" 20000 | tee "$T/auth.txt"
auth=$(awk '{ print $4 / $2 }' "$T/auth.txt" | bench_stats)
munge=$(awk '{ print $6 / $2 }' "$T/auth.txt" | bench_stats)
echo "sealed / plain: $auth (median min max); a MUNGE credential per message / plain: $munge"

echo "== attacks: tests/security's cases"
(cd "$build" && ctest --output-on-failure -R '^security-' 2>&1) | tee "$T/attacks.txt" | grep -E 'Test +#' || true
attacks=$(grep -cE 'Test +#' "$T/attacks.txt" || true)
passed=$(grep -E 'Test +#' "$T/attacks.txt" | grep -c ' Passed' || true)

echo "== crash points"
crash="crash_points=- crash_points_failed=-"
if [ -x "$root/bench/crash-points.sh" ] || [ -f "$root/bench/crash-points.sh" ]; then
  line=$(MORPH_BUILD=$build MORPH_BENCH_NO_RECORD=1 bash "$root/bench/crash-points.sh" ${quick:+--quick} | tee /dev/stderr | grep '^RESULT' || true)
  crash=$(echo "$line" | grep -oE 'crash_points=[^ ]+ crash_points_failed=[^ ]+' || echo "$crash")
fi

result=$(echo "RESULT flood_legit_ok=$flood_ok auth_msg_overhead=${auth%% *} munge_per_msg_vs_plain=${munge%% *}" \
     "$crash attacks=$attacks attacks_refused_share=$(bench_ratio "$passed" "$attacks")")
echo "$result"
bench_record security "$result"
