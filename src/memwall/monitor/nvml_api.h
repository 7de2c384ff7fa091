// The part of the NVIDIA Management Library (NVML) C API that memwall uses, declared here from
// the public NVML API reference (docs.nvidia.com/deploy/nvml-api/, "Initialization and Cleanup",
// "Device Queries", "GPM Functions/Enums/Structs") so memwall builds with no NVIDIA header or
// driver installed. The library is opened at run time (nvml_loader.h); `Functions` is the table
// of entry points, which tests fill with fakes. An entry left null means "not in this driver".
#pragma once

namespace memwall::monitor::nvml {

using Return = int;                              // nvmlReturn_t
inline constexpr Return kSuccess = 0;            // NVML_SUCCESS
inline constexpr Return kErrorNotSupported = 3;  // NVML_ERROR_NOT_SUPPORTED

struct DeviceOpaque;
using Device = DeviceOpaque*;  // nvmlDevice_t: an opaque handle
struct GpmSampleOpaque;
using GpmSample = GpmSampleOpaque*;  // nvmlGpmSample_t: an opaque handle

// nvmlUtilization_t: percent of the last sample period (1/6 s to 1 s by product) in which a
// kernel ran / device memory was read or written.
struct Utilization {
  unsigned int gpu;
  unsigned int memory;
};

// nvmlMemory_t (v1): bytes.
struct Memory {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};

inline constexpr int kTemperatureGpu = 0;                  // NVML_TEMPERATURE_GPU
inline constexpr int kClockSm = 1;                         // NVML_CLOCK_SM
inline constexpr int kClockMem = 2;                        // NVML_CLOCK_MEM
inline constexpr int kPcieTxBytes = 0;                     // NVML_PCIE_UTIL_TX_BYTES
inline constexpr int kPcieRxBytes = 1;                     // NVML_PCIE_UTIL_RX_BYTES
inline constexpr unsigned int kDeviceNameBufferSize = 96;  // NVML_DEVICE_NAME_V2_BUFFER_SIZE
inline constexpr unsigned int kDeviceUuidBufferSize = 96;  // NVML_DEVICE_UUID_V2_BUFFER_SIZE

// GPM metric ids (nvmlGpmMetricId_t). Percentages are 0-100 doubles; throughputs are MiB/s.
inline constexpr unsigned int kGpmSmUtil = 2;                // NVML_GPM_METRIC_SM_UTIL
inline constexpr unsigned int kGpmSmOccupancy = 3;           // NVML_GPM_METRIC_SM_OCCUPANCY
inline constexpr unsigned int kGpmAnyTensorUtil = 5;         // NVML_GPM_METRIC_ANY_TENSOR_UTIL
inline constexpr unsigned int kGpmDramBwUtil = 10;           // NVML_GPM_METRIC_DRAM_BW_UTIL
inline constexpr unsigned int kGpmPcieTxPerSec = 20;         // NVML_GPM_METRIC_PCIE_TX_PER_SEC
inline constexpr unsigned int kGpmPcieRxPerSec = 21;         // NVML_GPM_METRIC_PCIE_RX_PER_SEC
inline constexpr unsigned int kGpmNvlinkTotalRxPerSec = 60;  // ..._NVLINK_TOTAL_RX_PER_SEC
inline constexpr unsigned int kGpmNvlinkTotalTxPerSec = 61;  // ..._NVLINK_TOTAL_TX_PER_SEC

// nvmlGpmMetric_t
struct GpmMetric {
  unsigned int metric_id;
  Return nvml_return;  // the value is valid only when this is kSuccess
  double value;
  struct {
    char* short_name;
    char* long_name;
    char* unit;
  } metric_info;
};

// NVML_GPM_METRICS_GET_VERSION and nvmlGpmMetricsGet_t. The header sizes metrics[] with
// NVML_GPM_METRIC_MAX (98 in the first GPM header, NVML 11.8; later headers grew it under the
// same version number), and the driver reads numMetrics entries. memwall gives more slots than any
// header so far has, so the struct is never shorter than the driver expects.
inline constexpr unsigned int kGpmMetricsGetVersion = 1;
inline constexpr unsigned int kGpmMetricSlots = 512;
struct GpmMetricsGet {
  unsigned int version;
  unsigned int num_metrics;
  GpmSample sample1;
  GpmSample sample2;
  GpmMetric metrics[kGpmMetricSlots];
};

// NVML_GPM_SUPPORT_VERSION and nvmlGpmSupport_t.
inline constexpr unsigned int kGpmSupportVersion = 1;
struct GpmSupport {
  unsigned int version;
  unsigned int is_supported_device;
};

// Entry points, named after the NVML symbols they are loaded from.
struct Functions {
  // Required: without these there is no NVML to speak of.
  Return (*init_v2)() = nullptr;                           // nvmlInit_v2
  Return (*shutdown)() = nullptr;                          // nvmlShutdown
  Return (*device_get_count_v2)(unsigned int*) = nullptr;  // nvmlDeviceGetCount_v2
  Return (*device_get_handle_by_index_v2)(unsigned int, Device*) = nullptr;
  // Optional readings.
  const char* (*error_string)(Return) = nullptr;                     // nvmlErrorString
  Return (*device_get_name)(Device, char*, unsigned int) = nullptr;  // nvmlDeviceGetName
  Return (*device_get_uuid)(Device, char*, unsigned int) = nullptr;  // nvmlDeviceGetUUID
  Return (*device_get_utilization_rates)(Device, Utilization*) = nullptr;
  Return (*device_get_memory_info)(Device, Memory*) = nullptr;
  Return (*device_get_power_usage)(Device, unsigned int*) = nullptr;       // milliwatts
  Return (*device_get_temperature)(Device, int, unsigned int*) = nullptr;  // degrees C
  Return (*device_get_clock_info)(Device, int, unsigned int*) = nullptr;   // MHz
  // nvmlDeviceGetCurrentClocksEventReasons (NVML >= 12.2), else the older
  // nvmlDeviceGetCurrentClocksThrottleReasons: the same bitmask.
  Return (*device_get_current_clocks_event_reasons)(Device, unsigned long long*) = nullptr;
  Return (*device_get_pcie_throughput)(Device, int, unsigned int*) = nullptr;  // KB/s, 20 ms
  // GPM (Hopper and newer, Linux; NVML 11.8 / R520 and later).
  Return (*gpm_query_device_support)(Device, GpmSupport*) = nullptr;
  Return (*gpm_sample_alloc)(GpmSample*) = nullptr;
  Return (*gpm_sample_free)(GpmSample) = nullptr;
  Return (*gpm_sample_get)(Device, GpmSample) = nullptr;
  Return (*gpm_metrics_get)(GpmMetricsGet*) = nullptr;
};

}  // namespace memwall::monitor::nvml
