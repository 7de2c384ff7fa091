#!/usr/bin/env bash
# Installs the Debian 12 packages memwall builds with, when run as root and any is missing.
set -euo pipefail
pkgs=(cmake ninja-build g++ clang libclang-rt-14-dev ccache pkg-config
      nlohmann-json3-dev libyaml-cpp-dev libfmt-dev libcli11-dev libcpp-httplib-dev
      libgtest-dev libgmock-dev libbenchmark-dev libopenblas-dev pybind11-dev python3-dev)
missing=()
for p in "${pkgs[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then exit 0; fi
if [ "$(id -u)" -ne 0 ]; then
  echo "memwall: missing Debian packages: ${missing[*]} (run as root, or: sudo apt-get install ${missing[*]})" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${missing[@]}"
