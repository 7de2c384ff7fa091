#!/usr/bin/env bash
# Builds memwall (Release) into build/, leaving the binary at build/memwall.
# Usage: scripts/build.sh [preset]   (release by default; also debug, asan, fuzz)
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:-release}
scripts/deps.sh
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset"
