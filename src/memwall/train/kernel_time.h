// The time of one GEMM or one memory-bound kernel of a training step, from the shared roofline
// ceilings of perf/ (MAMF-calibrated GEMM fraction with tile and wave quantisation, STREAM-
// calibrated bandwidth). A thin adaptor that keeps the per-kernel arithmetic to a few operations
// so a configuration evaluates in microseconds.
#pragma once

#include "memwall/perf/roofline.h"

namespace memwall::train {

// Achievable rates of one device for one matmul precision, resolved once per setup.
struct DeviceRates {
  double matmul_peak = 0;       // FLOP/s, dense peak of the matmul precision
  double gemm_fraction = 0;     // best-shape GEMM / peak (MAMF) x sustained x in situ
  double sustained_compute_fraction = 1;  // power-limited clock under sustained load (perf/)
  double memory_bandwidth = 0;  // B/s sustained (STREAM)
  int compute_units = 0;        // SMs/CUs for wave quantisation (0: unknown)
  double kernel_overhead_s = 0; // per launched kernel
  const perf::Efficiency* efficiency = nullptr;
};

// `gemm_in_situ_fraction` scales the best-shape GEMM rate to what a full training step achieves.
DeviceRates device_rates(const perf::Ceilings& c, double kernel_overhead_s,
                         double gemm_in_situ_fraction = 1.0);

// M x N x K GEMM repeated `batch` times (FLOPs 2 M N K batch), compute bound.
double gemm_seconds(const DeviceRates& r, double m, double n, double k, double batch = 1.0);
// A kernel streaming `bytes` through HBM.
double memory_seconds(const DeviceRates& r, double bytes);

}  // namespace memwall::train
