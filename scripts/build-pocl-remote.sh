#!/usr/bin/env bash
# Builds PoCL with the remote driver (client) and the pocld server, plus the
# host CPU device ("cpu" in PoCL >= 6), from PoCL's public source at a pinned
# release, against Debian's LLVM 16, into a cache folder (issue 26).
#
#   scripts/build-pocl-remote.sh            # build (or reuse) the cached build
#   scripts/build-pocl-remote.sh --print    # print the install prefix, build nothing
#   scripts/build-pocl-remote.sh --configure  # fetch packages, export the source, configure only
#
# Environment:
#   LIBSPLIT_POCL_REMOTE_VERSION  release tag (default v6.0: LLVM 14-18, remote client+server)
#   LIBSPLIT_POCL_REMOTE_DIR      cache folder (default ~/.cache/libsplit-pocl-remote/<version>)
#   LIBSPLIT_POCL_SRC             PoCL source: a git directory (bare or not) holding the tag, an
#                                 unpacked source tree of that release, or a .tar.gz of it
#                                 (default /work/.mirror/pocl+pocl/repo)
#   LIBSPLIT_POCL_JOBS            build jobs (default nproc)
#
# Result: <dir>/install/{bin/pocld,lib/libpocl.so,...} and <dir>/pocl.icd (the ICD file naming
# that libpocl.so, for OCL_ICD_VENDORS). A second run finds <dir>/DONE and reuses the build.
# Three small fixes of ours to the remote client are applied to the exported source (see
# patch_source and patch_link_path).
set -euo pipefail
version=${LIBSPLIT_POCL_REMOTE_VERSION:-v6.0}
dir=${LIBSPLIT_POCL_REMOTE_DIR:-$HOME/.cache/libsplit-pocl-remote/$version}
src_in=${LIBSPLIT_POCL_SRC:-/work/.mirror/pocl+pocl/repo}
jobs=${LIBSPLIT_POCL_JOBS:-$(nproc)}
llvm_config=/usr/lib/llvm-16/bin/llvm-config

say() { echo "[pocl-remote] $*"; }

if [ "${1:-}" = --print ]; then
  echo "$dir/install"
  exit 0
fi

# Bumped whenever one of the source patches below changes, so that a cached build is rebuilt.
patch_level=5
if [ -f "$dir/DONE" ] && grep -q "patch $patch_level\$" "$dir/DONE" && [ -x "$dir/install/bin/pocld" ] && [ -f "$dir/pocl.icd" ]; then
  say "reusing $dir ($(cat "$dir/DONE"))"
  exit 0
fi

# --- packages (Debian 12), installed only when missing ---------------------------------------
pkgs=(cmake ninja-build pkg-config llvm-16-dev libclang-16-dev libclang-cpp16-dev clang-16
      ocl-icd-dev ocl-icd-libopencl1 libhwloc-dev zlib1g-dev libxml2-dev)
bash "$(dirname "${BASH_SOURCE[0]}")/install-deps.sh" "${pkgs[@]}"

# --- source -----------------------------------------------------------------------------------
mkdir -p "$dir"
src=$dir/src
if [ ! -f "$src/CMakeLists.txt" ]; then
  rm -rf "$src.part"
  mkdir -p "$src.part"
  if [ -d "$src_in" ] && git --git-dir="$src_in" rev-parse --verify -q "$version^{commit}" >/dev/null 2>&1; then
    say "exporting $version from git directory $src_in"
    git --git-dir="$src_in" archive "$version" | tar -x -C "$src.part"
  elif [ -d "$src_in/.git" ] && git -C "$src_in" rev-parse --verify -q "$version^{commit}" >/dev/null 2>&1; then
    say "exporting $version from git checkout $src_in"
    git -C "$src_in" archive "$version" | tar -x -C "$src.part"
  elif [ -f "$src_in/CMakeLists.txt" ] && [ -d "$src_in/pocld" ]; then
    say "copying source tree $src_in (taken to be PoCL $version)"
    cp -a "$src_in/." "$src.part/"
  elif [ -f "$src_in" ] && [[ "$src_in" == *.tar.gz || "$src_in" == *.tgz ]]; then
    say "unpacking $src_in"
    tar -xzf "$src_in" -C "$src.part" --strip-components=1
  else
    rm -rf "$src.part"
    cat >&2 <<EOF
[pocl-remote] no PoCL source at '$src_in' (a git directory with tag $version, a source tree or a .tar.gz).
Get the source once, then run this script again, e.g.:
  git clone --branch $version --depth 1 https://github.com/pocl/pocl.git ~/src/pocl-$version
  LIBSPLIT_POCL_SRC=~/src/pocl-$version bash scripts/build-pocl-remote.sh
or download https://github.com/pocl/pocl/archive/refs/tags/$version.tar.gz and pass its path.
EOF
    exit 2
  fi
  [ -d "$src.part/pocld" ] && [ -d "$src.part/lib/CL/devices/remote" ] || { say "the source has no pocld/: not a PoCL >= 5.0 tree" >&2; exit 2; }
  mv "$src.part" "$src"
