#!/usr/bin/env bash
# On a machine with an NVIDIA GPU and the CUDA toolkit: builds memwall with the CUDA probe
# (MEMWALL_CUDA=1) into build-gpu/, runs `memwall probe` (with `memwall monitor` recording the GPU
# meanwhile, and `memwall monitor --once --json` after, when this build has them), and leaves
# everything in "$OUT". Meant to finish in under 8 minutes: its steps time out after 60 (deps),
# 240 (build), 150 + 30 (probe, of which 20 s of sustained GEMM) and 20 s (monitor).
# Usage: OUT=/path/to/results scripts/gpu-check.sh   (optional: GPU_ID=<catalog id> to name the GPU)
set -uo pipefail
: "${OUT:?set OUT to the directory for the results}"
mkdir -p "$OUT"
root=$(cd "$(dirname "$0")/.." && pwd)
build="$root/build-gpu"
export MEMWALL_CUDA=1
jobs=$(nproc 2>/dev/null || echo 4)

nvidia-smi > "$OUT/nvidia-smi.txt" 2>&1 || echo "nvidia-smi failed (see nvidia-smi.txt)"

timeout 60 "$root/scripts/deps.sh" > "$OUT/deps.log" 2>&1 ||
  echo "scripts/deps.sh failed or timed out (see deps.log); trying the build anyway"
generator=()
if command -v ninja > /dev/null; then generator=(-G Ninja); fi

echo "== configure and build (log: $OUT/build.log)"
if ! { cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DMEMWALL_TESTS=OFF \
         -DMEMWALL_BENCH=OFF -DMEMWALL_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=native &&
       timeout 240 cmake --build "$build" --target memwall -j "$jobs"; } > "$OUT/build.log" 2>&1; then
  echo "build failed:"; tail -40 "$OUT/build.log"; exit 1
fi
grep "memwall probe" "$OUT/build.log"

# The catalog id of GPU 0, from the driver's name, unless GPU_ID names it.
gpu_id=${GPU_ID:-}
if [ -z "$gpu_id" ]; then
  name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
  case "$name" in
    *H200*) gpu_id=h200 ;; *H100*PCIe*) gpu_id=h100-pcie ;; *H100*) gpu_id=h100 ;;
    *H800*) gpu_id=h800 ;; *H20*) gpu_id=h20 ;; *A100*) gpu_id=a100 ;; *B200*) gpu_id=b200 ;;
    *L40S*) gpu_id=l40s ;; *4090*) gpu_id=4090 ;;
  esac
fi
gpu_args=()
if [ -n "$gpu_id" ] && "$build/memwall" catalog show "$gpu_id" > /dev/null 2>&1; then
  gpu_args=(--gpu "$gpu_id")
fi
echo "== GPU: ${name:-?} -> catalog id: ${gpu_id:-none}"

# The monitor records GPM readings while the probe loads the GPU (bandwidth, then GEMMs), so the
# readings under load can be checked against what the probe measured.
monitor_pid=
if "$build/memwall" monitor --help 2>/dev/null | grep -q -- "--record"; then
  "$build/memwall" monitor --record "$OUT/monitor-during-probe.jsonl" --interval-ms 200 \
    --duration 250 > /dev/null 2> "$OUT/monitor-during-probe.stderr" &
  monitor_pid=$!
fi

echo "== memwall probe ${gpu_args[*]}"
timeout 150 "$build/memwall" probe "${gpu_args[@]}" --out "$OUT/profile.json" --json \
  > "$OUT/probe.json" 2> "$OUT/probe.stderr"
echo "probe --json exit status: $?" | tee "$OUT/probe.status"
timeout 30 "$build/memwall" probe --quick "${gpu_args[@]}" > "$OUT/probe-quick.txt" 2>&1
echo "probe --quick exit status: $?" | tee -a "$OUT/probe.status"
cat "$OUT/probe-quick.txt"

if [ -n "$monitor_pid" ]; then
  kill -TERM "$monitor_pid" 2> /dev/null; wait "$monitor_pid"
  echo "== memwall monitor during the probe (replay, advisor)"
  "$build/memwall" monitor --replay "$OUT/monitor-during-probe.jsonl" --advise \
    > "$OUT/monitor-during-probe.txt" 2>&1
  tail -20 "$OUT/monitor-during-probe.txt"
fi
if "$build/memwall" monitor --help 2>/dev/null | grep -q -- "--once"; then
  echo "== memwall monitor --once --json"
  timeout 20 "$build/memwall" monitor --once --json > "$OUT/monitor.json" 2> "$OUT/monitor.stderr"
  echo "monitor exit status: $?" | tee "$OUT/monitor.status"
fi
echo "== results in $OUT:"; ls -l "$OUT"
