#!/usr/bin/env bash
# What morphd costs slurmctld, on the emulated cluster at its largest
# (docs/slurm.md, "At scale").
#
#   bench/slurm-scale.sh [--nodes N] [--jobs J] [--minutes W] [--rounds R] [--modes LIST]
#                        [--out DIR] [--name NAME] [--short]
#
# Its own Slurm instance (scripts/slurm.sh --name NAME, default
# bench-scale-<pid>, N nodes, default 20, the emulated cluster's largest),
# taken down on every way out. One queue for the whole run, submitted
# once: at least J jobs pending (default 2000) through every window, in
# Slurm's order (FIFO): foreign jobs of user nobody, 9 in 10 as tasks of
# job arrays of 20 (`sbatch --array`), 1 in 10 alone, each one CPU for
# 40-80 s (time limit 3 min); every 50th a morph job of root (`morph
# submit --slurm`, Jacobi at 2 nodes, limits 1-2 nodes, preferring 1, time
# limit 4 min), so that morph jobs keep reaching the head of the queue.
#
# Then windows of W minutes (default 3), R rounds (default 3) of the modes
# in LIST (default none,morphd,squeue), one after the other on the same
# queue, so that the machine's load drifts alike over all of them:
#   none     the queue alone (the morph jobs run unmanaged at their size:
#            morph run retries its morphd every few seconds)
#   morphd   morphd --backend slurm -v, started at the window's start and
#            stopped at its end (the morph jobs' relays reattach; those
#            of the last window are adopted from the journal)
#   squeue   a plain `squeue` of user nobody every 10 s (a monitoring script)
# Every minute sdiag (as nobody) is saved; the differences between two give
# slurmctld's RPCs by type and by user, the mean RPC time (all RPCs but
# sdiag's own), the slowest type's mean, and the backfill and main
# scheduler's cycles. morphd (user root) says in its log, a line a minute
# at -v, what it sent (`slurm: 60 s: ... RPCs`, counted by the backend),
# how many of its pictures Slurm answered "no change", its loop and
# decision times and its RSS (`loop: 60 s: ...`).
#
# Writes DIR/scale.csv (a row a minute), DIR/scale.png (gnuplot), the raw
# sdiag outputs and morphd's logs, and ends with
#   RESULT scale_nodes=N scale_pending_jobs=<fewest pending at a window's start>
#          morphd_rpc_per_s=<morphd's RPCs over its windows' seconds>
#          slurmctld_rpc_ms_with_vs_without=<mean RPC time, morphd windows / none>
#          morphd_loop_p99_ms=<the largest minute's p99> morphd_rss_mb=<largest>
#          view_100k_jobs_ms=<bench-slurm-view: view + snapshot + decision>
#          ... (more keys: the others' RPC time, squeue, backfill, no-change share)
# --short: the CTest version: 500 jobs, 1-minute windows, one round of
# none and morphd; it fails if morphd sent more than 1 RPC a second or
# logged a BUG line.
set -euo pipefail
export LC_ALL=C
. "$(dirname "$0")/lib.sh"
bench_init bench/slurm-scale.sh
nodes=20 jobs=2000 minutes=3 rounds=3 modes=none,morphd,squeue out= name=bench-scale-$$ short=0
bench_parse "nodes:,jobs:,minutes:,rounds:,modes:,out:,name:,short" \
  "[--nodes N] [--jobs J] [--minutes W] [--rounds R] [--modes LIST] [--out DIR] [--name NAME] [--short]" "$@"
if [ "$short" = 1 ]; then
  jobs=500 minutes=1 rounds=1 modes=none,morphd
