#!/bin/sh
# The whole TOFA pipeline in miniature (bench/reproduce-tofa.sh is the full
# study): a LAMMPS-like proxy on a 2x2x2 grid profiled with morph prof,
# placed on a 4x4x4 torus with 4 nodes likely to fail (pf 0.3) by Slurm's
# order and by TOFA, each placement simulated in SimGrid (SMPI), then two
# batches of 20 instances through the abort model; one aborting and one
# surviving draw are replayed in SimGrid with zero-bandwidth links, which
# must abort exactly when the model says so.
# usage: smpi-batch.sh MORPH TOFA-BENCH PROXY.ompi PROXY.smpi OUTDIR
set -u
morph=$1 tb=$2 real=$3 smpi=$4 out=$5
rm -rf "$out" && mkdir -p "$out" && cd "$out" || exit 2
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fail() { echo "FAIL: $*"; exit 1; }
args="--grid 2x2x2 --halo 4096 --fft 2048"

# sim HOSTS [FAILED]: simulated seconds, or "abort".
sim() {
  "$tb" platform --torus 4x4x4 --hostfile "$1" ${2:+--failed "$2"} -o "$1.xml" || fail "platform"
  # The collective algorithms the profiler assumes (bench/reproduce-tofa.sh).
  if smpirun -np 8 -platform "$1.xml" -hostfile "$1" --cfg=smpi/simulate-computation:no \
      --log=root.thres:critical --cfg=smpi/barrier:ompi_bruck --cfg=smpi/bcast:binomial_tree \
      --cfg=smpi/reduce:binomial --cfg=smpi/allreduce:rdb --cfg=smpi/alltoall:basic_linear \
      "$smpi" $args --steps 20 >"$1.log" 2>&1; then
    awk '/^proxy-lammps:/ {print $(NF-1)}' "$1.log"
  else
    echo abort
  fi
}

"$morph" prof -q --no-plot -o lammps -n 8 -- "$real" $args --steps 10 || fail "profiling"
validated=0
for b in 1 2; do
  "$tb" faults --torus 4x4x4 --count 4 --pf 0.3 --seed "$b" -o "f$b" || fail "faults"
  for s in default tofa; do
    "$tb" place --torus 4x4x4 --matrix lammps.bytes.mtx --strategy $s --faults "f$b" -o "$b-$s" \
      >"$b-$s.place" || fail "place $s"
    cat "$b-$s.place"
    [ $s = tofa ] && ! grep -q "on_faulty=0 " "$b-$s.place" && fail "TOFA put a rank on a faulty node"
    t=$(sim "$b-$s")
    echo "batch $b $s: run time $t s"
    awk -v t="$t" 'BEGIN {exit !(t + 0 > 0)}' || fail "no run time for $s ($t)"
    "$tb" batch --torus 4x4x4 --matrix lammps.bytes.mtx --hostfile "$b-$s" --faults "f$b" --time "$t" \
      --instances 20 --seed "$b" --draws-out "$b-$s.draws" || fail "batch model"
    for want in aborts survives; do
      line=$(grep "^$want " "$b-$s.draws" | head -1)
      [ -n "$line" ] || continue
      echo "$line" | cut -d' ' -f2- | tr ' ' '\n' >"$b-$s.failed"
      got=$(sim "$b-$s" "$b-$s.failed")
      [ "$got" = abort ] && got=aborts || got=survives
      echo "replayed draw ($line): SimGrid $got"
      [ "$got" = "$want" ] || fail "the abort model says $want, SimGrid $got"
      validated=$((validated + 1))
    done
  done
done
[ $validated -ge 1 ] || fail "no draw to replay"
echo "PASS: $validated draws replayed in SimGrid agree with the model"
