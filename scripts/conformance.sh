#!/usr/bin/env bash
# Conformance of libsplit against the Khronos OpenCL CTS and piglit's OpenCL
# tests: every sub-test runs three ways and the results are compared.
#   native        no shim, PoCL with the split device set
#   passthrough   the shim over ONE PoCL device (POCL_DEVICES=pthread)
#   split         the shim over two PoCL devices, every launch split
#                 (POCL_DEVICES="pthread basic", uniform scheduler,
#                 partition-ready programs built inside clBuildProgram)
# With --platform P (another OpenCL platform, e.g. NVIDIA's on the GPU
# machine) the CTS runs on device --device of platform P (its
# CL_PLATFORM_INDEX / CL_DEVICE_INDEX / CL_DEVICE_TYPE) and the modes are
#   native        no shim
#   passthrough   the shim with LIBSPLIT_DEVICES=P:D (one device)
#   default       the shim with its default settings (every device it finds)
#   split         the shim over --split-devices (default P:*), every launch
#                 split, as above
# (default also exists without --platform: the shim's defaults over
# POCL_DEVICES="pthread basic".)
# The CTS is built out of the repository, in a cache directory; nothing of it
# enters the repository (--cts-bin runs binaries built elsewhere, as
# scripts/device-conformance.sh does on the GPU machine). See
# docs/conformance.md.
set -euo pipefail

usage() {
  cat <<'EOF'
usage: scripts/conformance.sh [options]
  --cts-src PATH     OpenCL-CTS source: a checkout or a git directory (a bare
                     mirror works). Default: /work/.mirror/KhronosGroup+OpenCL-CTS/repo
                     when present, else $LIBSPLIT_CTS_SRC.
  --headers PATH     OpenCL-Headers as new as the CTS needs: a checkout or a git
                     directory. Default: /work/.mirror/KhronosGroup+OpenCL-Headers/repo
                     when present, else $LIBSPLIT_CL_HEADERS, else /usr/include.
  --spirv-headers PATH
                     SPIRV-Headers as new as the CTS needs (test_api reads its
                     grammar): a checkout or a git directory. Default:
                     /work/.mirror/KhronosGroup+SPIRV-Headers/repo when present,
                     else $LIBSPLIT_SPIRV_HEADERS, else /usr (Debian's spirv-headers).
  --suites LIST      comma list of: basic,api,buffers,compiler,image_streams,piglit
                     (default: all of them)
  --modes LIST       comma list of: native,passthrough,default,split (default:
                     native,passthrough,split)
  --tests REGEX      only the sub-tests whose name matches (grep -E), e.g.
                     '^(prefetch|kernel_call_kernel_function)$'
  --from N           start at the Nth sub-test of each suite's list (after
                     --tests): resumes a run cut short
  --quick            a few sub-tests per suite (about an hour on 2 cores, the
                     full set takes many)
  --list gpu         --quick and, for the CTS, the extra sub-tests of
                     CTS_GPU_EXTRA (scripts/conformance_lib.py)
  --timeout S        seconds per sub-test before it counts as a hang
                     (default 600; 120 with --quick)
  --jobs N           parallel compile jobs for the CTS build (default 2)
  --build-only       build the CTS and stop
  --cts-bin DIR      run the CTS binaries under DIR (DIR/<suite>/test_<suite>,
                     the layout of the build's test_conformance/ folder and of
                     scripts/device-pack.sh --with-cts): no source, no build
  --platform P       run the CTS on OpenCL platform P (index in the ICD
                     loader's order) instead of PoCL with POCL_DEVICES set per
                     mode; POCL_DEVICES is then left as the caller set it
  --device D         with --platform: the CTS's device index (default 0)
  --device-type T    with --platform: the CTS's CL_DEVICE_TYPE (all, gpu, cpu;
                     default all, so that D is also the shim's P:D index)
  --split-devices L  with --platform: LIBSPLIT_DEVICES of the split mode
                     (default P:*, every device of platform P)
  --time-budget S    start no sub-test after S seconds of running (each suite
                     gets an even share of what is left, unused time passes on;
                     CTS suites stopped by their share go on once every suite
                     has had its turn) and cut a running one at S; the table
                     covers what ran
  --shim PATH        libsplit.so (default: build/libsplit/libsplit.so of this tree)
  --out DIR          results directory (default: <cache>/results/<date>)
  --report-only DIR  print the table of an earlier run and exit
Cache: ${LIBSPLIT_CONFORMANCE_DIR:-$HOME/.cache/libsplit-conformance}
EOF
}

die() { echo "conformance: error: $*" >&2; exit 2; }
say() { echo "conformance: $*" >&2; }

repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cache=${LIBSPLIT_CONFORMANCE_DIR:-$HOME/.cache/libsplit-conformance}
cts_src=${LIBSPLIT_CTS_SRC:-}
headers=${LIBSPLIT_CL_HEADERS:-}
spirv_headers=${LIBSPLIT_SPIRV_HEADERS:-}
suites=basic,api,buffers,compiler,image_streams,piglit
modes=native,passthrough,split
quick=0
list=quick
tests_re=
from=1
timeout_s=
jobs=2
build_only=0
shim=$repo_root/build/libsplit/libsplit.so
out=
report_only=
cts_bin_dir=
platform=
device=0
device_type=all
split_devices=
time_budget=0

while [ $# -gt 0 ]; do
  case $1 in
    --cts-src) cts_src=$2; shift 2 ;;
    --headers) headers=$2; shift 2 ;;
    --spirv-headers) spirv_headers=$2; shift 2 ;;
    --suites) suites=$2; shift 2 ;;
    --modes) modes=$2; shift 2 ;;
    --quick) quick=1; shift ;;
    --list) quick=1; list=$2; shift 2 ;;
    --tests) tests_re=$2; shift 2 ;;
    --from) from=$2; shift 2 ;;
    --timeout) timeout_s=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --build-only) build_only=1; shift ;;
    --cts-bin) cts_bin_dir=$2; shift 2 ;;
    --platform) platform=$2; shift 2 ;;
    --device) device=$2; shift 2 ;;
    --device-type) device_type=$2; shift 2 ;;
    --split-devices) split_devices=$2; shift 2 ;;
    --time-budget) time_budget=$2; shift 2 ;;
    --shim) shim=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --report-only) report_only=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; die "unknown option $1" ;;
  esac
