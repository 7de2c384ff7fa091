#include "memwall/train/kernel_time.h"

#include <cmath>

namespace memwall::train {

DeviceRates device_rates(const perf::Ceilings& c, double kernel_overhead_s,
                         double gemm_in_situ_fraction) {
  DeviceRates r;
  r.matmul_peak = c.matmul_peak.value();
  r.gemm_fraction = c.gemm_peak_fraction * gemm_in_situ_fraction;  // sustained fraction included
  r.sustained_compute_fraction = c.sustained_compute_fraction;
  r.memory_bandwidth = c.memory_sustained.value();
  r.compute_units = c.compute_units;
  r.kernel_overhead_s = kernel_overhead_s;
  r.efficiency = c.efficiency ? c.efficiency : &perf::default_efficiency();
  return r;
}

double gemm_seconds(const DeviceRates& r, double m, double n, double k, double batch) {
  if (m <= 0 || n <= 0 || k <= 0 || batch <= 0) return 0.0;
  auto whole = [](double x) { return int64_t(std::ceil(x)); };
  const double shape = perf::gemm_shape_efficiency(whole(m), whole(n), whole(k), whole(batch),
                                                   r.compute_units, *r.efficiency);
  return 2.0 * m * n * k * batch / (r.matmul_peak * r.gemm_fraction * shape) +
         r.kernel_overhead_s;
}

double memory_seconds(const DeviceRates& r, double bytes) {
  if (bytes <= 0) return 0.0;
  return bytes / r.memory_bandwidth + r.kernel_overhead_s;
}

}  // namespace memwall::train
