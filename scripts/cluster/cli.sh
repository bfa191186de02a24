# shellcheck shell=bash disable=SC2034  # CLI_NAME, CLI_ARGS: for the sourcing script
# Sourced by scripts/cluster.sh and scripts/slurm.sh: the command line they
# share.

# cli_parse USAGE-FUNCTION ARGS...: the instance (--name NAME, else
# $MORPH_CLUSTER, else "default"; it names files and folders, so letters,
# digits, _ . - only) into CLI_NAME, the command and its
# arguments into CLI_ARGS; USAGE-FUNCTION on -h or no command.
cli_parse() {
  local usage=$1
  shift
  CLI_NAME=${MORPH_CLUSTER:-default}
  while [ $# -gt 0 ]; do
    case $1 in
    --name)
      [ $# -ge 2 ] || "$usage"
      CLI_NAME=$2
      shift 2
      ;;
    --name=*)
      CLI_NAME=${1#--name=}
      shift
      ;;
    -h | --help) "$usage" ;;
    *) break ;;
    esac
  done
  [ $# -ge 1 ] || "$usage"
  if ! [[ $CLI_NAME =~ ^[A-Za-z0-9][A-Za-z0-9_.-]{0,31}$ ]]; then
    echo "bad instance name '$CLI_NAME' (letters, digits, _ . -; at most 32)" >&2
    exit 2
  fi
  CLI_ARGS=("$@")
}

# cli_need_root PROGRAM WHY: without root, a clear message and exit 77
# (CTest's SKIP_RETURN_CODE), so tests are reported as skipped by name.
cli_need_root() {
  if [ "$EUID" -ne 0 ]; then
    echo "$1: needs root ($2): skipped" >&2
    exit 77
  fi
}
