// Test fixture: a fully known H100 sample, shared by the monitor's tests.
#pragma once

#include "memwall/monitor/sample.h"

namespace memwall::monitor::fixtures {

inline GpuSample h100_sample() {
  GpuSample s;
  s.time_s = 1764450000.5;
  s.index = 0;
  s.name = "NVIDIA H100 80GB HBM3";
  s.uuid = "GPU-12345678-abcd";
  s.sm_active_ratio = 0.42;
  s.sm_occupancy_ratio = 0.25;
  s.tensor_active_ratio = 0.125;
  s.dram_bw_util_ratio = 0.75;
  s.gpu_util_ratio = 1.0;
  s.memory_used_bytes = 64e9;
  s.memory_total_bytes = 85899345920;
  s.power_w = 612.5;
  s.temperature_c = 61;
  s.sm_clock_mhz = 1755;
  s.memory_clock_mhz = 2619;
  s.throttle_reasons = 0x4;  // sw_power_cap
  s.pcie_rx_bytes_per_s = 1048576;
  s.pcie_tx_bytes_per_s = 2097152;
  s.nvlink_rx_bytes_per_s = 5e10;
  s.nvlink_tx_bytes_per_s = 4.5e10;
  return s;
}

}  // namespace memwall::monitor::fixtures
