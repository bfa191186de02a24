#!/bin/sh
# install-tree.sh STEP BUILD_DIR WORK_DIR [FLAVOUR]
# The installed-tree tests (docs/install.md). WORK_DIR/prefix holds the tree
# `cmake --install` made; every step but `install` uses only that tree, the
# way an application developer would, never the build folder.
#   install          cmake --install BUILD_DIR into WORK_DIR/prefix (fixture)
#   contents         libraries with SONAME, headers, .pc, CMake package,
#                    tools, man pages, docs; only public symbols exported;
#                    every command morph --help lists, with its man page;
#                    libmorph-prof found by morph prof; the SPANK plugin
#   pkgconfig FL     mpicc app.c $(pkg-config --cflags --libs morph-FL), run
#                    under the installed `morph run` with a grow and shrinks
#   cmake FL         an out-of-tree CMake project with find_package(morph),
#                    built and run the same way
#   missing-flavour  pkg-config and find_package asked for a flavour that
#                    was not built fail with the documented messages
#   fortran FL       the example in Fortran (minimal.f90, morph_f08) built
#                    with mpif90 and pkg-config's morph-FL-f08, run the same way
#   fortran-cmake FL the same built by a CMake project (morph::FL_f08)
#   python           the example in Python (minimal.py) with the installed
#                    package (PYTHONPATH=<prefix>/lib/python3/dist-packages)
#   python-pip       the package built by pip from a copy of src/python
#                    against the installed tree, then the example with it
#   deb              cpack -G DEB; the packages' control data and contents
#                    (morph and python3-morph); unpacked into
#                    WORK_DIR/deb-root (dpkg -x), the README's example built
#                    against it with pkg-config and run with resizes by the
#                    packaged `morph run`, and the Python example likewise
set -u
step=$1 build=$2 work=$3 fl=${4:-}
prefix=$work/prefix
example=$prefix/share/doc/morph/examples/minimal.c
schedule="4@it50,1@it100,3@it150"
expect="sum 200000000, expected 200000000, on 3 processes"

fail() { echo "install-tree $step: $*" >&2; exit 1; }

mpicc_of() { [ "$1" = mpich ] && echo mpicc.mpich || echo mpicc.openmpi; }
mpif90_of() { [ "$1" = mpich ] && echo mpif90.mpich || echo mpif90.openmpi; }
# Debian's python3 (its mpi4py), not another one on PATH.
python=/usr/bin/python3

# Runs the program under the installed launcher with the README's schedule.
# It must end with the right sum, after at least two resizes that worked; it
# ends on 3 processes unless morph run reports a resize rolled back (Open
# MPI's spawn hangs now and then, docs/runtime.md: the job then goes on at
# its old size, with correct data).
run_resized() {
  out=$(LD_LIBRARY_PATH=$prefix/lib timeout 100 "$prefix/bin/morph" run -n 2 \
        --schedule "$schedule" -- "$@" 2>&1)
  rc=$?
  printf '%s\n' "$out"
  [ $rc -eq 0 ] || fail "morph run exited with $rc"
  printf '%s\n' "$out" | grep -q "^sum 200000000, expected 200000000, on" || fail "wrong sum"
  ok=$(printf '%s\n' "$out" | grep -c "^morph run: job .* ok in")
  [ "$ok" -ge 2 ] || fail "$ok resizes worked, expected at least 2"
  printf '%s\n' "$out" | grep -q "$expect" ||
    printf '%s\n' "$out" | grep -q "^morph run: job .* failed: .*rolled back" ||
    fail "no line '$expect'"
  echo "install-tree $step: ok ($ok resizes)"
}

# pkgconfig_build MODULE COMPILER SOURCE OUT: the documented compile line
# with pkg-config's flags of the installed MODULE.
pkgconfig_build() {
  export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
  flags=$(pkg-config --cflags --libs "$1") || fail "pkg-config $1 failed"
  echo "pkg-config --cflags --libs $1: $flags"
  # shellcheck disable=SC2086
  "$2" "$3" $flags -o "$4" || fail "compile failed"
}