fi
[ "$(id -u)" = 0 ] || { echo "bench/slurm-scale.sh needs root (an emulated cluster): skipped" >&2; exit 77; }
case $build in /tmp/*) echo "bench/slurm-scale.sh: the build tree is under /tmp, private on each emulated host" >&2; exit 2 ;; esac
for p in morph-daemon morph jacobi.ompi; do
  [ -x "$bin/$p" ] || { echo "bench/slurm-scale.sh: no $bin/$p: build first" >&2; exit 2; }
done
SL="bash $root/scripts/slurm.sh --name $name"
. "$root/bench/slurm-lib.sh"
out=${out:-$build/bench-slurm-scale-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$out/sdiag" "$out/jobs"
U="setpriv --reuid=65534 --regid=65534 --clear-groups" # user nobody
poller=
up=0
trap 'set +e; [ -z "$poller" ] || kill "$poller" 2>/dev/null || true; stop_morphd
  [ $up = 0 ] || timeout 180 $SL down >/dev/null 2>&1 || echo "bench/slurm-scale.sh: $name not down" >&2' EXIT
trap 'exit 130' INT TERM

up=1
timeout 300 $SL up "$nodes" > "$out/up.log"
eval "$($SL env)"
addr=$MORPH_CLUSTER_HEAD:$((20000 + RANDOM % 20000))
cpus=$(s sinfo -h -N -n node1 -o %c)

# The queue, in one shell on the head: J jobs, plus as many as the run
# will finish (one a CPU a minute), so that J stay pending to the end.
submit_queue() {
  local total=$((jobs + nodes * cpus * minutes * rounds * $(tr ',' '\n' <<<"$modes" | wc -l)))
  cat > "$out/submit.sh" <<EOF
set -u
export OMPI_MCA_mpi_yield_when_idle=1 SBATCH_TIMELIMIT=4
i=0
while [ \$i -lt $total ]; do
  if [ \$((i % 50)) -eq 0 ]; then
    "$bin/morph" submit --slurm --server "$addr" --ppn 2 -n 4 --min 2 --max 4 --pref 2 -J "m-\$i" \
      -o "$out/jobs/m-\$i.out" -q "$bin/jacobi.ompi" --iters 200 --work-ms 400 >/dev/null || exit 1
    i=\$((i + 1))
  elif [ \$((i % 10)) -eq 1 ]; then
    $U sbatch -Q -n1 -t 3 -D / -o /dev/null -J "f-\$i" --wrap "sleep \$((40 + RANDOM % 41))" || exit 1
    i=\$((i + 1))
  else
    $U sbatch -Q -n1 -t 3 -D / -o /dev/null -J "a-\$i" --array=0-19 --wrap "sleep \$((40 + RANDOM % 41))" || exit 1
    i=\$((i + 20))
  fi
done
EOF
  timeout 1800 $SL exec bash "$out/submit.sh"
  echo "submitted $total jobs ($(date +%T))"
}

pending() { s squeue -h -r -t PD -o %i | wc -l; }
running() { s squeue -h -r -t R -o %i | wc -l; }

snap() { # FILE: sdiag as nobody (its own RPC is left out of the sums)
  s $U sdiag > "$1"
}

# sdiag_kv FILE: "key value" lines: rpc_count/rpc_time per type and user,
# backfill and main scheduler cycles (count, sum of microseconds, last).
sdiag_kv() {
  awk '
    /^Main schedule statistics/ { sec = "sched" } /^Backfilling stats/ { sec = "bf" }
    /^Remote Procedure Call statistics by message type/ { sec = "type" }
    /^Remote Procedure Call statistics by user/ { sec = "user" }
    /^Pending RPC/ { sec = "" }
    (sec == "sched" || sec == "bf") && /Total cycles:/ { n[sec] = $NF; print sec "_cycles", $NF }
    (sec == "sched" || sec == "bf") && /Mean cycle:/ { print sec "_sum", $NF * n[sec] }
    (sec == "sched" || sec == "bf") && /Last cycle:/ { print sec "_last", $NF }
    (sec == "type" || sec == "user") && /count:/ {
      c = $0; sub(/.*count:/, "", c); sub(/ .*/, "", c)
      t = $0; sub(/.*total_time:/, "", t)
      print sec ":" $1 "_count", c; print sec ":" $1 "_time", t }' "$1"
}

# The RPC types morphd sends (and sdiag's own): the others are everyone else's.
morphd_types='REQUEST_(JOB_INFO|NODE_INFO|RESERVATION_INFO|JOB_INFO_SINGLE|UPDATE_JOB|RESOURCE_ALLOCATION|KILL_JOB|PING|STATS_INFO)_'

