#!/usr/bin/env bash
# Browser tests of the web UI (ui/tests/browser.mjs): Debian's chromium driven by playwright-core,
# every view in English and Chinese, the static report offline. Installs chromium (apt, as root) and
# the npm packages of ui/package-lock.json when missing, builds memwall if needed, and keeps the
# screenshots in build/ui-test/ (or $MEMWALL_UI_TEST_OUT). Usage: scripts/ui-test.sh
set -euo pipefail
cd "$(dirname "$0")/.."
need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v npm >/dev/null 2>&1 || need+=(npm)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "memwall ui-test: missing ${need[*]} (sudo apt-get install ${need[*]})" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -q --no-install-recommends "${need[@]}" >/dev/null 2>&1 ||
    { apt-get update -q && apt-get install -y -q --no-install-recommends "${need[@]}"; }
fi
if [ ! -f ui/node_modules/playwright-core/package.json ] || [ ui/package-lock.json -nt ui/node_modules/.package-lock.json ]; then
  (cd ui && npm ci --no-audit --no-fund --loglevel=error)
fi
scripts/build.sh release >/dev/null
out=${MEMWALL_UI_TEST_OUT:-build/ui-test}
timeout 175 node ui/tests/browser.mjs build/memwall "$out"
