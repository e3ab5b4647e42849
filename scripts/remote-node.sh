#!/usr/bin/env bash
# PoCL-Remote "hosts" on this machine (issue 26): one pocld server per host, on loopback
# ports, each serving an OpenCL platform of its own; and the environment a client needs to
# see their devices as the devices of one OpenCL platform (PoCL's remote driver).
#
#   scripts/remote-node.sh start [N]   start N servers (default 2) on 127.0.0.1
#   scripts/remote-node.sh stop        stop the servers this state folder started
#   scripts/remote-node.sh status      list them (pid, address:port, alive or not)
#   scripts/remote-node.sh env         print the client environment (export lines), e.g.
#                                      eval "$(scripts/remote-node.sh env)"
#
# Needs the build of scripts/build-pocl-remote.sh (same LIBSPLIT_POCL_REMOTE_* variables).
# Environment:
#   LIBSPLIT_REMOTE_STATE        state folder: pids, logs (default /tmp/libsplit-remote-$UID)
#   LIBSPLIT_REMOTE_ADDR         listen address (default 127.0.0.1)
#   LIBSPLIT_REMOTE_PORT         first server's port (default 41000); server i listens on
#                                PORT+10*i .. PORT+10*i+2 (command, stream, peer)
#   LIBSPLIT_REMOTE_DEVICES      devices each server exposes to the client (default 1): the
#                                client gets POCL_REMOTE<k>_PARAMETERS=addr:port/<index> for
#                                index 0..n-1 of every server
#   Server side (default: the build's own PoCL, its CPU device "cpu"):
#   LIBSPLIT_REMOTE_SERVER_ICD   OCL_ICD_VENDORS for the servers: an .icd file or a folder,
#                                e.g. a file holding libnvidia-opencl.so.1 to serve the NVIDIA GPUs
#   LIBSPLIT_REMOTE_SERVER_POCL_DEVICES  POCL_DEVICES for a PoCL server (default cpu)
#   LIBSPLIT_REMOTE_SERVER<i>_ENV  extra "VAR=value ..." for server i only, e.g.
#                                LIBSPLIT_REMOTE_SERVER0_ENV="CUDA_VISIBLE_DEVICES=0,1"
#   LIBSPLIT_REMOTE_CLIENT_LOCAL=1  env also lists the client's own PoCL CPU device first
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
prefix=$(bash "$root/scripts/build-pocl-remote.sh" --print)
dir=$(dirname "$prefix")
icd=$dir/pocl.icd
state=${LIBSPLIT_REMOTE_STATE:-/tmp/libsplit-remote-$(id -u)}
addr=${LIBSPLIT_REMOTE_ADDR:-127.0.0.1}
port0=${LIBSPLIT_REMOTE_PORT:-41000}
per_server=${LIBSPLIT_REMOTE_DEVICES:-1}

need_build() {
  [ -x "$prefix/bin/pocld" ] && [ -f "$icd" ] && return 0
  echo "remote-node: no PoCL-Remote build at $dir; run: bash scripts/build-pocl-remote.sh" >&2
  exit 2
}

