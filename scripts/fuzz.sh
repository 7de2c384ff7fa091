#!/usr/bin/env bash
# Builds the libFuzzer targets (the `asan` preset: clang, ASan+UBSan, coverage in every object; the
# same build runs the sanitizer tests) and runs each for a bounded time on its committed seed
# corpus. A finding prints the fuzzer's report and the reproducer, and fails the script.
# Usage: scripts/fuzz.sh [seconds-per-target]
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-20}
scripts/build.sh asan
status=0
for bin in build-asan/fuzz/*_fuzz; do
  name=$(basename "$bin" _fuzz)
  work=$(mktemp -d)
  cp -r "fuzz/corpus/$name/." "$work/" 2>/dev/null || true
  log="$work.log"
  echo "fuzzing $name for ${secs}s"
  if "$bin" -max_total_time="$secs" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
       -artifact_prefix="$work.finding-" -print_final_stats=1 "$work" >"$log" 2>&1; then
    grep -E '^stat::(number_of_executed_units|new_units_added)' "$log" || true
  else
    status=1
    echo "FINDING in $name (exit status above 0); the fuzzer's report:"
    grep -v -E '^#[0-9]+' "$log" | tail -n 60
    for f in "$work".finding-*; do
      [ -e "$f" ] || continue
      echo "reproducer $f (base64): $(base64 -w0 "$f")"
      echo "rerun: $bin $f"
    done
  fi
  rm -rf "$work" "$log"
done
if [ "$status" -ne 0 ]; then
  echo "fuzzing found a defect (see above)" >&2
  exit 1
fi
echo "fuzzing finished without findings"
