#!/usr/bin/env bash
# Builds memwall and runs the whole test suite through CTest.
# Usage: scripts/test.sh [preset]   (release by default; asan for the sanitizer build)
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:-release}
scripts/build.sh "$preset"
ctest --preset "$preset"
