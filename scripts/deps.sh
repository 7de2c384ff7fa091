#!/usr/bin/env bash
# Installs the Debian 12 packages memwall builds with, when run as root and any is missing, and the
# web UI's npm packages (ui/package-lock.json: ECharts, compiled into the binary; playwright-core for
# scripts/ui-test.sh). Without npm or the registry the build goes on and the UI has no charts.
set -euo pipefail
cd "$(dirname "$0")/.."

web_deps() {
  if [ -f ui/node_modules/echarts/package.json ] && [ ! ui/package-lock.json -nt ui/node_modules/.package-lock.json ]; then
    return 0
  fi
  if ! command -v npm >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ]; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends npm >/dev/null 2>&1 ||
      { apt-get update -q >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends npm >/dev/null 2>&1; } || true
  fi
  if ! command -v npm >/dev/null 2>&1; then
    echo "memwall: npm not found: the web UI is built without charts (apt-get install npm, then rerun)" >&2
    return 0
  fi
  (cd ui && npm ci --no-audit --no-fund --loglevel=error) ||
    echo "memwall: npm ci in ui/ failed: the web UI is built without charts" >&2
}
# Prometheus and promtool (Debian `prometheus`), for the CTest tests labelled prometheus (a real
# Prometheus scraping memwall's exporter, promtool on the generated rules); optional: without it
# those tests skip. Only the binaries are used; the package's service is never started here.
prometheus_deps() {
  command -v promtool >/dev/null 2>&1 && return 0
  [ "$(id -u)" -eq 0 ] || return 0
  # invoke-rc.d asks /usr/sbin/policy-rc.d whether to start services; 101 = action forbidden
  # (init-system-helpers README.policy-rc.d). A temporary one keeps the package's service from
  # starting; an existing one is kept.
  local policy=/usr/sbin/policy-rc.d made=0
  if [ ! -e "$policy" ]; then printf '#!/bin/sh\nexit 101\n' > "$policy" && chmod +x "$policy" && made=1; fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends prometheus >/dev/null 2>&1 ||
    { apt-get update -q >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends prometheus >/dev/null 2>&1; } ||
    echo "memwall: prometheus not installed: the tests labelled prometheus will skip" >&2
  if [ "$made" -eq 1 ]; then rm -f "$policy"; fi
}
pkgs=(cmake ninja-build g++ clang libclang-rt-14-dev ccache pkg-config
      nlohmann-json3-dev libyaml-cpp-dev libfmt-dev libcli11-dev libcpp-httplib-dev
      libgtest-dev libgmock-dev libbenchmark-dev libopenblas-dev pybind11-dev python3-dev)
missing=()
for p in "${pkgs[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then web_deps; prometheus_deps; exit 0; fi
if [ "$(id -u)" -ne 0 ]; then
  echo "memwall: missing Debian packages: ${missing[*]} (run as root, or: sudo apt-get install ${missing[*]})" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${missing[@]}"
web_deps
prometheus_deps
