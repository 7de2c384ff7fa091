#!/usr/bin/env bash
# Proves `pip install .` works as docs/python.md says: a fresh virtual environment of Debian's
# python3, `pip install .` from this checkout (CMake builds the module through the in-tree backend,
# python/build_backend/), then `import memwall` and one estimate from a folder outside the tree.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
if ! /usr/bin/python3 -c "import ensurepip" 2>/dev/null; then
  if [ "$(id -u)" -eq 0 ]; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends python3-venv python3-pip
  else
    echo "python-install-check: needs Debian's python3-venv" >&2; exit 1
  fi
fi
venv="$(mktemp -d /tmp/memwall-venv.XXXXXX)"
trap 'rm -rf "$venv"' EXIT
/usr/bin/python3 -m venv "$venv"
"$venv/bin/pip" install --disable-pip-version-check -q .
cd "$venv"
"$venv/bin/python" - <<'PY'
import memwall
r = memwall.infer(model="llama-3.1-8b", gpu="h100", input=1024, output=256, batch=8)
assert r["tpot_s"] > 0 and r["throughput_tokens_per_s"] > 0, r
print(f"python-install-check: memwall {memwall.__version__} (commit {memwall.__commit__}) from "
      f"{memwall.__file__}: llama-3.1-8b on h100, batch 8: TPOT {r['tpot_s']*1e3:.2f} ms")
PY