done

lib=$repo_root/scripts/conformance_lib.py
if [ -n "$report_only" ]; then
  exec python3 "$lib" report "$report_only"
fi

[[ "$from" =~ ^[1-9][0-9]*$ ]] || die "--from wants a sub-test number (1 or more), not '$from'"
case $list in quick|gpu) ;; *) die "--list wants quick or gpu, not '$list'" ;; esac
[[ "$time_budget" =~ ^[0-9]+$ ]] || die "--time-budget wants seconds, not '$time_budget'"
if [ -n "$platform" ]; then
  [[ "$platform" =~ ^[0-9]+$ ]] || die "--platform wants a platform index, not '$platform'"
  [[ "$device" =~ ^[0-9]+$ ]] || die "--device wants a device index, not '$device'"
  [ -n "$split_devices" ] || split_devices="$platform:*"
fi
[ -n "$timeout_s" ] || { [ "$quick" = 1 ] && timeout_s=120 || timeout_s=600; }
[ -z "$cts_src" ] && [ -d /work/.mirror/KhronosGroup+OpenCL-CTS/repo ] &&
  cts_src=/work/.mirror/KhronosGroup+OpenCL-CTS/repo
[ -z "$headers" ] && [ -d /work/.mirror/KhronosGroup+OpenCL-Headers/repo ] &&
  headers=/work/.mirror/KhronosGroup+OpenCL-Headers/repo
[ -z "$spirv_headers" ] && [ -d /work/.mirror/KhronosGroup+SPIRV-Headers/repo ] &&
  spirv_headers=/work/.mirror/KhronosGroup+SPIRV-Headers/repo

# --- tools -------------------------------------------------------------------
need() { command -v "$1" >/dev/null 2>&1 || die "$1 not found: $2"; }
need python3 "install python3 (scripts/install-deps.sh)"
need timeout "install coreutils"

want() { [[ ",$2," == *",$1,"* ]]; }
cts_suites=()
for s in basic api buffers compiler image_streams; do
  want "$s" "$suites" && cts_suites+=("$s")
done
for s in ${suites//,/ }; do
  case $s in basic|api|buffers|compiler|image_streams|piglit) ;;
    *) die "unknown suite '$s' (basic,api,buffers,compiler,image_streams,piglit)" ;; esac
done
for m in ${modes//,/ }; do
  case $m in native|passthrough|default|split) ;;
    *) die "unknown mode '$m' (native,passthrough,default,split)" ;; esac
done

