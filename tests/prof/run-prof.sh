#!/bin/sh
# Integration tests of `morph prof` (tests/prof/CMakeLists.txt runs each
# case as its own test):
#   known MORPH CHECK OUT PROG         4 processes, matrix == the program's own
#   app MORPH CHECK OUT NAME OMPI MPICH ARGS...
#                                      Open MPI's own count (pml monitoring,
#                                      tuned collectives forced to the
#                                      algorithms morph assumes) bounds ours;
#                                      MPICH gives the same matrix
#   crash MORPH CHECK OUT PROG         a rank SIGKILLs itself: matrix readable
#   malleable MORPH CHECK OUT RUN PROG a live grow and shrink under morph run
#   bad MORPH CHECK OUT                bad command lines and folders
set -u
what=$1 morph=$2 check=$3 out=$4
shift 4
rm -rf "$out" && mkdir -p "$out" || exit 2
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fail() { echo "FAIL: $*"; exit 1; }

case $what in
known)
  "$morph" prof -o "$out/got" -n 4 -- "$1" "$out/want" || fail "morph prof exited with $?"
  "$check" equal "$out/want.bytes.mtx" "$out/got.bytes.mtx" || fail "bytes differ"
  "$check" equal "$out/want.msgs.mtx" "$out/got.msgs.mtx" || fail "messages differ"
  [ -s "$out/got.png" ] || fail "no heatmap"
  ;;
app)
  name=$1 ompi=$2 mpich=$3
  shift 3
  mkdir -p "$out/mon"
  # Open MPI tuned algorithm numbers: allgather(v) 4/3 ring, allreduce 3
  # recursive doubling, bcast 6 binomial, reduce 5 binomial, barrier 4
  # bruck (dissemination), alltoall(v) 2 pairwise, gather/scatter 1 linear.
  env OMPI_MCA_pml_monitoring_enable=2 OMPI_MCA_pml_monitoring_enable_output=3 \
      OMPI_MCA_pml_monitoring_filename="$out/mon/prof" OMPI_MCA_coll_tuned_use_dynamic_rules=1 \
      OMPI_MCA_coll_tuned_allgather_algorithm=4 OMPI_MCA_coll_tuned_allgatherv_algorithm=3 \
      OMPI_MCA_coll_tuned_allreduce_algorithm=3 OMPI_MCA_coll_tuned_bcast_algorithm=6 \
      OMPI_MCA_coll_tuned_reduce_algorithm=5 OMPI_MCA_coll_tuned_barrier_algorithm=4 \
      OMPI_MCA_coll_tuned_alltoall_algorithm=2 OMPI_MCA_coll_tuned_alltoallv_algorithm=2 \
      OMPI_MCA_coll_tuned_gather_algorithm=1 OMPI_MCA_coll_tuned_scatter_algorithm=1 \
      "$morph" prof -o "$out/ompi" -n 3 -- "$ompi" "$@" || fail "morph prof (Open MPI) exited with $?"
  "$check" size "$out/ompi.bytes.mtx" 3 || fail "not a 3 x 3 matrix"
  "$check" size "$out/ompi.msgs.mtx" 3 || fail "not a 3 x 3 message matrix"
  [ -s "$out/ompi.png" ] || fail "no heatmap"
  "$check" monitoring "$out/mon/prof" "$out/ompi.bytes.mtx" 128 || fail "Open MPI counted otherwise"
  "$morph" prof -o "$out/mpich" -n 3 -- "$mpich" "$@" || fail "morph prof (MPICH) exited with $?"
  # A farm hands out work to whichever worker asks first: same total only.
  if [ "$name" = farm ]; then
    "$check" totals "$out/ompi.bytes.mtx" "$out/mpich.bytes.mtx" || fail "MPICH total differs"
  else
    "$check" equal "$out/ompi.bytes.mtx" "$out/mpich.bytes.mtx" || fail "MPICH matrix differs"
  fi
  ;;
crash)
  "$morph" prof -o "$out/crash" -n 3 -- "$1" >"$out/log" 2>&1 && fail "a crashed run must not exit 0"
  cat "$out/log"
  "$check" size "$out/crash.bytes.mtx" 3 || fail "matrix unreadable after the crash"
  "$check" at "$out/crash.bytes.mtx" 1 2 1500 || fail "rank 1's traffic before the crash is missing"
  grep -q "reached neither MPI_Finalize" "$out/log" || fail "no warning about the crashed process"
  "$morph" prof --collect "$out/crash.ranks" -o "$out/again" --no-plot || fail "--collect failed"
  "$check" equal "$out/crash.bytes.mtx" "$out/again.bytes.mtx" || fail "--collect differs"
  ;;
malleable)
  "$morph" prof -o "$out/mal" --no-plot -- "$1" -n 2 --mechanism live --timeout 60 \
      --schedule "3@it5,2@it10" -- "$2" --size 120 --iters 15 --delay-ms 20 >"$out/log" 2>&1 ||
    { cat "$out/log"; fail "malleable run under morph prof exited with $?"; }
  cat "$out/log"
  grep -q "CHECK PASSED" "$out/log" || fail "the application failed"
  "$check" size "$out/mal.bytes.mtx" 2 || fail "no matrix of the initial world"
  grep -q "world 2 (spawned)" "$out/log" || fail "the spawned world is not reported"
  grep -q "external_bytes [1-9]" "$out/mal.bytes.mtx" || fail "traffic to spawned processes not counted as external"
  ;;
bad)
  "$morph" prof -- /bin/true 2>"$out/e1" && fail "a non-MPI program was accepted"
  grep -q "cannot tell which MPI" "$out/e1" || fail "unclear message: $(cat "$out/e1")"
  "$morph" prof --mpi lam -- /bin/true 2>"$out/e2"; [ $? -eq 2 ] || fail "bad --mpi accepted"
  grep -q "is not ompi or mpich" "$out/e2" || fail "unclear message: $(cat "$out/e2")"
  mkdir -p "$out/empty"
  "$morph" prof --collect "$out/empty" 2>"$out/e3" && fail "an empty folder was accepted"
  grep -q "no traffic files" "$out/e3" || fail "unclear message: $(cat "$out/e3")"
  "$morph" prof --collect "$out/none" 2>"$out/e4" && fail "a missing folder was accepted"
  grep -q "cannot open the folder" "$out/e4" || fail "unclear message: $(cat "$out/e4")"
  printf 'garbage that is long enough to be mistaken for a header if nobody checks the magic\n' \
    >"$out/empty/x.prof"
  "$morph" prof --collect "$out/empty" 2>"$out/e5" && fail "a foreign file was accepted"
  grep -q "x.prof: not a morph-prof traffic file" "$out/e5" || fail "unclear message: $(cat "$out/e5")"
  "$morph" prof -n 2 2>/dev/null && fail "no command accepted"
  ;;
*)
  echo "usage: run-prof.sh known|app|crash|malleable|bad ..."; exit 2 ;;
esac
echo "PASS: $what"
