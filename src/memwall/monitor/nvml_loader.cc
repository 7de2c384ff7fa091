#include "memwall/monitor/nvml_loader.h"

namespace memwall::monitor {

std::unique_ptr<NvmlLibrary> NvmlLibrary::open(const std::string& path, std::string& why) {
  auto library = DynamicLibrary::open(path, why);
  if (!library) return nullptr;
  const DynamicLibrary& l = *library;
  std::unique_ptr<NvmlLibrary> lib(new NvmlLibrary());
  nvml::Functions& f = lib->functions_;
  l.bind("nvmlInit_v2", f.init_v2);
  l.bind("nvmlShutdown", f.shutdown);
  l.bind("nvmlDeviceGetCount_v2", f.device_get_count_v2);
  l.bind("nvmlDeviceGetHandleByIndex_v2", f.device_get_handle_by_index_v2);
  l.bind("nvmlErrorString", f.error_string);
  l.bind("nvmlDeviceGetName", f.device_get_name);
  l.bind("nvmlDeviceGetUUID", f.device_get_uuid);
  l.bind("nvmlDeviceGetUtilizationRates", f.device_get_utilization_rates);
  l.bind("nvmlDeviceGetMemoryInfo", f.device_get_memory_info);
  l.bind("nvmlDeviceGetPowerUsage", f.device_get_power_usage);
  l.bind("nvmlDeviceGetTemperature", f.device_get_temperature);
  l.bind("nvmlDeviceGetClockInfo", f.device_get_clock_info);
  l.bind("nvmlDeviceGetCurrentClocksEventReasons", f.device_get_current_clocks_event_reasons);
  if (!f.device_get_current_clocks_event_reasons)
    l.bind("nvmlDeviceGetCurrentClocksThrottleReasons", f.device_get_current_clocks_event_reasons);
  l.bind("nvmlDeviceGetPcieThroughput", f.device_get_pcie_throughput);
  l.bind("nvmlGpmQueryDeviceSupport", f.gpm_query_device_support);
  l.bind("nvmlGpmSampleAlloc", f.gpm_sample_alloc);
  l.bind("nvmlGpmSampleFree", f.gpm_sample_free);
  l.bind("nvmlGpmSampleGet", f.gpm_sample_get);
  l.bind("nvmlGpmMetricsGet", f.gpm_metrics_get);
  if (const std::string missing = missing_symbol(
          l, {{"nvmlInit_v2", f.init_v2 != nullptr},
              {"nvmlShutdown", f.shutdown != nullptr},
              {"nvmlDeviceGetCount_v2", f.device_get_count_v2 != nullptr},
              {"nvmlDeviceGetHandleByIndex_v2", f.device_get_handle_by_index_v2 != nullptr}});
      !missing.empty()) {
    why = missing + " (driver older than NVML 5.319?)";
    return nullptr;  // the DynamicLibrary closes the handle
  }
  lib->library_ = std::move(library);
  return lib;
}

}  // namespace memwall::monitor