# row MODE ROUND MINUTE A B [MORPHD_LINE LOOP_LINE RSS]: the CSV row of the minute between
# sdiag outputs A and B.
row() {
  local mode=$1 r=$2 m=$3
  join -a1 -a2 -e 0 -o 0,1.2,2.2 <(sdiag_kv "$4" | sort) <(sdiag_kv "$5" | sort) |
    awk -v mode="$mode" -v r="$r" -v m="$m" -v md="${6:-}" -v lp="${7:-}" -v rss="${8:-}" \
      -v mine="$morphd_types" '
      function d(k) { return v[k] }
      { v[$1] = $3 - $2 }
      END {
        for (k in v) {
          if (k ~ /^type:/ && k ~ /_count$/ && k !~ /REQUEST_STATS_INFO/) {
            t = k; sub(/_count$/, "_time", t); n += v[k]; us += v[t]
            if (v[k] > 0 && v[t] / v[k] > max) max = v[t] / v[k] }
          # the types morphd never sends: how slurmctld serves everyone else
          if (k ~ /^type:/ && k ~ /_count$/ && k !~ mine) {
            t = k; sub(/_count$/, "_time", t); on += v[k]; ous += v[t] }
          if (k ~ /^user:root_count$/) { rn = v[k]; rus = v["user:root_time"] }
        }
        split(md, x, " "); split(lp, y, " ")
        printf "%s,%d,%d,%d,%.2f,%.3f,%.3f,%.3f,%.3f,%d,%d,%d,%d,%d,%d,%d,%.1f,%.1f,%s,%s,%s,%s,%s,%s,%s,%s\n",
          mode, r, m, n, n / 60, (n ? us / n / 1000 : 0), max / 1000, (rn ? rus / rn / 1000 : 0),
          (on > 0 ? ous / on / 1000 : 0), rn, on,
          d("type:REQUEST_JOB_INFO_count"), d("type:REQUEST_NODE_INFO_count"),
          d("type:REQUEST_RESERVATION_INFO_count"), d("bf_cycles"), d("sched_cycles"),
          (d("bf_cycles") > 0 ? d("bf_sum") / d("bf_cycles") / 1000 : 0),
          (d("sched_cycles") > 0 ? d("sched_sum") / d("sched_cycles") / 1000 : 0),
          (x[1] == "" ? "" : x[1]), (x[2] == "" ? "" : x[2]), (x[3] == "" ? "" : x[3]),
          (y[1] == "" ? "" : y[1]), (y[2] == "" ? "" : y[2]), (y[3] == "" ? "" : y[3]),
          (y[4] == "" ? "" : y[4]), rss }'
}

# morphd's lines a minute: "RPCS PICTURES NOCHANGE" and "P50 P99 DECIDE_P50 DECIDE_P99".
md_line() { # LOG K
  sed -n 's/.*slurm: [0-9]* s: \([0-9]*\) RPCs .*; \([0-9]*\) pictures (\([0-9]*\) no change).*/\1 \2 \3/p' "$1" |
    sed -n "${2}p"
}
loop_line() { # LOG K
  sed -n 's/.*loop: [0-9]* s: [0-9]* turns, p50 \([0-9.]*\) ms, p99 \([0-9.]*\) ms, max [0-9.]* ms; [0-9]* decisions, p50 \([0-9.]*\) ms, p99 \([0-9.]*\) ms.*/\1 \2 \3 \4/p' "$1" |
    sed -n "${2}p"
}

# window MODE ROUND: W minutes of MODE, sdiag every minute.
window() {
  local mode=$1 r=$2 t0 m md=$out/morphd-$2 f rss=()
  echo "$mode $r $(pending)" >> "$out/pending.txt"
  if [ "$mode" = morphd ]; then
    start_morphd "$md" --interval 5
  elif [ "$mode" = squeue ]; then
    timeout $((minutes * 60 + 30)) $SL exec bash -c "for ((k = 0; k < $((minutes * 6)); k++)); do
      $U squeue > /dev/null; sleep 10; done" &
    poller=$!
  fi
  t0=$(date +%s.%N)
  snap "$out/sdiag/$mode-$r-0.txt"
  for ((m = 1; m <= minutes; m++)); do
    sleep "$(awk -v t0="$t0" -v m="$m" -v now="$(date +%s.%N)" 'BEGIN { d = t0 + 60 * m - now; print (d > 0 ? d : 0) }')"
    snap "$out/sdiag/$mode-$r-$m.txt"
    [ -z "$mdpid" ] || rss+=("$(awk '/VmRSS/ { printf "%.1f", $2 / 1024 }' "/proc/$mdpid/status" 2>/dev/null)")
  done
  [ "$mode" != morphd ] || { sleep 2; stop_morphd; }
  [ -z "$poller" ] || { kill "$poller" 2>/dev/null; wait "$poller" 2>/dev/null || true; poller=; }
  for ((m = 1; m <= minutes; m++)); do
    f=$out/sdiag/$mode-$r
    if [ "$mode" = morphd ]; then
      row "$mode" "$r" "$m" "$f-$((m - 1)).txt" "$f-$m.txt" "$(md_line "$md/morphd.log" "$m")" \
        "$(loop_line "$md/morphd.log" "$m")" "${rss[$((m - 1))]:-}"
    else
      row "$mode" "$r" "$m" "$f-$((m - 1)).txt" "$f-$m.txt"
    fi >> "$out/scale.csv"
  done
  echo "window $mode $r done ($(date +%T), load $(cut -d' ' -f1 /proc/loadavg))"
}

