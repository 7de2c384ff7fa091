// Compiled by scripts/cuda-compile-check.sh against the real nvml.h (Debian's libnvidia-ml-dev,
// CUDA 11.8), never in the default build: memwall declares the part of NVML it uses itself
// (src/memwall/monitor/nvml_api.h) so it builds with no NVIDIA header, and this file checks that
// those declarations agree with the header: the constants' values, the structs' size and field
// offsets, and each entry point's arity and the size of its return and of each parameter (NVML's
// enums and handles are passed as int and pointers). It compiles to nothing; a mismatch is a
// compile error naming it.
#include <nvml.h>

#include <cstddef>
#include <type_traits>

#include "memwall/monitor/nvml_api.h"

namespace nvml = memwall::monitor::nvml;

// Constants.
static_assert(nvml::kSuccess == NVML_SUCCESS);
static_assert(nvml::kErrorNotSupported == NVML_ERROR_NOT_SUPPORTED);
static_assert(nvml::kTemperatureGpu == NVML_TEMPERATURE_GPU);
static_assert(nvml::kClockSm == NVML_CLOCK_SM);
static_assert(nvml::kClockMem == NVML_CLOCK_MEM);
static_assert(nvml::kPcieTxBytes == NVML_PCIE_UTIL_TX_BYTES);
static_assert(nvml::kPcieRxBytes == NVML_PCIE_UTIL_RX_BYTES);
static_assert(nvml::kDeviceNameBufferSize >= NVML_DEVICE_NAME_V2_BUFFER_SIZE);
static_assert(nvml::kDeviceUuidBufferSize >= NVML_DEVICE_UUID_V2_BUFFER_SIZE);
static_assert(nvml::kGpmSmUtil == NVML_GPM_METRIC_SM_UTIL);
static_assert(nvml::kGpmSmOccupancy == NVML_GPM_METRIC_SM_OCCUPANCY);
static_assert(nvml::kGpmAnyTensorUtil == NVML_GPM_METRIC_ANY_TENSOR_UTIL);
static_assert(nvml::kGpmDramBwUtil == NVML_GPM_METRIC_DRAM_BW_UTIL);
static_assert(nvml::kGpmPcieTxPerSec == NVML_GPM_METRIC_PCIE_TX_PER_SEC);
static_assert(nvml::kGpmPcieRxPerSec == NVML_GPM_METRIC_PCIE_RX_PER_SEC);
static_assert(nvml::kGpmNvlinkTotalRxPerSec == NVML_GPM_METRIC_NVLINK_TOTAL_RX_PER_SEC);
static_assert(nvml::kGpmNvlinkTotalTxPerSec == NVML_GPM_METRIC_NVLINK_TOTAL_TX_PER_SEC);
static_assert(nvml::kGpmMetricsGetVersion == NVML_GPM_METRICS_GET_VERSION);
static_assert(nvml::kGpmSupportVersion == NVML_GPM_SUPPORT_VERSION);
static_assert(nvml::kGpmMetricSlots >= NVML_GPM_METRIC_MAX);

// Structs: the same size and offsets (GpmMetricsGet is longer on purpose: more metric slots).
static_assert(sizeof(nvml::Return) == sizeof(nvmlReturn_t));
static_assert(sizeof(nvml::Device) == sizeof(nvmlDevice_t));
static_assert(sizeof(nvml::GpmSample) == sizeof(nvmlGpmSample_t));
static_assert(sizeof(nvml::Utilization) == sizeof(nvmlUtilization_t));
static_assert(offsetof(nvml::Utilization, memory) == offsetof(nvmlUtilization_t, memory));
static_assert(sizeof(nvml::Memory) == sizeof(nvmlMemory_t));
static_assert(offsetof(nvml::Memory, free) == offsetof(nvmlMemory_t, free));
static_assert(offsetof(nvml::Memory, used) == offsetof(nvmlMemory_t, used));
static_assert(sizeof(nvml::GpmMetric) == sizeof(nvmlGpmMetric_t));
static_assert(offsetof(nvml::GpmMetric, nvml_return) == offsetof(nvmlGpmMetric_t, nvmlReturn));
static_assert(offsetof(nvml::GpmMetric, value) == offsetof(nvmlGpmMetric_t, value));
static_assert(offsetof(nvml::GpmMetric, metric_info) == offsetof(nvmlGpmMetric_t, metricInfo));
static_assert(offsetof(nvml::GpmMetricsGet, num_metrics) == offsetof(nvmlGpmMetricsGet_t, numMetrics));
static_assert(offsetof(nvml::GpmMetricsGet, sample1) == offsetof(nvmlGpmMetricsGet_t, sample1));
static_assert(offsetof(nvml::GpmMetricsGet, sample2) == offsetof(nvmlGpmMetricsGet_t, sample2));
static_assert(offsetof(nvml::GpmMetricsGet, metrics) == offsetof(nvmlGpmMetricsGet_t, metrics));
static_assert(sizeof(nvml::GpmMetricsGet) >= sizeof(nvmlGpmMetricsGet_t));
static_assert(sizeof(nvml::GpmSupport) == sizeof(nvmlGpmSupport_t));
static_assert(offsetof(nvml::GpmSupport, is_supported_device) ==
              offsetof(nvmlGpmSupport_t, isSupportedDevice));

