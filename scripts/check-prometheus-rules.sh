#!/usr/bin/env bash
# Checks the Prometheus rules of the advisor's walls with the real tools: the committed
# tools/prometheus/memwall-rules.yml must equal `memwall monitor --emit-rules -` (regenerate with
# `build/memwall monitor --emit-rules tools/prometheus/memwall-rules.yml`) and
# memwall-rules-h100.yml the same with `--gpu h100` (the link saturation alerts), and `promtool
# check rules` and `promtool test rules` of memwall-rules.test.yml and memwall-rules-h100.test.yml
# must pass.
# Usage: scripts/check-prometheus-rules.sh [path/to/memwall]. Needs promtool (Debian package
# `prometheus`); exits 77 (skipped, for CTest) without it. Registered as the CTest test
# monitor.prometheus_rules (label prometheus). The PromQL of the fleet dashboard
# (tools/grafana/memwall-fleet.json, its variables set to .*) is checked by promtool too.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="${1:-$root/build/memwall}"
[[ -x "$bin" ]] || { echo "check-prometheus-rules.sh: no memwall binary at $bin (build first)" >&2; exit 2; }
command -v promtool >/dev/null || { echo "check-prometheus-rules.sh: no promtool (apt-get install prometheus): skipped" >&2; exit 77; }
dir="$root/tools/prometheus"
generated="$(mktemp)"
dashboard_rules="$(mktemp --suffix=.yml)"
trap 'rm -f "$generated" "$dashboard_rules"' EXIT
# The committed rules file and the --emit-rules options it is generated with.
for pair in "memwall-rules.yml:" "memwall-rules-h100.yml:--gpu h100"; do
  name="${pair%%:*}"
  options="${pair#*:}"
  # shellcheck disable=SC2086  # options are words
  "$bin" monitor --emit-rules "$generated" $options 2>/dev/null
  if ! diff -u "$dir/$name" "$generated"; then
    echo "check-prometheus-rules.sh: $dir/$name is stale: regenerate it with $bin monitor --emit-rules $dir/$name $options" >&2
    exit 1
  fi
  promtool check rules "$dir/$name"
  (cd "$dir" && promtool test rules "${name%.yml}.test.yml")
done
python3 - "$root/tools/grafana/memwall-fleet.json" > "$dashboard_rules" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print("groups:\n  - name: dashboard-queries\n    rules:")
for i, p in enumerate(d["panels"]):
    for t in p["targets"]:
        expr = t["expr"].replace("$namespace", ".*").replace("$pod", ".*").replace("$source", ".*")
        print(f"      - record: dashboard:panel_{i}_{t['refId']}\n        expr: {json.dumps(expr)}")
PY
promtool check rules "$dashboard_rules"
