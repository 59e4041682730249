#!/usr/bin/env bash
# Installs what is missing (Debian 12 packages), configures and builds.
#   tools/scripts/setup.sh [release|sanitize|gcc]...   (default: release)
# Idempotent: a second run installs nothing and rebuilds only what changed.
set -euo pipefail
cd "$(dirname "$0")/../.."

packages=(
  cmake ninja-build clang-14 lld-14 lld g++ llvm-14-dev llvm-14-tools
  libmlir-14-dev mlir-14-tools libhalide14-0-dev libpng-dev libjpeg-dev
  libgtest-dev zlib1g-dev libclang-rt-14-dev python3
  pkgconf  # the package tests read gdr.pc with pkg-config
  # lld-14 has ld.lld-14 only; -fuse-ld=lld (what a GCC driver given our
  # linker flags looks for) needs ld.lld, from the unversioned package.
  # The foreign-kernel tests (test/cross): aarch64 programs cross-built and
  # run under qemu-user (libc6-dev-arm64-cross comes with g++).
  g++-aarch64-linux-gnu binutils-aarch64-linux-gnu qemu-user
  # The Python package (python/) and its tests, for Debian's /usr/bin/python3;
  # libtorch-dev (only a Recommends of python3-torch) for torch.ops.gdr's C++
  # kernels.
  python3-dev pybind11-dev python3-numpy python3-pytest python3-torch libtorch-dev
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=()
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || {
      echo "setup: not root and no sudo: run this as root, or as root: apt-get install ${missing[*]}" >&2
      exit 1
    }
    sudo_cmd=(sudo)
  fi
  # env inside sudo: sudo's env_reset would drop the variable.
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# Debian's interpreter, whose numpy, pytest and torch the packages above
# install (a python3 earlier on PATH, e.g. pyenv's, has none of them), and
# only those: not a user's pip packages in ~/.local (a CUDA torch there
# would be found first).
export PYTHONNOUSERSITE=1
python=(-DPython3_EXECUTABLE=/usr/bin/python3)
clang=("${python[@]}" -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14
       -DCMAKE_EXE_LINKER_FLAGS=-fuse-ld=lld -DCMAKE_SHARED_LINKER_FLAGS=-fuse-ld=lld)
# Debian 12's default compiler (GCC 12) and linker, what a plain `cmake` picks.
gcc=("${python[@]}" -DCMAKE_C_COMPILER=gcc -DCMAKE_CXX_COMPILER=g++)

configure_and_build() {  # $1: build dir, rest: cmake flags
  local dir=$1
  shift
  if [ ! -f "$dir/build.ninja" ]; then
    # (The sanitize build leaves out the compiler and Python, which read two
    # of the shared flags: not worth a CMake warning.)
    cmake -G Ninja -S . -B "$dir" --no-warn-unused-cli -DMLIR_TABLEGEN_EXE=/usr/lib/llvm-14/bin/mlir-tblgen "$@" >/dev/null
  fi
  cmake --build "$dir"
}

builds=("$@")
[ ${#builds[@]} -gt 0 ] || builds=(release)
for b in "${builds[@]}"; do
  case "$b" in
    release) configure_and_build build "${clang[@]}" -DCMAKE_BUILD_TYPE=Release ;;
    sanitize)
      configure_and_build build-sanitize "${clang[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGDR_SANITIZE=ON ;;
    gcc) configure_and_build build-gcc "${gcc[@]}" -DCMAKE_BUILD_TYPE=Release ;;
    *) echo "setup: unknown build '$b' (release, sanitize or gcc)" >&2; exit 2 ;;
  esac
done
