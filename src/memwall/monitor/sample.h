// One reading of one GPU's counters at one moment: the efficiency signals (SM activity, SM
// occupancy, tensor-pipe activity, DRAM bandwidth utilisation, from NVML GPM on Hopper and newer),
// the coarse "GPU util", memory, power, temperature, clocks, clock-throttle reasons and PCIe/NVLink
// traffic. Every reading is optional: what the driver did not report stays unknown, never zero.
//
// Definitions (NVML API reference, docs.nvidia.com/deploy/nvml-api; DCGM profiling metrics):
//   sm_active            fraction of cycles an SM had at least one warp resident, averaged over
//                        all SMs (NVML_GPM_METRIC_SM_UTIL / 100; DCGM_FI_PROF_SM_ACTIVE)
//   sm_occupancy         resident warps / maximum warps per SM, averaged over SMs and cycles
//                        (NVML_GPM_METRIC_SM_OCCUPANCY / 100)
//   tensor_active        cycles any tensor pipe was busy / peak sustained rate
//                        (NVML_GPM_METRIC_ANY_TENSOR_UTIL / 100)
//   dram_bw_util         DRAM bandwidth used / theoretical maximum (NVML_GPM_METRIC_DRAM_BW_UTIL
//                        / 100); about 0.8 is the practical ceiling (DCGM docs). The exporters'
//                        and AMD's counterparts are cycle shares of the memory interface, which
//                        the same reading holds: DCGM_FI_PROF_DRAM_ACTIVE ("ratio of cycles the
//                        device memory interface is active sending or receiving data", DCGM
//                        profiling metrics) and AMD's UMC activity (amdsmi_engine_usage_t.
//                        umc_activity / 100, the memory controller's busy share), read alike
//                        whether they come from Prometheus or from the local library
//   gpu_util             share of the driver's sample period in which any kernel ran
//                        (nvmlUtilization_t.gpu / 100): time, not how much of the GPU was used
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "memwall/core/document.h"

namespace memwall::monitor {

struct GpuSample {
  double time_s = 0;  // Unix time of the reading, seconds
  int index = 0;      // NVML device index
  std::optional<std::string> name, uuid;

  std::optional<double> sm_active_ratio;
  std::optional<double> sm_occupancy_ratio;
  std::optional<double> tensor_active_ratio;
  std::optional<double> dram_bw_util_ratio;
  std::optional<double> gpu_util_ratio;

  std::optional<double> memory_used_bytes, memory_total_bytes;
  std::optional<double> power_w;
  std::optional<double> temperature_c;
  std::optional<double> sm_clock_mhz, memory_clock_mhz;
  std::optional<uint64_t> throttle_reasons;  // nvmlClocksEventReasons bitmask
  std::optional<double> pcie_rx_bytes_per_s, pcie_tx_bytes_per_s;
  std::optional<double> nvlink_rx_bytes_per_s, nvlink_tx_bytes_per_s;

  bool operator==(const GpuSample&) const = default;
};

// The clock-event (formerly "clocks throttle") reason bits of
// nvmlDeviceGetCurrentClocksEventReasons (NVML API reference, group nvmlClocksEventReasons).
struct ThrottleReason {
  uint64_t bit;
  const char* name;    // snake_case, used in JSON and as the Prometheus label value
  bool limits_clocks;  // power or thermal: the clocks, not the workload, set the pace
};
const std::vector<ThrottleReason>& throttle_reasons();
// Names of the bits set in `mask` (unknown bits as "0x..."), in bit order.
std::vector<std::string> throttle_reason_names(uint64_t mask);
// True when any power or thermal reason is active.
bool clocks_limited(uint64_t mask);

// The numeric readings (every optional<double> of GpuSample) with their JSON key and allowed
// range, so code that treats them alike (parsing, averaging) walks one table.
struct NumericField {
  const char* key;
  std::optional<double> GpuSample::*member;
  double max;           // allowed range is [0, max]
  const char* allowed;  // for messages
};
const std::vector<NumericField>& numeric_fields();

// JSON object with one key per known field; unknown fields are left out.
Json to_json(const GpuSample& s);
// Parses one object; InputError naming `where`, the field, the value and what is allowed for an
// unknown key, a wrong type, a ratio outside [0, 1], a negative, NaN or infinite number.
GpuSample sample_from_json(const Json& j, const std::string& where);

// The names of the JSON keys, in output order (for messages and the fuzz target).
const std::vector<std::string>& sample_keys();

}  // namespace memwall::monitor
