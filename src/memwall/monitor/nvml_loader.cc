#include "memwall/monitor/nvml_loader.h"

#include <dlfcn.h>

namespace memwall::monitor {
namespace {

template <class F>
void bind(void* handle, const char* symbol, F& slot) {
  slot = reinterpret_cast<F>(dlsym(handle, symbol));
}

}  // namespace

std::unique_ptr<NvmlLibrary> NvmlLibrary::open(const std::string& path, std::string& why) {
  dlerror();
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* err = dlerror();
    why = "dlopen(" + path + ") failed: " + (err ? err : "unknown error");
    return nullptr;
  }
  std::unique_ptr<NvmlLibrary> lib(new NvmlLibrary());
  lib->handle_ = handle;
  nvml::Functions& f = lib->functions_;
  bind(handle, "nvmlInit_v2", f.init_v2);
  bind(handle, "nvmlShutdown", f.shutdown);
  bind(handle, "nvmlDeviceGetCount_v2", f.device_get_count_v2);
  bind(handle, "nvmlDeviceGetHandleByIndex_v2", f.device_get_handle_by_index_v2);
  bind(handle, "nvmlErrorString", f.error_string);
  bind(handle, "nvmlDeviceGetName", f.device_get_name);
  bind(handle, "nvmlDeviceGetUUID", f.device_get_uuid);
  bind(handle, "nvmlDeviceGetUtilizationRates", f.device_get_utilization_rates);
  bind(handle, "nvmlDeviceGetMemoryInfo", f.device_get_memory_info);
  bind(handle, "nvmlDeviceGetPowerUsage", f.device_get_power_usage);
  bind(handle, "nvmlDeviceGetTemperature", f.device_get_temperature);
  bind(handle, "nvmlDeviceGetClockInfo", f.device_get_clock_info);
  bind(handle, "nvmlDeviceGetCurrentClocksEventReasons", f.device_get_current_clocks_event_reasons);
  if (!f.device_get_current_clocks_event_reasons)
    bind(handle, "nvmlDeviceGetCurrentClocksThrottleReasons",
         f.device_get_current_clocks_event_reasons);
  bind(handle, "nvmlDeviceGetPcieThroughput", f.device_get_pcie_throughput);
  bind(handle, "nvmlGpmQueryDeviceSupport", f.gpm_query_device_support);
  bind(handle, "nvmlGpmSampleAlloc", f.gpm_sample_alloc);
  bind(handle, "nvmlGpmSampleFree", f.gpm_sample_free);
  bind(handle, "nvmlGpmSampleGet", f.gpm_sample_get);
  bind(handle, "nvmlGpmMetricsGet", f.gpm_metrics_get);
  for (const auto& [symbol, present] :
       {std::pair{"nvmlInit_v2", f.init_v2 != nullptr},
        {"nvmlShutdown", f.shutdown != nullptr},
        {"nvmlDeviceGetCount_v2", f.device_get_count_v2 != nullptr},
        {"nvmlDeviceGetHandleByIndex_v2", f.device_get_handle_by_index_v2 != nullptr}}) {
    if (!present) {
      why = path + " has no symbol " + symbol + " (driver older than NVML 5.319?)";
      return nullptr;  // the destructor closes the handle
    }
  }
  return lib;
}

NvmlLibrary::~NvmlLibrary() {
  if (handle_) dlclose(handle_);
}

}  // namespace memwall::monitor
