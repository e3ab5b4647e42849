#!/usr/bin/env bash
# README command (1): the main job. Builds libsplit, then runs an iterative
# all-pairs N-body simulation (an ordinary single-device OpenCL program) split
# over every available device, and prints how the split converges launch by
# launch. With no GPU present, PoCL is asked for two CPU devices of different
# speed ("pthread basic") so that there is something to balance.
#
# Knobs: DEMO_SIZE (small|medium|large, default small), DEMO_ITERS (default 20),
# DEMO_SCHEDULER (default: libsplit's default where a GPU is present; broyden,
# the paper's solver, on a machine with CPU devices only), POCL_DEVICES (kept
# when set).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${LIBSPLIT_BUILD_DIR:-$root/build}
size=${DEMO_SIZE:-small}
iters=${DEMO_ITERS:-20}

bash "$root/scripts/build.sh"

if [ -z "${POCL_DEVICES:-}" ] && ! clinfo -l 2>/dev/null | grep -qiv -e pthread -e basic -e platform; then
  export POCL_DEVICES="pthread basic"
  # By default libsplit counts devices on the host's cores as one (it would
  # only forward every call here); the demo asks for each to count.
  export LIBSPLIT_HOST_DEVICES=all
  # There the default scheduler would rightly keep every launch on the app's
  # device (the cores are shared): the paper's solver shows the balancing,
  # from the first launch (partition-ready program built before it).
  : "${DEMO_SCHEDULER:=broyden}"
  export LIBSPLIT_SYNC_PREPARE=1
  echo "No GPU found: PoCL exposes two CPU devices (pthread, basic). Both share this"
  echo "machine's cores, so the demo shows the mechanics and the convergence, not a speed-up"
  echo "(LIBSPLIT_HOST_DEVICES=all: by default libsplit would leave such a node to the app alone)."
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
app=("$build/bench/bin/nbody" --size "$size" --iters "$iters")
run=("$build/libsplit/libsplit-run" --trace "$work/trace.csv")
[ -n "${DEMO_SCHEDULER:-}" ] && run+=(--scheduler "$DEMO_SCHEDULER")

echo "== devices libsplit will use"
"$build/libsplit/libsplit-info"
echo
ndev=$(clinfo -l 2>/dev/null | grep -c "Device #" || true)
for ((d = 0; d < ndev; d++)); do
  echo "== nbody alone on device $d (devices of all platforms, in order), without libsplit"
  "${app[@]}" --device "$d"
  echo
done
echo "== the same binary (device 0) under libsplit"
if [ -z "${DEMO_SCHEDULER:-}" ]; then
  echo "(default scheduler 'auto': each kernel runs whole on the app's device first, exactly as"
  echo " the app alone; the other devices are measured by small probes beside it, and launches"
  echo " are split only once the measurements say a split wins. On a GPU node expect the GPU's"
  echo " own speed from the first launch, and a split where other devices really help."
  echo " DEMO_SCHEDULER=adaptive shows a split balancing from the first launch instead.)"
else
  echo "(scheduler '$DEMO_SCHEDULER': every launch split, the shares re-solved from the measured"
  echo " times of the previous launch; libsplit's default 'auto' would only split where it wins.)"
fi
"${run[@]}" -- "${app[@]}"
echo
echo "== how the split converged (share of work-groups and time per device, per launch)"
/usr/bin/python3 "$root/scripts/show_convergence.py" "$work/trace.csv"