# cmake_project PROJECT DIR SOURCE: configures and builds the out-of-tree
# project tests/install/PROJECT in DIR against the installed tree.
cmake_project() {
  rm -rf "$2"
  cmake -S "$(dirname "$0")/$1" -B "$2" -DCMAKE_PREFIX_PATH="$prefix" -DMORPH_FLAVOUR="$fl" \
        -DMORPH_EXAMPLE="$3" > "$2.log" 2>&1 && cmake --build "$2" >> "$2.log" 2>&1 ||
    { cat "$2.log"; fail "the CMake project $1 did not build"; }
}

case $step in
install)
  rm -rf "$work" && mkdir -p "$work" || fail "cannot make $work"
  cmake --install "$build" --prefix "$prefix" > "$work/install.log" 2>&1 ||
    { cat "$work/install.log"; fail "cmake --install failed"; }
  echo "install-tree install: $(wc -l < "$work/install.log") lines of install log" ;;
contents)
  for f in include/morph.h include/morph/error.h include/morph/dmr.h bin/morph bin/morph-run \
           lib/cmake/morph/morphConfig.cmake lib/cmake/morph/morphConfigVersion.cmake \
           share/man/man1/morph.1.gz share/man/man1/morph-run.1.gz share/doc/morph/README.md \
           share/doc/morph/install.md share/doc/morph/api/README.md \
           share/doc/morph/api/morph.md "${example#$prefix/}"; do
    [ -e "$prefix/$f" ] || fail "missing $f"
  done
  for fl in $MORPH_FLAVOURS; do
    for f in lib/libmorph-$fl.so lib/libmorph-$fl.so.0 lib/libmorph-$fl.a lib/pkgconfig/morph-$fl.pc; do
      [ -e "$prefix/$f" ] || fail "missing $f"
    done
    soname=$(objdump -p "$prefix/lib/libmorph-$fl.so" | awk '/SONAME/ {print $2}')
    [ "$soname" = "libmorph-$fl.so.0" ] || fail "libmorph-$fl.so: SONAME '$soname'"
    leaked=$(nm -D --defined-only "$prefix/lib/libmorph-$fl.so" | awk '$3 ~ /^morph__/' | head -3)
    [ -z "$leaked" ] || fail "libmorph-$fl.so exports internals: $leaked"
    nm -D --defined-only "$prefix/lib/libmorph-$fl.so" | grep -q ' T morph_point@' ||
      fail "libmorph-$fl.so does not export morph_point"
    echo "libmorph-$fl.so: SONAME $soname, $(nm -D --defined-only "$prefix/lib/libmorph-$fl.so" | grep -c ' T ') functions exported"
  done
  for fl in $MORPH_FORTRAN_FLAVOURS; do
    for f in lib/libmorph-$fl-f08.so.0 lib/libmorph-$fl-f08.a lib/pkgconfig/morph-$fl-f08.pc \
             "lib/fortran/$MORPH_FORTRAN_TAG/morph-$fl/morph_f08.mod" \
             "lib/fortran/$MORPH_FORTRAN_TAG/morph-$fl/morph.mod" share/doc/morph/examples/minimal.f90; do
      [ -e "$prefix/$f" ] || fail "missing $f"
    done
  done
  # Every command the installed morph lists is installed, answers --help
  # and has its man page (prof was listed and missing, issue 26).
  cmds=$("$prefix/bin/morph" --help | awk '/^commands:/ {on = 1; next} on && !NF {exit} on {print $1}')
  [ -n "$cmds" ] || fail "morph --help lists no command"
  for c in $cmds; do
    "$prefix/bin/morph" "$c" --help > /dev/null 2>&1 || fail "morph $c --help fails in the installed tree"
    [ -e "$prefix/share/man/man1/morph-$c.1.gz" ] || fail "missing share/man/man1/morph-$c.1.gz"
  done
  echo "commands with man pages: $(echo $cmds)"
  # morph prof finds its preload library in the installed tree.
  for fl in $MORPH_FLAVOURS; do
    [ -e "$prefix/lib/libmorph-prof-$fl.so" ] || fail "missing lib/libmorph-prof-$fl.so"
    out=$(cd "$work" && "$prefix/bin/morph" prof --mpi "$fl" -o "$work/prof-$fl" -- /bin/true 2>&1)
    case $out in *"cannot find the profiler library"*) fail "installed morph prof: $out" ;; esac
  done
  if [ -n "$MORPH_SPANK" ]; then
    [ -e "$prefix/lib/morph_spank.so" ] || fail "missing lib/morph_spank.so (docs/slurm.md)"
  fi
  if [ -n "$MORPH_PYTHON_FLAVOUR" ]; then
    for f in lib/python3/dist-packages/morph/__init__.py share/doc/morph/examples/minimal.py \
             share/doc/morph/python.md share/doc/morph/fortran.md; do
      [ -e "$prefix/$f" ] || fail "missing $f"
    done
    ls "$prefix"/lib/python3/dist-packages/morph/_morph.*.so > /dev/null 2>&1 || fail "no extension _morph"
  fi
  echo "install-tree contents: ok" ;;
