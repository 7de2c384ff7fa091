#!/usr/bin/env bash
# Compiles memwall's GPU code on a machine with no GPU (issue 32 item 5), outside the default CI
# run (the toolkit is 1.6 GB from Debian's non-free component):
#   1. memwall's own NVML declarations (src/memwall/monitor/nvml_api.h) against the real nvml.h
#      (scripts/cuda/nvml_header_check.cc: constants, struct layouts, entry-point signatures);
#   2. the CUDA probe (src/memwall/probe/cuda/gpu_probe.cu) with nvcc into build-cuda/, and with
#      --full the whole memwall binary linked with it (then `build-cuda/memwall probe --help`).
# Usage: [NVCC=/usr/bin/nvcc] scripts/cuda-compile-check.sh [--install] [--full]
#   NVCC       the nvcc to build with (default: the first on PATH)
#   --install  (root) adds Debian 12's contrib/non-free component and installs nvidia-cuda-toolkit
#              (CUDA 11.8) and libnvidia-ml-dev (nvml.h) with apt-get.
# Exit status: 0 when everything compiled; 1 when a check failed; 2 when no toolkit is installed.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
install=0 full=0
for a in "$@"; do
  case "$a" in
    --install) install=1 ;;
    --full) full=1 ;;
    *) echo "cuda-compile-check: unknown option '$a' (allowed: --install, --full)" >&2; exit 2 ;;
  esac
done
if [[ $install == 1 ]]; then
  list=/etc/apt/sources.list.d/memwall-nonfree.sources
  if ! grep -rqs 'non-free' /etc/apt/sources.list /etc/apt/sources.list.d/; then
    printf 'Types: deb\nURIs: http://deb.debian.org/debian\nSuites: bookworm\nComponents: contrib non-free\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' > "$list"
  fi
  apt-get update
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends nvidia-cuda-toolkit libnvidia-ml-dev
fi
nvcc=${NVCC:-$(command -v nvcc || true)}
if [[ -z "$nvcc" || ! -x "$nvcc" ]]; then
  echo "cuda-compile-check: no nvcc; run with --install (as root) or install the CUDA toolkit" >&2
  exit 2
fi
cxx=${CXX:-c++}
nvml_h=$(printf '#include <nvml.h>\n' | "$cxx" -E -x c++ - 2> /dev/null | grep -m1 -o '/[^"]*/nvml\.h' || true)
if [[ -z "$nvml_h" ]]; then
  echo "cuda-compile-check: no nvml.h on the include path (Debian: libnvidia-ml-dev)" >&2
  exit 2
fi
echo "== 1. NVML declarations against $nvml_h"
"$cxx" -std=c++20 -fsyntax-only -Wall -Wextra -I"$root/src" "$root/scripts/cuda/nvml_header_check.cc"
echo "   nvml_api.h agrees with nvml.h: constants, struct layouts, $(grep -c '^MEMWALL_CHECK_ENTRY' "$root/scripts/cuda/nvml_header_check.cc") entry points"

echo "== 2. the CUDA probe: $nvcc, $("$nvcc" --version | tail -1)"
# CUDA 11.8's nvcc takes GCC up to 11 and clang up to 14 as its host compiler; Debian 12's
# default g++ is 12, so a supported one is picked when present.
host=()
for c in g++-11 clang++-14 clang++-13; do
  if command -v "$c" > /dev/null; then host=(-DCMAKE_CUDA_HOST_COMPILER="$(command -v "$c")"); break; fi
done
generator=()
if command -v ninja > /dev/null; then generator=(-G Ninja); fi
rm -rf "$root/build-cuda"  # a cached CUDA compiler would outlive a changed NVCC
# nvcc runs ptxas, fatbinary and the rest from PATH: those of its own toolkit first.
export PATH="$(dirname "$(readlink -f "$nvcc")"):$PATH"
MEMWALL_CUDA=1 cmake -S "$root" -B "$root/build-cuda" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CUDA_COMPILER="$nvcc" \
  -DMEMWALL_TESTS=OFF -DMEMWALL_BENCH=OFF -DMEMWALL_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES="80;90" \
  "${host[@]}" > "$root/build-cuda.log" 2>&1 || { tail -30 "$root/build-cuda.log"; exit 1; }
target=memwall_probe_cuda
[[ $full == 1 ]] && target=memwall
cmake --build "$root/build-cuda" --target "$target" -j "$(nproc)" >> "$root/build-cuda.log" 2>&1 ||
  { tail -40 "$root/build-cuda.log"; exit 1; }
echo "   built $target (sm_80, sm_90); log: build-cuda.log"
if [[ $full == 1 ]]; then "$root/build-cuda/memwall" probe --help | head -3; fi
echo "cuda-compile-check: passed"