fi

# --- our fixes of two races in the remote client (v6.0; v7.0's code is the same) ---------------------
# A synchronous network command lives on the waiting thread's stack. (1) The reader thread marks
# it finished *before* taking its mutex, so the waiter can see the status, return and reuse that
# stack while the reader locks and signals the dead mutex; (2) the writer thread queues it for the
# reader *before* sending it and stores its write-end timestamp *after*: on loopback the reply can
# come, the waiter return, and the timestamp land in the waiter's reused stack. Seen here as
# SIGSEGV in pocl_command_enqueue on a "mutex" whose address is a monotonic-clock value, in about
# 1 of 3 cold runs of gemm (natively on a remote device as well as under libsplit). We set the
# status under the mutex, and store the timestamp only for asynchronous commands (the only ones
# whose events read it), deciding that before the send.
patch_source() {
  local f=$src/lib/CL/devices/remote/communication.c
  grep -q 'libsplit: no write-end timestamp' "$f" && return 0
  perl -0pi -e 's/(\n  )running_cmd->status = NETCMD_FINISHED;\n(\n  if \(running_cmd->synchronous\)\n    \{\n      POCL_LOCK \(running_cmd->data\.sync\.mutex\);\n)/$1if (!running_cmd->synchronous)\n    running_cmd->status = NETCMD_FINISHED;\n$2      running_cmd->status = NETCMD_FINISHED; \/* libsplit: status under the mutex *\/\n/' "$f"
  perl -0pi -e 's/(\n          cmd->request\.waitlist_size = cmd->req_waitlist_size;\n)/$1          int libsplit_async = !cmd->synchronous; \/* libsplit: no write-end timestamp on the stack *\/\n/; s/(\n)(          POCL_ATOMIC_STORE \(cmd->client_write_end_timestamp_ns,\n                             pocl_gettimemono_ns \(\)\);\n\n          TP_MSG_SENT)/$1          if (libsplit_async)\n  $2/' "$f"
  if grep -q 'libsplit: status under the mutex' "$f" && grep -q 'if (libsplit_async)' "$f"; then
    say "patched the remote client's two synchronous-command races ($f)"
  else
    say "warning: the remote client's race patches did not apply to this version (left as is)"
  fi
}
patch_source

# --- our fix of the linked program's cache path (v6.0) ------------------------------------------
# pocl_remote_link_program computes the linked program's cache path, then declares a second,
# uninitialized buffer of the same name in an inner block and renames the program's binary there:
# every clLinkProgram on a remote device left a 50,699-byte 0600 file named by stack bytes in the
# app's working directory (test app libraries under the shim). We drop the inner declaration, so
# that the path computed above is used.
patch_link_path() {
  local f=$src/lib/CL/devices/remote/remote.c
  grep -q 'libsplit: the linked program.s cache path' "$f" && return 0
  perl -0pi -e 's/(only the "sources" were the precompiled programs\. \*\/\n  \{\n)    char program_bc_path\[POCL_MAX_PATHNAME_LENGTH\];\n/$1    \/* libsplit: the linked program'"'"'s cache path, computed above *\/\n/' "$f"
  if grep -q 'libsplit: the linked program.s cache path' "$f"; then
    say "patched the remote client's linked-program cache path ($f)"
  else
    say "warning: the remote client's link-path patch did not apply to this version (left as is)"
  fi
}
patch_link_path

# --- our fix of the server's 3 s pause after each client (v6.0) -----------------------------------
# When a client disconnects, pocld's main loop (the one thread that answers every client) asks the
# session to exit and deletes it. Nobody wakes the session's own threads, which sleep in 3 s idle
# waits: the delete blocks in pthread_cond_destroy until the session thread's wait times out (gdb:
# ~VirtualCLContext, VirtualCLContext::run), then joins the reply threads, asleep the same way. A
# client that starts within 3 s of the previous one's exit waits out the rest in its handshake
# (matmul small, back to back here: 2.93-3.15 s of wall, 0.10-0.22 s with this patch). We wake
# both on the exit request, checking it under their mutex before each wait.
patch_session_exit() {
  local vctx=$src/pocld/virtual_cl_context.cc reply=$src/pocld/reply_th.cc
  grep -q 'libsplit: wake the session thread' "$vctx" && return 0
  perl -0pi -e 's/(void VirtualCLContext::requestExit\(int code, const char \*reason\) \{\n  exit_helper\.requestExit\(reason, code\);\n)/$1  { std::unique_lock<std::mutex> lock(main_mutex); } \/* libsplit: wake the session thread *\/\n  main_cond.notify_all();\n/; s/\n(      )main_cond\.wait_until\(lock, now\);\n/\n$1if (!exit_helper.exit_requested()) \/* libsplit: checked under main_mutex *\/\n$1  main_cond.wait_until(lock, now);\n/' "$vctx"
  perl -0pi -e 's/(  eh->requestExit\(id_str\.c_str\(\), 0\);\n)(  io_thread\.join\(\);\n\}\n\nvoid ReplyQueueThread::pushReply)/$1  { std::unique_lock<std::mutex> lock(io_mutex); } \/* libsplit: wake the idle writer *\/\n  io_cond.notify_all();\n$2/; s/\n(      )io_cond\.wait_until\(lock, now\);\n/\n$1if (!eh->exit_requested()) \/* libsplit: checked under io_mutex *\/\n$1  io_cond.wait_until(lock, now);\n/' "$reply"
  if [ "$(grep -c 'libsplit: wake the\|libsplit: checked under' "$vctx" "$reply" | awk -F: '{n += $2} END {print n}')" = 4 ]; then
    say "patched the server's session exit: its threads wake at once ($vctx, $reply)"
  else
    say "warning: the server's session-exit patch did not apply to this version (left as is)"
  fi
}
patch_session_exit