piglit_dir=/usr/lib/x86_64-linux-gnu/piglit
if want piglit "$suites" && [ "$build_only" = 0 ]; then
  [ -x "$piglit_dir/bin/cl-program-tester" ] ||
    die "piglit's OpenCL tests not found in $piglit_dir: apt-get install piglit (scripts/install-deps.sh installs it)"
fi
if [ "$modes" != native ] && [ "$build_only" = 0 ]; then
  [ -f "$shim" ] ||
    die "shim $shim not found: build libsplit first (cmake --build build) or pass --shim"
  shim=$(realpath "$shim") # LD_PRELOAD needs it absolute: tests run in other directories
fi

# --- CTS build -----------------------------------------------------------------
# Copies a tree out of a git directory (bare mirrors included) or a checkout.
# Blobs a partial mirror lacks (large files it did not fetch) are left out:
# none of them belongs to the suites built here.
export_tree() { # src dest [subdir]
  local src=$1 dest=$2 sub=${3:-.}
  if git --git-dir="$src" rev-parse --verify -q HEAD >/dev/null 2>&1; then
    local g=(git --git-dir="$src")
    mkdir -p "$dest"
    "${g[@]}" ls-tree -r --format='%(objectname)' HEAD -- "$sub" |
      "${g[@]}" cat-file --batch-check='%(objecttype)' 2>/dev/null |
      paste -d'\t' - <("${g[@]}" ls-tree -r --format='%(path)' HEAD -- "$sub") |
      awk -F'\t' '$1 !~ /missing$/ {print $2}' | tr '\n' '\0' |
      xargs -0 "${g[@]}" archive HEAD -- 2>"$dest.export.log" | tar -x -i -C "$dest"
  elif [ -d "$src/$sub" ]; then
    mkdir -p "$dest" && cp -a "$src/$sub" "$dest/"
  else
    return 1
  fi
}

tree_id() { # a short id of the source, for cache directory names
  if git --git-dir="$1" rev-parse --verify -q HEAD >/dev/null 2>&1; then
    git --git-dir="$1" rev-parse --short=12 HEAD
  elif git -C "$1" rev-parse --verify -q HEAD >/dev/null 2>&1; then
    git -C "$1" rev-parse --short=12 HEAD
  else
    echo local
  fi
}

cts_bin=
build_cts() {
  [ -n "$cts_src" ] || die "no OpenCL-CTS source. Get it with
    git clone https://github.com/KhronosGroup/OpenCL-CTS ~/src/OpenCL-CTS
and pass --cts-src ~/src/OpenCL-CTS (or set LIBSPLIT_CTS_SRC)."
  [ -e "$cts_src" ] || die "CTS source $cts_src does not exist"
  need cmake "install cmake (scripts/install-deps.sh)"
  need ninja "install ninja-build (scripts/install-deps.sh)"
  need c++ "install build-essential"
  if [[ " ${cts_suites[*]} " == *" compiler "* ]]; then
    need spirv-as "test_compiler assembles SPIR-V: install spirv-tools (scripts/install-deps.sh)"
  fi

  local id; id=$(tree_id "$cts_src")
  local top=$cache/cts-$id
  if [ ! -f "$top/src/CMakeLists.txt" ]; then
    say "exporting the CTS ($id) into $top/src"
    rm -rf "$top/src"
    export_tree "$cts_src" "$top/src" || die "cannot read the CTS from $cts_src"
  fi

  local inc=/usr/include
  if [ -n "$headers" ]; then
    local hid; hid=$(tree_id "$headers")
    inc=$cache/opencl-headers-$hid
    if [ ! -f "$inc/CL/cl.h" ]; then
      say "exporting OpenCL-Headers ($hid) into $inc"
      rm -rf "$inc"
      export_tree "$headers" "$inc" CL || die "cannot read OpenCL headers from $headers"
    fi
  fi

  local spv=/usr
  if [ -n "$spirv_headers" ]; then
    local sid; sid=$(tree_id "$spirv_headers")
    spv=$cache/spirv-headers-$sid
    if [ ! -f "$spv/include/spirv/unified1/spirv.core.grammar.json" ]; then
      say "exporting SPIRV-Headers ($sid) into $spv"
      rm -rf "$spv"
      export_tree "$spirv_headers" "$spv" include || die "cannot read SPIR-V headers from $spirv_headers"
    fi
  fi
  [ -f "$spv/include/spirv/unified1/spirv.core.grammar.json" ] ||
    die "SPIR-V headers missing in $spv (the CTS build reads them): apt-get install spirv-headers, or pass --spirv-headers"

  local bld=$top/build
  local args=(-DCMAKE_BUILD_TYPE=Release -DCL_INCLUDE_DIR="$inc"
    -DCL_LIB_DIR=/usr/lib/x86_64-linux-gnu -DOPENCL_LIBRARIES=OpenCL
    -DSPIRV_INCLUDE_DIR="$spv" --compile-no-warning-as-error)
  # Reconfigure when the headers change (another --headers, a newer mirror).
  if [ ! -f "$bld/build.ninja" ] || [ "$(cat "$bld/.libsplit-args" 2>/dev/null)" != "${args[*]}" ]; then
    say "configuring the CTS in $bld (OpenCL headers: $inc, SPIR-V headers: $spv)"
    cmake -S "$top/src" -B "$bld" -G Ninja "${args[@]}" >"$top/configure.log" 2>&1 ||
      die "CTS configure failed, see $top/configure.log"
    echo "${args[*]}" >"$bld/.libsplit-args"
  fi
  local targets=()
  for s in "${cts_suites[@]}"; do targets+=("test_$s"); done
  say "building ${targets[*]} with -j$jobs (the first time about 40 min on 2 cores; log $top/build.log)"
  # Progress: ninja's [n/m] lines, one every 30 s.
  ( nice -n 10 ninja -C "$bld" -j"$jobs" -k 0 "${targets[@]}" >"$top/build.log" 2>&1
    echo $? >"$top/build.rc" ) &
  local pid=$!
  while kill -0 "$pid" 2>/dev/null; do
    sleep 30
    local line; line=$(grep -o '^\[[0-9]*/[0-9]*\]' "$top/build.log" | tail -1 || true)
    [ -n "$line" ] && say "CTS build $line"
  done
  wait "$pid" || true
  if [ "$(cat "$top/build.rc")" != 0 ]; then
    say "some CTS targets failed to build (see $top/build.log); running those that built"
  fi
  cts_bin=$bld/test_conformance
}