echo "mode,round,minute,rpcs,rpc_per_s,rpc_ms,slowest_type_ms,root_rpc_ms,others_rpc_ms,root_rpcs,others_rpcs,job_info,node_info,resv_info,bf_cycles,sched_cycles,bf_cycle_ms,sched_cycle_ms,morphd_rpcs,morphd_pictures,morphd_nochange,loop_p50_ms,loop_p99_ms,decide_p50_ms,decide_p99_ms,morphd_rss_mb" \
  > "$out/scale.csv"
submit_queue
until_true 120 eval '[ "$(running)" -ge $((nodes * cpus / 2)) ]' || true
for ((r = 1; r <= rounds; r++)); do
  for mode in ${modes//,/ }; do window "$mode" "$r"; done
done
s scancel -u nobody || true
s scancel -u root || true
if [ -x "$bin/bench-slurm-view" ]; then
  "$bin/bench-slurm-view" --jobs 100000 --nodes 10000 > "$out/view.txt"
  cat "$out/view.txt"
else
  echo "no $bin/bench-slurm-view: view_100k_jobs_ms left out" > "$out/view.txt"
fi

# Sums over the windows of each mode.
summary() { # MODE COLUMN: mean of the column over the mode's minutes
  awk -F, -v mode="$1" -v c="$2" 'NR > 1 && $1 == mode && $c != "" { s += $c; n++ } END { printf "%.3f", n ? s / n : 0 }' "$out/scale.csv"
}
col() { head -1 "$out/scale.csv" | tr ',' '\n' | grep -nx "$1" | cut -d: -f1; }
# The mean RPC time over a mode's windows: all its RPCs' time over their count.
rpc_ms() { # MODE COLUMN_OF_MS COLUMN_OF_COUNT
  awk -F, -v mode="$1" -v a="$2" -v b="$3" 'NR > 1 && $1 == mode { s += $a * $b; n += $b } END { printf "%.3f", n ? s / n : 0 }' "$out/scale.csv"
}
printf "\n%-34s %10s %10s %10s\n" "per minute, mean over windows" none morphd squeue
for c in rpc_per_s rpc_ms slowest_type_ms root_rpcs others_rpc_ms job_info node_info bf_cycle_ms sched_cycle_ms; do
  printf "%-34s %10s %10s %10s\n" "$c" "$(summary none "$(col $c)")" "$(summary morphd "$(col $c)")" \
    "$(summary squeue "$(col $c)")"
done
ms_none=$(rpc_ms none "$(col rpc_ms)" "$(col rpcs)")
ms_md=$(rpc_ms morphd "$(col rpc_ms)" "$(col rpcs)")
ms_sq=$(rpc_ms squeue "$(col rpc_ms)" "$(col rpcs)")
oms_none=$(rpc_ms none "$(col others_rpc_ms)" "$(col others_rpcs)")
oms_md=$(rpc_ms morphd "$(col others_rpc_ms)" "$(col others_rpcs)")
md_rpcs=$(awk -F, -v c="$(col morphd_rpcs)" 'NR > 1 && $1 == "morphd" { s += $c; n++ } END { printf "%.3f", n ? s / (60 * n) : 0 }' "$out/scale.csv")
md_same=$(awk -F, -v p="$(col morphd_pictures)" -v q="$(col morphd_nochange)" 'NR > 1 && $1 == "morphd" { a += $p; b += $q } END { printf "%.3f", a ? b / a : 0 }' "$out/scale.csv")
p99=$(awk -F, -v c="$(col loop_p99_ms)" 'NR > 1 && $1 == "morphd" && $c > m { m = $c } END { printf "%.3f", m }' "$out/scale.csv")
dp99=$(awk -F, -v c="$(col decide_p99_ms)" 'NR > 1 && $1 == "morphd" && $c > m { m = $c } END { printf "%.3f", m }' "$out/scale.csv")
rss=$(awk -F, -v c="$(col morphd_rss_mb)" 'NR > 1 && $1 == "morphd" && $c > m { m = $c } END { printf "%.1f", m }' "$out/scale.csv")
root_extra=$(awk -F, -v c="$(col root_rpcs)" 'NR > 1 { s[$1] += $c; n[$1]++ } END { printf "%.3f", (n["morphd"] ? s["morphd"] / n["morphd"] : 0) / 60 - (n["none"] ? s["none"] / n["none"] : 0) / 60 }' "$out/scale.csv")
view=$(sed -n 's/.*RESULT.* view_100k_jobs_ms=\([0-9.]*\).*/\1/p' "$out/view.txt")
gnuplot <<GP 2>/dev/null || echo "(no plot: gnuplot failed)"
set terminal pngcairo size 1000,520 font ",10"
set output "$out/scale.png"
set datafile separator ","
set multiplot layout 1,2 title "slurmctld with a queue of $jobs jobs on $nodes nodes, per minute"
set xlabel "minute of the run"
set key top left
set grid ytics
set ylabel "RPCs per second"
plot "$out/scale.csv" every ::1 using (\$0+1):(strcol(1) eq "none" ? \$5 : 1/0) with points pt 7 title "none", \
     "" every ::1 using (\$0+1):(strcol(1) eq "morphd" ? \$5 : 1/0) with points pt 5 title "morphd", \
     "" every ::1 using (\$0+1):(strcol(1) eq "squeue" ? \$5 : 1/0) with points pt 9 title "squeue every 10 s", \
     "" every ::1 using (\$0+1):(strcol(1) eq "morphd" ? \$19/60 : 1/0) with linespoints pt 4 title "morphd's own"
set ylabel "mean RPC time (ms)"
plot "$out/scale.csv" every ::1 using (\$0+1):(strcol(1) eq "none" ? \$6 : 1/0) with points pt 7 title "none", \
     "" every ::1 using (\$0+1):(strcol(1) eq "morphd" ? \$6 : 1/0) with points pt 5 title "morphd", \
     "" every ::1 using (\$0+1):(strcol(1) eq "squeue" ? \$6 : 1/0) with points pt 9 title "squeue every 10 s"
unset multiplot
GP
echo "files: $out"
echo "RESULT scale_nodes=$nodes scale_pending_jobs=$(awk 'NR == 1 || $3 < m { m = $3 } END { print m }' "$out/pending.txt") morphd_rpc_per_s=$md_rpcs slurmctld_rpc_ms_with_vs_without=$(bench_ratio "$ms_md" "$ms_none") morphd_loop_p99_ms=$p99 morphd_rss_mb=$rss view_100k_jobs_ms=${view:-0} slurmctld_rpc_ms_others_with_vs_without=$(bench_ratio "$oms_md" "$oms_none") slurmctld_rpc_ms_squeue_vs_without=$(bench_ratio "$ms_sq" "$ms_none") morphd_nochange_share=$md_same morphd_decide_p99_ms=$dp99 root_rpc_per_s_with_minus_without=$root_extra minutes=$minutes rounds=$rounds"
if [ "$short" = 1 ]; then
  bad=$(cat "$out"/morphd-*/morphd.log | grep -c 'BUG' || true)
  [ "$bad" = 0 ] || { echo "FAIL: $bad BUG lines in morphd's log" >&2; exit 1; }
  awk -v x="$md_rpcs" 'BEGIN { exit !(x > 0 && x <= 1) }' ||
    { echo "FAIL: morphd sent $md_rpcs RPCs a second (at most 1)" >&2; exit 1; }
fi
