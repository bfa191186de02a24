#!/usr/bin/env bash
# Runs a command beside a private munged (its own key, socket and state in a
# temporary folder), with MORPH_MUNGE_SOCKET naming its socket; stops it and
# removes the folder afterwards, whatever the command did. Needs root (munged
# runs as the munge user) and the munge package: otherwise exits 77, which
# CTest reports as skipped.
#   with-munged.sh CMD [ARGS...]
set -u
if [ "$(id -u)" -ne 0 ] || ! command -v munged > /dev/null || ! id munge > /dev/null 2>&1; then
  echo "with-munged: needs root and the munge package (munged, user munge): skipped" >&2
  exit 77
fi
dir=$(mktemp -d /tmp/morph-munge.XXXXXX)
pid=""
cleanup() {
  if [ -n "$pid" ]; then
    kill "$pid" 2> /dev/null
    for _ in $(seq 50); do kill -0 "$pid" 2> /dev/null || break; sleep 0.1; done
  fi
  rm -rf "$dir"
}
trap cleanup EXIT
# munged insists on a socket folder everyone may traverse and a private key.
mkdir -p "$dir/run" "$dir/state"
chmod 755 "$dir" "$dir/run"
chmod 700 "$dir/state"
head -c 1024 /dev/urandom > "$dir/state/key"
chmod 600 "$dir/state/key"
chown -R munge:munge "$dir/run" "$dir/state"
runuser -u munge -- munged --socket="$dir/run/sock" --key-file="$dir/state/key" \
  --pid-file="$dir/state/pid" --log-file="$dir/state/log" --seed-file="$dir/state/seed" || {
  echo "with-munged: munged did not start:" >&2
  cat "$dir/state/log" >&2
  exit 1
}
for _ in $(seq 50); do [ -s "$dir/state/pid" ] && break; sleep 0.1; done
pid=$(cat "$dir/state/pid")
export MORPH_MUNGE_SOCKET="$dir/run/sock"
"$@"