if [ -n "$cts_bin_dir" ]; then
  [ -d "$cts_bin_dir" ] || die "--cts-bin $cts_bin_dir is not a directory"
  cts_bin=$(realpath "$cts_bin_dir")
  [ "$build_only" = 1 ] && die "--build-only and --cts-bin: nothing to build"
elif [ ${#cts_suites[@]} -gt 0 ]; then
  build_cts
fi
[ "$build_only" = 1 ] && exit 0

# --- running -----------------------------------------------------------------
[ -n "$out" ] || out=$cache/results/$(date +%Y%m%d-%H%M%S)
mkdir -p "$out"
say "results in $out"

pocl_version=$(dpkg-query -W -f='${Version}' pocl-opencl-icd 2>/dev/null || echo unknown)
cts_id=none
if [ -n "$cts_bin_dir" ]; then
  cts_id=$(cat "$cts_bin/CTS_COMMIT" 2>/dev/null || echo prebuilt)
elif [ -n "$cts_src" ]; then
  cts_id=$(tree_id "$cts_src")
fi
if [ -n "$platform" ]; then
  target="platform $platform device $device (type $device_type); split over $split_devices"
else
  target="PoCL, POCL_DEVICES per mode"
fi
{
  echo "date=$(date -u +%Y-%m-%dT%H:%MZ)"
  echo "pocl=$pocl_version"
  echo "shim=$shim"
  echo "libsplit_commit=${LIBSPLIT_CONFORMANCE_COMMIT:-$(git -C "$repo_root" rev-parse --short HEAD 2>/dev/null || echo unknown)}"
  echo "cts=$cts_id"
  echo "quick=$quick$( [ "$list" = quick ] || echo " ($list)")"
  echo "timeout_s=$timeout_s"
  echo "target=$target"
  echo "modes=$modes"
  echo "time_budget_s=$time_budget"
} >"$out/meta.txt"

# Runs COMMAND... under the environment of MODE; prints nothing, leaves the
# output in LOG and returns the command's status (124 = timeout).
# The limit is $limit: --timeout, or what is left of --time-budget when less
# (run_limit, set before each command; a timeout under a smaller limit than
# --timeout counts as "cut", not "hang").
run_in_mode() { # mode log command...
  local mode=$1 log=$2; shift 2
  local env=(env -u LD_PRELOAD -u LIBSPLIT_DISABLE)
  local split=(LIBSPLIT_LOG=1 LIBSPLIT_SCHEDULER=uniform LIBSPLIT_SYNC_PREPARE=1)
  if [ -n "$platform" ]; then
    env+=(-u LIBSPLIT_DEVICES CL_PLATFORM_INDEX="$platform" CL_DEVICE_INDEX="$device"
          CL_DEVICE_TYPE="$device_type")
    case $mode in
      native) ;;
      passthrough) env+=(LD_PRELOAD="$shim" LIBSPLIT_DEVICES="$platform:$device") ;;
      default) env+=(LD_PRELOAD="$shim") ;;
      split) env+=(LD_PRELOAD="$shim" LIBSPLIT_DEVICES="$split_devices" "${split[@]}") ;;
    esac
  else
    case $mode in
      native) env+=(POCL_DEVICES="pthread basic") ;;
      passthrough) env+=(POCL_DEVICES=pthread LD_PRELOAD="$shim") ;;
      default) env+=(POCL_DEVICES="pthread basic" LD_PRELOAD="$shim") ;;
      split) env+=(POCL_DEVICES="pthread basic" LD_PRELOAD="$shim" "${split[@]}") ;;
    esac
  fi
  "${env[@]}" timeout -k 10 "${limit:-$timeout_s}" "$@" >"$log" 2>&1
}