systemd-unit)
  # morphd's unit names the configured prefix's bin/; checked here against
  # the installed tree (program and man page) with systemd's own verifier.
  unit=$prefix/lib/systemd/system/morphd-slurm.service
  [ -e "$unit" ] || fail "missing lib/systemd/system/morphd-slurm.service"
  command -v systemd-analyze > /dev/null || { echo "no systemd-analyze: skipped"; exit 77; }
  configured=$(sed -n 's|^ExecStart=\(/[^ ]*\)/morph daemon .*|\1|p' "$unit")
  [ -n "$configured" ] || fail "no 'ExecStart=<bindir>/morph daemon' in $unit"
  sed "s|^ExecStart=$configured/|ExecStart=$prefix/bin/|" "$unit" > "$work/morphd-slurm.service"
  MANPATH=$prefix/share/man systemd-analyze verify "$work/morphd-slurm.service" ||
    fail "systemd-analyze verify morphd-slurm.service"
  echo "install-tree systemd-unit: systemd-analyze verify found nothing" ;;
pkgconfig)
  pkgconfig_build "morph-$fl" "$(mpicc_of "$fl")" "$example" "$work/app-pc.$fl"
  run_resized "$work/app-pc.$fl" ;;
cmake)
  cmake_project project "$work/cmake-$fl" "$example"
  run_resized "$work/cmake-$fl/app" ;;
fortran)
  pkgconfig_build "morph-$fl-f08" "$(mpif90_of "$fl")" "${example%.c}.f90" "$work/app-f.$fl"
  run_resized "$work/app-f.$fl" ;;
fortran-cmake)
  cmake_project project-fortran "$work/cmake-f-$fl" "${example%.c}.f90"
  run_resized "$work/cmake-f-$fl/app" ;;
python)
  PYTHONPATH=$prefix/lib/python3/dist-packages run_resized "$python" "${example%.c}.py" ;;
python-pip)
  # A copy: pip builds inside the folder it is given.
  rm -rf "$work/pysrc" "$work/pip" && cp -r "$(dirname "$0")/../../src/python" "$work/pysrc" ||
    fail "cannot copy src/python"
  (cd "$work" && PKG_CONFIG_PATH=$prefix/lib/pkgconfig "$python" -m pip install --no-build-isolation \
     --no-index --target "$work/pip" ./pysrc > "$work/pip.log" 2>&1) ||
    { cat "$work/pip.log"; fail "pip install failed"; }
  PYTHONPATH=$work/pip run_resized "$python" "${example%.c}.py" ;;
