#!/usr/bin/env bash
# Installs every Debian package morph needs. Idempotent and non-interactive:
# it installs only what is missing and does nothing when all is there.
set -euo pipefail

PACKAGES=(
  build-essential cmake pkg-config
  openmpi-bin libopenmpi-dev          # the MPI with dynamic processes (live)
  mpich libmpich-dev                  # second MPI: relaunch mechanism
  libjansson-dev                      # protocol and workload JSON
  libsqlite3-dev sqlite3              # morphd journal
  gnuplot-nox                         # plots
  libscotch-dev                       # process mapping
  libsimgrid-dev                      # SMPI (smpicc, smpirun): bench/reproduce-tofa.sh
  libcmocka-dev                       # unit tests
  procps psmisc                       # pgrep/pkill/killall used by tests
  python3                             # tests/architecture/check-cycles.py
  iproute2 util-linux                 # emulated hosts: ip, nsenter, unshare, flock, setpriv
  openssh-server openssh-client       # an sshd per emulated host, mpirun over ssh
  munge libmunge-dev                  # MUNGE: one munged per emulated cluster; morph's TCP auth
  libssl-dev                          # libcrypto's HMAC: every line over TCP is sealed
  slurm-wlm slurmdbd libslurm-dev     # scripts/slurm.sh; morphd's Slurm backend
  mariadb-server                      # slurmdbd's database (more than one resize of a job)
  clang                               # libFuzzer harnesses (tests/fuzz, MORPH_FUZZ)
  help2man                            # man pages of the tools (packaging/)
  gfortran                            # the Fortran modules (src/fortran), apps/jacobi-f
  python3-dev python3-mpi4py python3-numpy      # the Python package (src/python), apps/jacobi-py
  python3-setuptools python3-wheel python3-pip  # pip install of src/python, without network
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#PACKAGES[@]} packages present"
  exit 0
fi
echo "setup: installing ${missing[*]}"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