# --time-budget: the run's end (0: none) and the current suite's end.
run_start=$SECONDS
budget_end=0
[ "$time_budget" -gt 0 ] && budget_end=$((run_start + time_budget))
suite_end=0
suites_left=${#cts_suites[@]}
want piglit "$suites" && suites_left=$((suites_left + 1))
run_limit() { # seconds the next command may run
  local t=$timeout_s
  if [ "$budget_end" -gt 0 ] && [ $((budget_end - SECONDS)) -lt "$t" ]; then
    t=$((budget_end - SECONDS))
    [ "$t" -ge 1 ] || t=1
  fi
  echo "$t"
}
cut_by_budget() { [ "$limit" -lt "$timeout_s" ]; }
limit=
begin_suite() { # gives the suite an even share of the budget left
  if [ "$budget_end" -gt 0 ]; then
    local n=$suites_left; [ "$n" -ge 1 ] || n=1
    suite_end=$((SECONDS + (budget_end - SECONDS) / n))
  fi
  suites_left=$((suites_left - 1))
}
out_of_time() { # suite name done total: true (and noted) once the suite's share is spent
  [ "$budget_end" -gt 0 ] && [ "$SECONDS" -ge "$suite_end" ] || return 1
  say "time budget: $1 stops after $2 of $3 sub-tests"
  printf '%s\t%s\n' "$2" "$3" >"$out/$1.cut"
}

# One line per sub-test: name<TAB>status<TAB>seconds<TAB>split launches,
# status one of pass, fail, skip, warn, hang, crash, cut (stopped by
# --time-budget); the last field counts the
# launches the shim logged as split over several devices (split mode only).
record() { # tsv name status seconds log
  local splits=0
  splits=$(grep -c '^libsplit: launch .* split over' "$5" 2>/dev/null || true)
  printf '%s\t%s\t%s\t%s\n' "$2" "$3" "$4" "${splits:-0}" >>"$1"
}

status_of_rc() { # rc -> hang / crash / fail
  case $1 in 124|137) echo hang ;; 13[0-9]|1[4-9][0-9]) echo crash ;; *) echo fail ;; esac
}

cts_exe() { # suite -> its executable in the CTS build
  case $1 in
    image_streams) echo "$cts_bin/images/kernel_read_write/test_image_streams" ;;
    *) echo "$cts_bin/$1/test_$1" ;;
  esac
}

cts_subtests() { # suite -> names, one a line
  local exe; exe=$(cts_exe "$1")
  if [ "$quick" = 1 ]; then
    python3 "$lib" cts-quick "$1" "$exe" "$list"
  else
    "$exe" --help 2>/dev/null | sed -n '/^Test names:/,$p' | tail -n +2 |
      sed 's/^[[:space:]]*//' | grep -v '^$' || true
  fi | { [ -n "$tests_re" ] && grep -E -- "$tests_re" || cat; } | tail -n +"$from"
}