# --- configure ----------------------------------------------------------------------------------
build=$dir/build
prefix=$dir/install
start=$SECONDS
if [ ! -f "$build/build.ninja" ]; then
  say "configuring (LLVM $($llvm_config --version), $jobs jobs)"
  # Only the host CPU device, the remote client and the pocld server; no tests, examples, poclcc,
  # SPIR-V or other drivers. The kernel library is built for this machine's CPU ("native").
  # (from inside the build folder: PoCL's configure leaves compile_test_* files in the cwd)
  # Where this LLVM does not know the CPU (llc: "Host CPU: (unknown)", e.g. a CPU newer than
  # LLVM 16), PoCL's configure stops and asks for one: the x86-64 level the CPU's flags reach.
  local_cpu=()
  if "$(dirname "$llvm_config")/llc" --version | grep -q 'Host CPU: (unknown)'; then
    level=x86-64
    grep -qw sse4_2 /proc/cpuinfo && level=x86-64-v2
    grep -qw avx2 /proc/cpuinfo && grep -qw fma /proc/cpuinfo && level=x86-64-v3
    say "LLVM does not know this CPU: building the kernel library for $level"
    local_cpu=(-DLLC_HOST_CPU=$level)
  fi
  mkdir -p "$build"
  (cd "$build" && nice -n 10 cmake -S "$src" -B "$build" -G Ninja "${local_cpu[@]}" \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$prefix" \
    -DWITH_LLVM_CONFIG="$llvm_config" \
    -DENABLE_ICD=ON -DENABLE_LOADABLE_DRIVERS=ON \
    -DENABLE_HOST_CPU_DEVICES=ON -DENABLE_REMOTE_CLIENT=ON -DENABLE_REMOTE_SERVER=ON \
    -DENABLE_TESTS=OFF -DENABLE_EXAMPLES=OFF -DENABLE_POCLCC=OFF -DENABLE_SPIRV=OFF \
    -DENABLE_HSA=OFF -DENABLE_CUDA=OFF -DENABLE_LEVEL0=OFF -DENABLE_VULKAN=OFF \
    -DENABLE_ALMAIF_DEVICE=OFF -DENABLE_TBB_DEVICE=OFF -DENABLE_PROXY_DEVICE=OFF \
    -DENABLE_RDMA=OFF -DENABLE_LTTNG=OFF -DENABLE_DOXYGEN=OFF) \
    >"$dir/configure.log" 2>&1 || { tail -40 "$dir/configure.log" >&2; say "configure failed: $dir/configure.log" >&2; exit 1; }
fi

[ "${1:-}" = --configure ] && { say "configured: $build"; exit 0; }

# --- build, a progress line at least every 30 s ----------------------------------------------------
log=$dir/build.log
say "building in $build (log: $log)"
NINJA_STATUS='[%f/%t] ' nice -n 10 cmake --build "$build" -j "$jobs" >"$log" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null || true' INT TERM
while kill -0 "$pid" 2>/dev/null; do
  for _ in $(seq 30); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
  step=$(grep -o '^\[[0-9]*/[0-9]*\]' "$log" | tail -1 || true)
  say "$(( (SECONDS - start) / 60 )) min $(( (SECONDS - start) % 60 )) s ${step:-[configuring]}"
done
if ! wait "$pid"; then
  grep -m 20 -B2 -A10 'error' "$log" >&2 || tail -40 "$log" >&2
  say "build failed: $log" >&2
  exit 1
fi
cmake --install "$build" >"$dir/install.log" 2>&1 || { tail -20 "$dir/install.log" >&2; exit 1; }
[ -x "$prefix/bin/pocld" ] || { say "no pocld installed under $prefix/bin" >&2; exit 1; }
lib=$(find "$prefix" -name libpocl.so | head -1)
[ -n "$lib" ] || { say "no libpocl.so under $prefix" >&2; exit 1; }
echo "$lib" >"$dir/pocl.icd"
commit=$(git --git-dir="$src_in" rev-parse "$version^{commit}" 2>/dev/null || echo unknown)
echo "PoCL $version ($commit), built $(date -u +%FT%TZ) in $((SECONDS - start)) s, patch $patch_level" >"$dir/DONE"
say "done in $((SECONDS - start)) s: $prefix (ICD file $dir/pocl.icd)"
