#!/usr/bin/env bash
# Installs every Debian package libsplit needs to build, test and benchmark.
# Idempotent: packages already present are skipped, so both README commands
# can call it on every run. Needs root (or sudo) on Debian 12.
#   scripts/install-deps.sh              the project's packages
#   scripts/install-deps.sh PKG...       these instead (other scripts' needs,
#                                        e.g. build-pocl-remote.sh)
set -euo pipefail

packages=(
  build-essential dpkg-dev file cmake ninja-build pkg-config git
  llvm-16-dev libclang-16-dev clang-16 libpolly-16-dev
  libeigen3-dev libgtest-dev nlohmann-json3-dev
  ocl-icd-opencl-dev opencl-headers opencl-clhpp-headers pocl-opencl-icd clinfo
  python3 python3-matplotlib python3-pyopencl
  piglit spirv-tools oclgrind clpeak libclblast-dev libviennacl-dev libclfft-dev
  python-pyopencl-doc
)
[ $# -eq 0 ] || packages=("$@")

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-deps: done"
