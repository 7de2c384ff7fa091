#include "memwall/monitor/hlml_source.h"

#include <fmt/format.h>

#include <cstring>

#include "memwall/core/error.h"
#include "memwall/monitor/local_source.h"

namespace memwall::monitor {
namespace {

std::string hlml_error(hlml::Return r) {
  // The hlml_return_t names of hlml.h for the codes a failed start most often gives.
  const char* name = r == 1                             ? "HLML_ERROR_UNINITIALIZED"
                     : r == hlml::kErrorNotSupported    ? "HLML_ERROR_NOT_SUPPORTED"
                     : r == hlml::kErrorDriverNotLoaded ? "HLML_ERROR_DRIVER_NOT_LOADED"
                                                        : nullptr;
  return name ? fmt::format("{} (hlml error {})", name, r) : fmt::format("hlml error {}", r);
}

std::optional<std::string> text(hlml::Return (*get)(hlml::Device, char*, unsigned int),
                                hlml::Device dev) {
  if (!get) return std::nullopt;
  char buf[hlml::kTextBufferSize + 1] = {};
  if (get(dev, buf, hlml::kTextBufferSize) != hlml::kSuccess) return std::nullopt;
  std::string s(buf, strnlen(buf, hlml::kTextBufferSize));
  return s.empty() ? std::nullopt : std::optional(s);
}

}  // namespace

HlmlSource::HlmlSource(const hlml::Functions& f, Clock clock) : f_(f), clock_(std::move(clock)) {
  if (!f_.init || !f_.shutdown || !f_.device_get_count || !f_.device_get_handle_by_index)
    throw InfeasibleError(
        "hlml lacks hlml_init/hlml_shutdown/hlml_device_get_count/"
        "hlml_device_get_handle_by_index");
  if (const hlml::Return r = f_.init(); r != hlml::kSuccess)
    throw InfeasibleError("hlml_init failed: " + hlml_error(r));
  initialised_ = true;
  try {
    discover();
  } catch (...) {
    f_.shutdown();  // the destructor does not run for a constructor that throws
    throw;
  }
}

void HlmlSource::discover() {
  unsigned int count = 0;
  if (const hlml::Return r = f_.device_get_count(&count); r != hlml::kSuccess)
    throw InfeasibleError("hlml_device_get_count failed: " + hlml_error(r));
  if (count == 0)
    throw InfeasibleError("hlml found no Gaudi device (hlml_device_get_count gave 0)");
  for (unsigned int i = 0; i < count; ++i) {
    Device d;
    d.index = static_cast<int>(i);
    if (const hlml::Return r = f_.device_get_handle_by_index(i, &d.handle); r != hlml::kSuccess) {
      notes_.push_back(fmt::format("device {}: skipped, no handle: {}", i, hlml_error(r)));
      continue;
    }
    d.name = text(f_.device_get_name, d.handle);
    d.uuid = text(f_.device_get_uuid, d.handle);
    devices_.push_back(d);
  }
  if (devices_.empty()) throw InfeasibleError("hlml gave no usable device handle");
  notes_.push_back(
      "hlml gives no TPC/MME activity, HBM bandwidth or occupancy: SM activity, tensor activity "
      "and DRAM bandwidth are unknown");
}

std::unique_ptr<HlmlSource> HlmlSource::open(const std::vector<std::string>& paths) {
  std::string why;
  auto lib = DynamicLibrary::open_first(paths, why);
  if (!lib) throw InfeasibleError(no_library_message(SourceKind::gaudi, why));
  hlml::Functions f;
  lib->bind("hlml_init", f.init);
  lib->bind("hlml_shutdown", f.shutdown);
  lib->bind("hlml_device_get_count", f.device_get_count);
  lib->bind("hlml_device_get_handle_by_index", f.device_get_handle_by_index);
  lib->bind("hlml_device_get_name", f.device_get_name);
  lib->bind("hlml_device_get_uuid", f.device_get_uuid);
  lib->bind("hlml_device_get_utilization_rates", f.device_get_utilization_rates);
  lib->bind("hlml_device_get_memory_info", f.device_get_memory_info);
  lib->bind("hlml_device_get_power_usage", f.device_get_power_usage);
  lib->bind("hlml_device_get_temperature", f.device_get_temperature);
  lib->bind("hlml_device_get_clock_info", f.device_get_clock_info);
  if (const std::string missing = missing_symbol(
          *lib, {{"hlml_init", f.init != nullptr},
                 {"hlml_shutdown", f.shutdown != nullptr},
                 {"hlml_device_get_count", f.device_get_count != nullptr},
                 {"hlml_device_get_handle_by_index", f.device_get_handle_by_index != nullptr}});
      !missing.empty())
    throw InfeasibleError(missing + " (not the Gaudi driver's hlml library?)");
  auto source = std::make_unique<HlmlSource>(f);
  source->library_ = std::move(lib);
  return source;
}

HlmlSource::~HlmlSource() {
  if (initialised_) f_.shutdown();
}

std::vector<GpuSample> HlmlSource::sample() {
  const double now_s = clock_();
  std::vector<GpuSample> out;
  for (const auto& d : devices_) {
    GpuSample s;
    s.time_s = now_s;
    s.index = d.index;
    s.name = d.name;
    s.uuid = d.uuid;
    hlml::Utilization u{};
    if (f_.device_get_utilization_rates &&
        f_.device_get_utilization_rates(d.handle, &u) == hlml::kSuccess)
      s.gpu_util_ratio = percent_ratio(u.aip);
    hlml::Memory m{};
    if (f_.device_get_memory_info && f_.device_get_memory_info(d.handle, &m) == hlml::kSuccess) {
      s.memory_used_bytes = static_cast<double>(m.used);
      s.memory_total_bytes = static_cast<double>(m.total);
    }
    unsigned int v = 0;
    if (f_.device_get_power_usage && f_.device_get_power_usage(d.handle, &v) == hlml::kSuccess)
      s.power_w = v / 1e3;  // mW (hlml.go PowerUsage)
    if (f_.device_get_temperature &&
        f_.device_get_temperature(d.handle, hlml::kTemperatureOnAip, &v) == hlml::kSuccess)
      s.temperature_c = v;
    if (f_.device_get_clock_info &&
        f_.device_get_clock_info(d.handle, hlml::kClockTpc, &v) == hlml::kSuccess)
      s.sm_clock_mhz = v;
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace memwall::monitor
