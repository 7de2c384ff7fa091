#!/usr/bin/env bash
# Checks the Prometheus rules of the advisor's walls with the real tools: the committed
# tools/prometheus/memwall-rules.yml must equal `memwall monitor --emit-rules -` (regenerate with
# `build/memwall monitor --emit-rules tools/prometheus/memwall-rules.yml`), and `promtool check
# rules` and `promtool test rules tools/prometheus/memwall-rules.test.yml` must pass.
# Usage: scripts/check-prometheus-rules.sh [path/to/memwall]. Needs promtool (Debian package
# `prometheus`); exits 77 (skipped, for CTest) without it. Registered as the CTest test
# monitor.prometheus_rules (label prometheus). The PromQL of the fleet dashboard
# (tools/grafana/memwall-fleet.json, its variables set to .*) is checked by promtool too.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="${1:-$root/build/memwall}"
[[ -x "$bin" ]] || { echo "check-prometheus-rules.sh: no memwall binary at $bin (build first)" >&2; exit 2; }
command -v promtool >/dev/null || { echo "check-prometheus-rules.sh: no promtool (apt-get install prometheus): skipped" >&2; exit 77; }
rules="$root/tools/prometheus/memwall-rules.yml"
generated="$(mktemp)"
dashboard_rules="$(mktemp --suffix=.yml)"
trap 'rm -f "$generated" "$dashboard_rules"' EXIT
"$bin" monitor --emit-rules "$generated"
if ! diff -u "$rules" "$generated"; then
  echo "check-prometheus-rules.sh: $rules is stale: regenerate it with $bin monitor --emit-rules $rules" >&2
  exit 1
fi
promtool check rules "$rules"
(cd "$root/tools/prometheus" && promtool test rules memwall-rules.test.yml)
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
