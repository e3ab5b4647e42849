# The common start of the remote tests, sourced with the shim and the bench
# apps' folder as $1 and $2 and REMOTE_PORT_BASE set: sets root, shim, bin
# and tmp, skips (exit 77, ctest: skipped) where scripts/build-pocl-remote.sh
# has not been run, starts two pocld servers on loopback ports of this run's
# own (parallel runs and a user's servers do not collide), exports the
# client's environment, and stops them at exit (killing $app first if set).
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
shim=$(realpath -e "$1") || { echo "FAIL: shim $1 not found"; exit 1; }
bin=$2
prefix=$(bash "$root/scripts/build-pocl-remote.sh" --print)
if [ ! -f "$(dirname "$prefix")/DONE" ]; then
  echo "SKIP: no PoCL-Remote build at $(dirname "$prefix") (run: bash scripts/build-pocl-remote.sh, about 6 min on 2 cores)"
  exit 77
fi
# A build that predates the script's current PoCL patches (its DONE names the patch level) is
# brought up to date first (one or two files rebuilt, seconds), else tested as it is.
level=$(sed -n 's/^patch_level=//p' "$root/scripts/build-pocl-remote.sh")
if ! grep -q "patch $level\$" "$(dirname "$prefix")/DONE"; then
  if bash "$root/scripts/build-pocl-remote.sh" >/dev/null 2>&1; then
    echo "the PoCL-Remote build was brought up to patch $level"
  else
    echo "WARN: the PoCL-Remote build predates patch $level and could not be rebuilt: tested as it is"
  fi
fi
tmp=$(mktemp -d)
export LIBSPLIT_REMOTE_STATE=$tmp/state
# Below Linux's ephemeral ports (32768-60999 by default), where a client
# socket of anything on the machine may hold the port; each test's range
# (base + 0..2970) apart from the others'.
export LIBSPLIT_REMOTE_PORT=${LIBSPLIT_REMOTE_PORT:-$((REMOTE_PORT_BASE + 30 * ($$ % 100)))}
app=
remote_cleanup() {
  [ -n "$app" ] && kill -9 "$app" 2>/dev/null
  bash "$root/scripts/remote-node.sh" stop
  rm -rf "$tmp"
}
trap remote_cleanup EXIT
bash "$root/scripts/remote-node.sh" start 2 || { echo "FAIL: servers did not start"; exit 1; }
# The client's environment; $client_local (remote_apps: "pthread basic") lists local PoCL
# devices before the remote ones.
client_env() {
  eval "$(bash "$root/scripts/remote-node.sh" env)"
  if [ -n "${client_local:-}" ]; then export POCL_DEVICES="$client_local $POCL_DEVICES"; fi
}
client_env

# PoCL-Remote v6.0 can leave its servers unusable (docs/remote.md: an abort in its client, a
# hang in its peer mesh setup); every later client, native or not, then finds no device.
# Do they still list both remote devices (within 60 s)? The listing stays in $tmp/devices.txt,
# the lister's exit status (124: it hung) in $listing_status.
servers_usable() {
  timeout -k 5 60 python3 "$here/cl_devices.py" >"$tmp/devices.txt" 2>/dev/null
  listing_status=$?
  [ "$(grep -c pocl-remote "$tmp/devices.txt")" = 2 ]
}
# New servers in place of unusable ones, saying so with the ends of the old ones' logs.
restarts=0
restart_servers() {  # what ran before they were found unusable
  restarts=$((restarts + 1))
  echo "WARN: servers unusable after $1 (restart $restarts); their logs end:"
  tail -n 3 "$LIBSPLIT_REMOTE_STATE"/pocld*.log
  bash "$root/scripts/remote-node.sh" stop
  mv "$LIBSPLIT_REMOTE_STATE" "$LIBSPLIT_REMOTE_STATE.$restarts"
  bash "$root/scripts/remote-node.sh" start 2 >/dev/null || { echo "FAIL: servers did not restart"; exit 1; }
  client_env
}