# Every sub-test runs in the three modes one after the other, so that a run
# cut short still compares every sub-test it reached.
# With "resume", goes on after the sub-tests a time-budget stop left it at.
run_cts_suite() { # suite [resume]
  local s=$1 resume=${2:-} exe; exe=$(cts_exe "$1")
  if [ ! -x "$exe" ]; then
    say "test_$s did not build: left out"
    echo "test_$s did not build" >"$out/$s.missing"
    return
  fi
  local names; names=$(cts_subtests "$s")
  local n; n=$(($(printf '%s\n' "$names" | grep -c . || true) + from - 1))
  local i=$((from - 1)) t m
  if [ -n "$resume" ]; then
    i=$(cut -f1 "$out/$s.cut")
    rm -f "$out/$s.cut"
    names=$(printf '%s\n' "$names" | tail -n +$((i - from + 2)))
    say "time left: test_$s goes on from sub-test $((i + 1))"
  else
    for m in ${modes//,/ }; do : >"$out/$s.$m.tsv"; mkdir -p "$out/logs/$s/$m"; done
  fi
  begin_suite
  while IFS= read -r t; do
    [ -n "$t" ] || continue
    out_of_time "$s" "$i" "$n" && break
    i=$((i + 1))
    local line="test_$s [$i/$n] $t:"
    for m in ${modes//,/ }; do
      local logs=$out/logs/$s/$m
      local json=$logs/$t.json start=$SECONDS rc=0 st
      rm -f "$json"
      limit=$(run_limit)
      ( cd "$(dirname "$exe")" &&
        CL_CONFORMANCE_RESULTS_FILENAME=$json run_in_mode "$m" "$logs/$t.log" "$exe" "$t" ) || rc=$?
      st=$(python3 "$lib" cts-result "$json" "$t" 2>/dev/null || true)
      if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
        if cut_by_budget; then st=cut; else st=hang; fi
      elif [ -z "$st" ] && [ "$rc" = 0 ]; then st=pass
      elif [ -z "$st" ]; then st=$(status_of_rc "$rc")
      elif [ "$rc" != 0 ] && [ "$st" = pass ]; then st=fail; fi
      record "$out/$s.$m.tsv" "$t" "$st" $((SECONDS - start)) "$logs/$t.log"
      line+=" $m $st ($((SECONDS - start)) s)"
    done
    say "$line"
  done <<<"$names"
}

run_piglit() {
  local list; list=$(python3 "$lib" piglit-list "$piglit_dir" "$quick" |
    { [ -n "$tests_re" ] && grep -E -- "^[^	]*($tests_re)" || cat; } | tail -n +"$from")
  local n; n=$(($(printf '%s\n' "$list" | grep -c . || true) + from - 1))
  for m in ${modes//,/ }; do : >"$out/piglit.$m.tsv"; mkdir -p "$out/logs/piglit/$m"; done
  local i=$((from - 1)) name cmd m
  begin_suite
  while IFS=$'\t' read -r name cmd; do
    [ -n "$name" ] || continue
    out_of_time piglit "$i" "$n" && break
    i=$((i + 1))
    local line="piglit [$i/$n] $name:"
    for m in ${modes//,/ }; do
      local log=$out/logs/piglit/$m/${name//[^A-Za-z0-9._+-]/_}.log start=$SECONDS rc=0 st
      limit=$(run_limit)
      # shellcheck disable=SC2086  # the command is a word list by design
      ( cd "$piglit_dir" && PATH=$piglit_dir/bin:$PATH run_in_mode "$m" "$log" $cmd ) || rc=$?
      st=$(python3 "$lib" piglit-result "$log" || true)
      if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
        if cut_by_budget; then st=cut; else st=hang; fi
      elif [ -z "$st" ]; then st=$(status_of_rc "$rc"); fi
      record "$out/piglit.$m.tsv" "$name" "$st" $((SECONDS - start)) "$log"
      line+=" $m $st"
    done
    say "$line"
  done <<<"$list"
}

for s in "${cts_suites[@]}"; do run_cts_suite "$s"; done
want piglit "$suites" && run_piglit
# Budget left over (suites that ended within their share): the CTS suites
# that a share stopped go on, in turn, each with an even share again.
if [ "$budget_end" -gt 0 ]; then
  stopped=()
  for s in "${cts_suites[@]}"; do [ -f "$out/$s.cut" ] && stopped+=("$s"); done
  suites_left=${#stopped[@]}
  for s in "${stopped[@]}"; do
    [ $((budget_end - SECONDS)) -ge 5 ] || break
    run_cts_suite "$s" resume
  done
fi

python3 "$lib" report "$out" | tee "$out/report.txt"