missing-flavour)
  msg=$(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags --libs morph-impi 2>&1) &&
    fail "pkg-config found a flavour that was not built"
  printf '%s\n' "$msg"
  printf '%s\n' "$msg" | grep -q "Package morph-impi was not found" || fail "unexpected pkg-config message"
  src=$(dirname "$0")/project
  msg=$(cmake -S "$src" -B "$work/cmake-impi" -DCMAKE_PREFIX_PATH="$prefix" -DMORPH_FLAVOUR=impi \
        -DMORPH_EXAMPLE="$example" 2>&1) && fail "find_package found a flavour that was not built"
  printf '%s\n' "$msg" | grep "morph:"
  printf '%s\n' "$msg" | tr -s ' \n' ' ' | grep -q "no 'impi' flavour in this installation" ||
    fail "find_package did not name the missing flavour"
  echo "install-tree missing-flavour: ok" ;;
deb)
  rm -rf "$work/deb" "$work/deb-root" && mkdir -p "$work/deb" || fail "cannot make $work/deb"
  (cd "$build" && cpack -G DEB -B "$work/deb" > "$work/deb/cpack.log" 2>&1) ||
    { cat "$work/deb/cpack.log"; fail "cpack failed"; }
  deb=$(ls "$work"/deb/morph_*.deb) || fail "no morph_*.deb"
  if [ -n "$MORPH_PYTHON_FLAVOUR" ]; then
    pydeb=$(ls "$work"/deb/python3-morph_*.deb) || fail "no python3-morph_*.deb"
    dpkg-deb --field "$pydeb" Package Version Depends
    dpkg-deb --field "$pydeb" Depends | grep -q "python3-mpi4py, python3-numpy" || fail "python3-morph: Depends"
    dpkg-deb --contents "$pydeb" | grep -q " ./usr/lib/python3/dist-packages/morph/__init__.py" ||
      fail "python3-morph: no morph/__init__.py"
  fi
  dpkg-deb --field "$deb" Package Version Depends
  dpkg-deb --field "$deb" Depends | grep -q "openmpi-bin | mpich" || fail "no launcher dependency"
  for fl in $MORPH_FLAVOURS; do
    for f in usr/lib/libmorph-$fl.so.0 usr/lib/pkgconfig/morph-$fl.pc; do
      dpkg-deb --contents "$deb" | grep -q " ./$f" || fail "$f not in the package"
    done
  done
  for f in usr/bin/morph usr/bin/morph-run usr/include/morph.h usr/lib/cmake/morph/morphConfig.cmake \
           usr/share/man/man1/morph.1.gz usr/share/doc/morph/examples/minimal.c \
           usr/bin/morph-prof usr/share/man/man1/morph-prof.1.gz \
           ${MORPH_SPANK:+usr/lib/morph_spank.so}; do
    dpkg-deb --contents "$deb" | grep -q " ./$f" || fail "$f not in the package"
  done
  for fl in $MORPH_FLAVOURS; do
    dpkg-deb --contents "$deb" | grep -q " ./usr/lib/libmorph-prof-$fl.so" ||
      fail "usr/lib/libmorph-prof-$fl.so not in the package"
  done
  dpkg -x "$deb" "$work/deb-root" || fail "dpkg -x failed"
  prefix=$work/deb-root/usr
  example=$prefix/share/doc/morph/examples/minimal.c
  fl=${MORPH_FLAVOURS%% *}
  flags=$(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags --libs "morph-$fl") ||
    fail "pkg-config morph-$fl from the package failed"
  # shellcheck disable=SC2086
  "$(mpicc_of "$fl")" "$example" $flags -o "$work/deb/app.$fl" || fail "compile failed"
  run_resized "$work/deb/app.$fl"
  if [ -n "$MORPH_PYTHON_FLAVOUR" ]; then
    dpkg -x "$pydeb" "$work/deb-root" || fail "dpkg -x python3-morph failed"
    PYTHONPATH=$prefix/lib/python3/dist-packages run_resized "$python" "${example%.c}.py"
  fi ;;
*) fail "unknown step" ;;
esac
