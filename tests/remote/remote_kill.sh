#!/usr/bin/env bash
# Issue 26: a pocld server killed mid-run gives a clear error, not a hang. Two servers on
# loopback; gemm (medium, 200 iterations: minutes here) split over both under the shim; server 1
# killed once the run is under way. The app must end within BOUND seconds of the kill with a
# nonzero status or an error message, and the shim must say which device was lost.
# (Natively PoCL v6.0 hangs in clFinish instead: docs/remote.md.)
# usage: remote_kill.sh SHIM BENCH_BIN_DIR
# exit 77 (ctest: skipped) where scripts/build-pocl-remote.sh has not been run.
set -uo pipefail
bound=${LIBSPLIT_KILL_BOUND:-60}
REMOTE_PORT_BASE=27000 source "$(dirname "$0")/remote_servers.sh"

# Every launch split over both servers from the first (a forced scheduler), so that the
# killed server holds part of every result.
LD_PRELOAD=$shim LIBSPLIT_CACHE_DIR=$tmp/cache LIBSPLIT_WHOLE=0 LIBSPLIT_SYNC_PREPARE=1 LIBSPLIT_LOG=1 \
  "$bin/gemm" --size medium --iters 200 --device 0 >"$tmp/out" 2>"$tmp/err" &
app=$!
# Under way: the first split launch reported (or 30 s, on a loaded machine).
for ((i = 0; i < 300; i++)); do
  grep -q 'split over 2 devices' "$tmp/err" && break
  kill -0 "$app" 2>/dev/null || break
  sleep 0.1
done
if ! kill -0 "$app" 2>/dev/null; then
  echo "FAIL: gemm ended before the kill"; tail -5 "$tmp/err"; exit 1
fi
sleep 1
server1=$(sed -n 2p "$LIBSPLIT_REMOTE_STATE/servers" | awk '{print $1}')
kill -9 "$server1"
killed=$(date +%s.%N)
rc=124
for ((i = 0; i < 10 * bound; i++)); do
  if ! kill -0 "$app" 2>/dev/null; then wait "$app"; rc=$?; break; fi
  sleep 0.1
done
took=$(echo "$(date +%s.%N) - $killed" | bc)
app_line=$(grep -m1 -i 'error' "$tmp/err")
lost_line=$(grep -m1 'is no longer available' "$tmp/err")
if [ $rc = 124 ]; then
  echo "FAIL: gemm still running ${bound} s after server 1 was killed (a hang)"
  command -v gdb >/dev/null && gdb -p "$app" -batch -ex 'thread apply all bt' 2>/dev/null | grep -E '^#[0-9]+ .* in (libsplit|POcl|pocl)' | head -20
  tail -5 "$tmp/err"; exit 1
fi
app=
if [ $rc = 0 ] && [ -z "$app_line" ]; then
  echo "FAIL: gemm exited 0 with no error after its server 1 was killed"; tail -5 "$tmp/err"; exit 1
fi
if [ -z "$lost_line" ]; then
  echo "FAIL: the shim did not say which device was lost"; tail -5 "$tmp/err"; exit 1
fi
printf 'ok: gemm ended %.1f s after server 1 was killed, exit %s\n' "$took" "$rc"
echo "$lost_line"
echo "app: $app_line"
