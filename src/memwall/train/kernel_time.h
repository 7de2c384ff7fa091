// Interim: time of one GEMM or one memory-bound kernel on an accelerator (roofline with achievable
// ceilings). To be replaced by the shared roofline and GEMM-efficiency functions of perf/ once they
// land; the training estimator calls only these two functions so the switch is local.
#pragma once

#include "memwall/core/precision.h"
#include "memwall/core/units.h"
#include "memwall/hw/accelerator.h"

namespace memwall::train {

// Achievable rates of one device, resolved once per setup.
struct DeviceRates {
  double matmul_peak = 0;      // FLOP/s, dense peak of the matmul precision
  double matmul_ceiling = 0;   // fraction of peak the best GEMM shape reaches (MAMF)
  double memory_bandwidth = 0; // B/s achievable (STREAM-like)
  int compute_units = 0;       // SMs/CUs for wave quantisation (0: unknown, ignored)
  double kernel_overhead_s = 0;
};

DeviceRates device_rates(const Accelerator& gpu, Precision matmul, double kernel_overhead_s);

// M x N x K GEMM (batch of `batch` independent ones), FLOPs 2 M N K batch.
double gemm_seconds(const DeviceRates& r, double m, double n, double k, double batch = 1.0);
// A kernel moving `bytes` through HBM.
double memory_seconds(const DeviceRates& r, double bytes);

}  // namespace memwall::train