# The folder of ocl-icd's libOpenCL.so.1 when the system resolves the loader elsewhere first
# (CUDA's Khronos loader: it ignores OCL_ICD_VENDORS and loads OCL_ICD_FILENAMES on top of
# /etc/OpenCL/vendors, so a client would load the system's PoCL next to this build's and abort
# in LLVM); empty where the default loader is ocl-icd's.
ocl_icd_dir() {
  local first d
  first=$(ldconfig -p 2>/dev/null | awk '/libOpenCL\.so\.1 /{print $NF; exit}')
  for d in /usr/lib/x86_64-linux-gnu /lib/x86_64-linux-gnu; do
    [ -e "$d/libOpenCL.so.1" ] || continue
    case $first in "$d"/*|/lib/x86_64-linux-gnu/*|/usr/lib/x86_64-linux-gnu/*|"") ;; *) echo "$d" ;; esac
    return
  done
}
loader_dir=$(ocl_icd_dir)

# Is something listening on addr:port? (bash's /dev/tcp, no extra tool)
listening() { (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null; }

servers() { [ -f "$state/servers" ] && cat "$state/servers" || true; }

start() {
  need_build
  local n=${1:-2} i port pid extra
  mkdir -p "$state"
  if [ -s "$state/servers" ]; then
    echo "remote-node: servers already recorded in $state/servers (stop them first)" >&2
    exit 1
  fi
  for ((i = 0; i < n; i++)); do
    port=$((port0 + 10 * i))
    if listening "$addr" "$port"; then
      echo "remote-node: $addr:$port is already in use" >&2
      stop; exit 1
    fi
    local var=LIBSPLIT_REMOTE_SERVER${i}_ENV
    read -r -a extra <<<"${!var:-}"
    # Each server gets its own kernel cache: two PoCL processes building the same kernel at
    # the same time is fine for PoCL, but separate caches keep the servers independent hosts.
    env -u OCL_ICD_FILENAMES OCL_ICD_VENDORS="${LIBSPLIT_REMOTE_SERVER_ICD:-$icd}" \
        ${loader_dir:+LD_LIBRARY_PATH="$loader_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"} \
        POCL_DEVICES="${LIBSPLIT_REMOTE_SERVER_POCL_DEVICES:-cpu}" \
        POCL_CACHE_DIR="$state/cache$i" \
        "${extra[@]}" \
        setsid "$prefix/bin/pocld" -a "$addr" -p "$port" >"$state/pocld$i.log" 2>&1 </dev/null &
    pid=$!
    echo "$pid $addr $port" >>"$state/servers"
  done
  # Wait until every server accepts connections (up to 30 s).
  local t
  while read -r pid a port; do
    for ((t = 0; t < 300; t++)); do
      listening "$a" "$port" && break
      kill -0 "$pid" 2>/dev/null || { echo "remote-node: pocld $a:$port exited:" >&2; tail -5 "$state/pocld"*.log >&2; stop; exit 1; }
      sleep 0.1
    done
    listening "$a" "$port" || { echo "remote-node: pocld $a:$port does not listen after 30 s" >&2; stop; exit 1; }
    echo "pocld pid $pid listening on $a:$port (log $state/pocld$(( (port - port0) / 10 )).log)"
  done < <(servers)
}

stop() {
  local pid a port
  while read -r pid a port; do
    kill "$pid" 2>/dev/null || true
  done < <(servers)
  while read -r pid a port; do
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  done < <(servers)
  rm -f "$state/servers"
}

status() {
  local pid a port
  while read -r pid a port; do
    if kill -0 "$pid" 2>/dev/null; then echo "$pid $a:$port alive"; else echo "$pid $a:$port dead"; fi
  done < <(servers)
}

client_env() {
  need_build
  [ -s "$state/servers" ] || { echo "remote-node: no servers recorded in $state (start first)" >&2; exit 1; }
  local k=0 devices=() pid a port d
  [ "${LIBSPLIT_REMOTE_CLIENT_LOCAL:-0}" = 1 ] && devices+=(cpu)
  echo "unset OCL_ICD_FILENAMES"
  echo "export OCL_ICD_VENDORS='$icd'"
  [ -n "$loader_dir" ] && echo "export LD_LIBRARY_PATH='$loader_dir'\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
  while read -r pid a port; do
    for ((d = 0; d < per_server; d++)); do
      echo "export POCL_REMOTE${k}_PARAMETERS='$a:$port/$d'"
      devices+=(remote)
      k=$((k + 1))
    done
  done < <(servers)
  echo "export POCL_DEVICES='${devices[*]}'"
}

case "${1:-}" in
  start) shift; start "$@" ;;
  stop) stop ;;
  status) status ;;
  env) client_env ;;
  *) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
