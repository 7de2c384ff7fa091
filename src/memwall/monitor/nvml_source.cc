#include "memwall/monitor/nvml_source.h"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <cstring>

#include "memwall/core/error.h"
#include "memwall/core/units.h"

namespace memwall::monitor {
namespace {

std::optional<double> mib_per_s(double v) {
  if (!std::isfinite(v) || v < 0) return std::nullopt;
  return v * kMiB;  // GPM throughputs are MiB/s (NVML API reference, nvmlGpmMetricId_t)
}

std::optional<std::string> text(nvml::Return (*get)(nvml::Device, char*, unsigned int),
                                nvml::Device dev, unsigned int size) {
  if (!get) return std::nullopt;
  std::vector<char> buf(size + 1, '\0');
  if (get(dev, buf.data(), size) != nvml::kSuccess) return std::nullopt;
  return std::string(buf.data(), strnlen(buf.data(), size));
}

template <class T>
std::optional<T> reading(nvml::Return (*get)(nvml::Device, T*), nvml::Device dev) {
  T v{};
  if (!get || get(dev, &v) != nvml::kSuccess) return std::nullopt;
  return v;
}

// The same for the queries that take a selector (sensor, clock domain, PCIe direction).
template <class T>
std::optional<T> reading(nvml::Return (*get)(nvml::Device, int, T*), nvml::Device dev, int which) {
  T v{};
  if (!get || get(dev, which, &v) != nvml::kSuccess) return std::nullopt;
  return v;
}

}  // namespace

double unix_time_s() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string NvmlSource::reason(nvml::Return r) const {
  const char* s = f_.error_string ? f_.error_string(r) : nullptr;
  return s ? fmt::format("{} (NVML error {})", s, r) : fmt::format("NVML error {}", r);
}

NvmlSource::NvmlSource(const nvml::Functions& f, Clock clock) : f_(f), clock_(std::move(clock)) {
  if (!f_.init_v2 || !f_.shutdown || !f_.device_get_count_v2 || !f_.device_get_handle_by_index_v2)
    throw InfeasibleError(
        "NVML lacks nvmlInit_v2/nvmlDeviceGetCount_v2/"
        "nvmlDeviceGetHandleByIndex_v2");
  if (const nvml::Return r = f_.init_v2(); r != nvml::kSuccess)
    throw InfeasibleError("nvmlInit_v2 failed: " + reason(r));
  initialised_ = true;
  try {
    discover();
  } catch (...) {
    release();  // the destructor does not run for a constructor that throws
    throw;
  }
}

void NvmlSource::discover() {
  unsigned int count = 0;
  if (const nvml::Return r = f_.device_get_count_v2(&count); r != nvml::kSuccess)
    throw InfeasibleError("nvmlDeviceGetCount_v2 failed: " + reason(r));
  if (count == 0) throw InfeasibleError("NVML found no GPU (nvmlDeviceGetCount_v2 returned 0)");
  const bool gpm_api = f_.gpm_query_device_support && f_.gpm_sample_alloc && f_.gpm_sample_free &&
                       f_.gpm_sample_get && f_.gpm_metrics_get;
  if (!gpm_api)
    notes_.push_back(
        "this driver has no GPM API (NVML 11.8 / R520 or newer needed): SM "
        "activity, occupancy, tensor activity and DRAM bandwidth are unknown");
  for (unsigned int i = 0; i < count; ++i) {
    DeviceState d;
    d.index = static_cast<int>(i);
    if (const nvml::Return r = f_.device_get_handle_by_index_v2(i, &d.handle);
        r != nvml::kSuccess) {
      notes_.push_back(fmt::format("GPU {}: skipped, no handle: {}", i, reason(r)));
      continue;
    }
    d.name = text(f_.device_get_name, d.handle, nvml::kDeviceNameBufferSize);
    d.uuid = text(f_.device_get_uuid, d.handle, nvml::kDeviceUuidBufferSize);
    if (gpm_api) {
      nvml::GpmSupport support{nvml::kGpmSupportVersion, 0};
      d.gpm = f_.gpm_query_device_support(d.handle, &support) == nvml::kSuccess &&
              support.is_supported_device != 0 &&
              f_.gpm_sample_alloc(&d.previous) == nvml::kSuccess &&
              f_.gpm_sample_alloc(&d.current) == nvml::kSuccess;
      if (!d.gpm)
        notes_.push_back(
            fmt::format("GPU {}: GPM not supported (Hopper or newer needed): SM "
                        "activity, occupancy, tensor activity and DRAM bandwidth "
                        "are unknown",
                        i));
    }
    devices_.push_back(d);
  }
  if (devices_.empty()) throw InfeasibleError("NVML gave no usable GPU handle");
}

std::unique_ptr<NvmlSource> NvmlSource::open(const std::string& path) {
  std::string why;
  auto lib = NvmlLibrary::open(path, why);
  if (!lib)
    throw InfeasibleError("no NVML found (no NVIDIA driver on this machine?): " + why +
                          "; `memwall monitor --replay FILE` works without one");
  auto source = std::make_unique<NvmlSource>(lib->functions());
  source->library_ = std::move(lib);
  return source;
}

NvmlSource::~NvmlSource() {
  release();
}

void NvmlSource::release() {
  for (auto& d : devices_) {
    if (d.previous) f_.gpm_sample_free(d.previous);
    if (d.current) f_.gpm_sample_free(d.current);
    d.previous = d.current = nullptr;
  }
  if (initialised_) f_.shutdown();
  initialised_ = false;
}

void NvmlSource::read_basic(DeviceState& d, GpuSample& s) const {
  if (auto u = reading(f_.device_get_utilization_rates, d.handle))
    s.gpu_util_ratio = percent_ratio(u->gpu);
  if (auto m = reading(f_.device_get_memory_info, d.handle)) {
    s.memory_used_bytes = static_cast<double>(m->used);
    s.memory_total_bytes = static_cast<double>(m->total);
  }
  if (auto mw = reading(f_.device_get_power_usage, d.handle)) s.power_w = *mw / 1e3;  // mW
  if (auto t = reading(f_.device_get_temperature, d.handle, nvml::kTemperatureGpu))
    s.temperature_c = *t;
  if (auto c = reading(f_.device_get_clock_info, d.handle, nvml::kClockSm)) s.sm_clock_mhz = *c;
  if (auto c = reading(f_.device_get_clock_info, d.handle, nvml::kClockMem))
    s.memory_clock_mhz = *c;
  if (auto r = reading(f_.device_get_current_clocks_event_reasons, d.handle))
    s.throttle_reasons = static_cast<uint64_t>(*r);
  // nvmlDeviceGetPcieThroughput: "KB/s" over a 20 ms window; taken as KiB/s (1024 B), as the
  // reference does not say which. GPM's MiB/s over the whole interval replaces it where available.
  if (auto v = reading(f_.device_get_pcie_throughput, d.handle, nvml::kPcieRxBytes))
    s.pcie_rx_bytes_per_s = *v * kKiB;
  if (auto v = reading(f_.device_get_pcie_throughput, d.handle, nvml::kPcieTxBytes))
    s.pcie_tx_bytes_per_s = *v * kKiB;
}

void NvmlSource::read_gpm(DeviceState& d, double now_s, GpuSample& s) const {
  if (!d.gpm) return;
  // 1 ms of slack: the session paces passes on the steady clock, samples are stamped with the
  // system clock, and the two may disagree by a little.
  if (d.previous_time_s && now_s - *d.previous_time_s < kGpmMinIntervalS - 1e-3) return;
  if (f_.gpm_sample_get(d.handle, d.current) != nvml::kSuccess) return;
  const bool have_interval = d.previous_time_s.has_value();
  std::swap(d.previous, d.current);  // `previous` now holds the newest sample
  d.previous_time_s = now_s;
  if (!have_interval) return;
  // The GPM metrics read, where each goes, and its unit (percent, or MiB/s).
  struct GpmReading {
    unsigned int id;
    std::optional<double> GpuSample::*member;
    bool percent;
  };
  static const GpmReading wanted[] = {
      {nvml::kGpmSmUtil, &GpuSample::sm_active_ratio, true},
      {nvml::kGpmSmOccupancy, &GpuSample::sm_occupancy_ratio, true},
      {nvml::kGpmAnyTensorUtil, &GpuSample::tensor_active_ratio, true},
      {nvml::kGpmDramBwUtil, &GpuSample::dram_bw_util_ratio, true},
      {nvml::kGpmPcieTxPerSec, &GpuSample::pcie_tx_bytes_per_s, false},
      {nvml::kGpmPcieRxPerSec, &GpuSample::pcie_rx_bytes_per_s, false},
      {nvml::kGpmNvlinkTotalRxPerSec, &GpuSample::nvlink_rx_bytes_per_s, false},
      {nvml::kGpmNvlinkTotalTxPerSec, &GpuSample::nvlink_tx_bytes_per_s, false}};
  auto get = std::make_unique<nvml::GpmMetricsGet>();
  std::memset(get.get(), 0, sizeof(nvml::GpmMetricsGet));
  get->version = nvml::kGpmMetricsGetVersion;
  get->num_metrics = static_cast<unsigned int>(std::size(wanted));
  get->sample1 = d.current;  // the older of the two
  get->sample2 = d.previous;
  for (size_t i = 0; i < std::size(wanted); ++i) get->metrics[i].metric_id = wanted[i].id;
  if (f_.gpm_metrics_get(get.get()) != nvml::kSuccess) return;
  for (size_t i = 0; i < std::size(wanted); ++i) {
    const nvml::GpmMetric& m = get->metrics[i];
    if (m.nvml_return != nvml::kSuccess || m.metric_id != wanted[i].id) continue;
    // A refused or invalid GPM value leaves what the plain queries read (PCIe) in place.
    if (const auto v = wanted[i].percent ? percent_ratio(m.value) : mib_per_s(m.value))
      s.*wanted[i].member = v;
  }
}

std::vector<GpuSample> NvmlSource::sample() {
  const double now_s = clock_();
  std::vector<GpuSample> out;
  for (auto& d : devices_) {
    GpuSample s;
    s.time_s = now_s;
    s.index = d.index;
    s.name = d.name;
    s.uuid = d.uuid;
    read_basic(d, s);
    read_gpm(d, now_s, s);
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace memwall::monitor
