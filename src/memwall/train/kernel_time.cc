#include "memwall/train/kernel_time.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace memwall::train {
namespace {

// Maximum achievable matmul FLOP/s over the dense peak, from the MAMF microbenchmarks of the dev
// set (Bekman, ml-engineering "maximum achievable matmul FLOPS"): A100 SXM 271.2/312 bf16,
// A100 PCIe 252.9/312, H100 SXM 794.5/989.4 bf16 and 1402.6/1978.9 fp8, B200 1745/2250,
// MI300X 668.4/1307. Other devices: the median of those, 0.80.
double mamf_fraction(const Accelerator& gpu, Precision p) {
  const bool fp8 = p == Precision::fp8_e4m3 || p == Precision::fp8_e5m2;
  const std::string& id = gpu.id;
  auto has = [&](const char* s) { return id.find(s) != std::string::npos; };
  if (has("a100")) return has("pcie") ? 0.81 : 0.87;
  if (has("h100") || has("h200") || has("h800") || has("gh200")) return fp8 ? 0.71 : 0.80;
  if (has("b200") || has("gb200")) return fp8 ? 0.76 : 0.78;
  if (has("mi300") || has("mi325")) return 0.51;
  return fp8 ? 0.72 : 0.80;
}

// Sustained HBM bandwidth over the datasheet peak, STREAM triad of the dev set: A100 80GB
// 1759/2039, A100 40GB 1360/1555, H100 PCIe 1832/2000, H200 3534/4800. Others: 0.85.
double stream_fraction(const Accelerator& gpu) {
  const std::string& id = gpu.id;
  auto has = [&](const char* s) { return id.find(s) != std::string::npos; };
  if (has("a100")) return 0.87;
  if (has("h200")) return 0.74;
  if (has("h100")) return 0.90;
  return 0.85;
}

// Tile of a large tensor-core GEMM kernel (CUTLASS/cuBLAS 256 x 128 on Ampere/Hopper).
constexpr double kTileM = 256, kTileN = 128;
// K below a few hundred leaves the main loop too short to hide the prologue/epilogue.
constexpr double kKOverhead = 96;

}  // namespace

DeviceRates device_rates(const Accelerator& gpu, Precision matmul, double kernel_overhead_s) {
  DeviceRates r;
  r.matmul_peak = gpu.peak(matmul).value_or(FlopsPerSecond(0)).value();
  r.matmul_ceiling = mamf_fraction(gpu, matmul);
  r.memory_bandwidth = gpu.memory_bandwidth.value_or(BytesPerSecond(0)).value() * stream_fraction(gpu);
  r.compute_units = gpu.compute_units.value_or(0);
  r.kernel_overhead_s = kernel_overhead_s;
  return r;
}

double gemm_seconds(const DeviceRates& r, double m, double n, double k, double batch) {
  if (m <= 0 || n <= 0 || k <= 0 || batch <= 0) return 0.0;
  const double flops = 2.0 * m * n * k * batch;
  // Tile padding and wave quantisation (the last wave of tiles runs partly empty).
  const double tiles = std::ceil(m / kTileM) * std::ceil(n / kTileN) * batch;
  double eff = (m * n * batch) / (tiles * kTileM * kTileN);
  if (r.compute_units > 0) {
    const double waves = tiles / r.compute_units;
    eff *= waves / std::ceil(waves);
  }
  eff *= k / (k + kKOverhead);
  return flops / (r.matmul_peak * r.matmul_ceiling * eff) + r.kernel_overhead_s;
}

double memory_seconds(const DeviceRates& r, double bytes) {
  if (bytes <= 0) return 0.0;
  return bytes / r.memory_bandwidth + r.kernel_overhead_s;
}

}  // namespace memwall::train