// Entry points: the same arity, and the same size and kind (pointer or not) of the return and of
// every parameter, between memwall's pointer type and the header's function.
template <typename A, typename B>
constexpr bool same_abi_value() {
  return sizeof(A) == sizeof(B) && std::is_pointer_v<A> == std::is_pointer_v<B>;
}
template <typename Ours, typename Theirs>
struct SameAbi;
template <typename R1, typename... A1, typename R2, typename... A2>
struct SameAbi<R1 (*)(A1...), R2(A2...)> {
  static constexpr bool value = sizeof...(A1) == sizeof...(A2) && same_abi_value<R1, R2>() &&
                                (same_abi_value<A1, A2>() && ...);
};
#define MEMWALL_CHECK_ENTRY(field, symbol)                                                   \
  static_assert(SameAbi<decltype(nvml::Functions::field), decltype(symbol)>::value, #symbol \
                " differs from nvml::Functions::" #field)

MEMWALL_CHECK_ENTRY(init_v2, nvmlInit_v2);
MEMWALL_CHECK_ENTRY(shutdown, nvmlShutdown);
MEMWALL_CHECK_ENTRY(device_get_count_v2, nvmlDeviceGetCount_v2);
MEMWALL_CHECK_ENTRY(device_get_handle_by_index_v2, nvmlDeviceGetHandleByIndex_v2);
MEMWALL_CHECK_ENTRY(error_string, nvmlErrorString);
MEMWALL_CHECK_ENTRY(device_get_name, nvmlDeviceGetName);
MEMWALL_CHECK_ENTRY(device_get_uuid, nvmlDeviceGetUUID);
MEMWALL_CHECK_ENTRY(device_get_utilization_rates, nvmlDeviceGetUtilizationRates);
MEMWALL_CHECK_ENTRY(device_get_memory_info, nvmlDeviceGetMemoryInfo);
MEMWALL_CHECK_ENTRY(device_get_power_usage, nvmlDeviceGetPowerUsage);
MEMWALL_CHECK_ENTRY(device_get_temperature, nvmlDeviceGetTemperature);
MEMWALL_CHECK_ENTRY(device_get_clock_info, nvmlDeviceGetClockInfo);
// nvmlDeviceGetCurrentClocksEventReasons is NVML 12.2's name for the same entry point.
MEMWALL_CHECK_ENTRY(device_get_current_clocks_event_reasons, nvmlDeviceGetCurrentClocksThrottleReasons);
MEMWALL_CHECK_ENTRY(device_get_pcie_throughput, nvmlDeviceGetPcieThroughput);
MEMWALL_CHECK_ENTRY(gpm_query_device_support, nvmlGpmQueryDeviceSupport);
MEMWALL_CHECK_ENTRY(gpm_sample_alloc, nvmlGpmSampleAlloc);
MEMWALL_CHECK_ENTRY(gpm_sample_free, nvmlGpmSampleFree);
MEMWALL_CHECK_ENTRY(gpm_sample_get, nvmlGpmSampleGet);
MEMWALL_CHECK_ENTRY(gpm_metrics_get, nvmlGpmMetricsGet);
