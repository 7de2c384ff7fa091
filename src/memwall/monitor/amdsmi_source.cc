#include "memwall/monitor/amdsmi_source.h"

#include <fmt/format.h>

#include <cstring>

#include "memwall/core/error.h"
#include "memwall/monitor/local_source.h"

namespace memwall::monitor {
namespace {

std::optional<double> known(uint32_t v) {
  if (v == amdsmi::kUnavailable16 || v == amdsmi::kUnavailable32) return std::nullopt;
  return v;
}

std::optional<std::string> text_of(const char* buf, size_t size) {
  const std::string s(buf, strnlen(buf, size));
  return s.empty() ? std::nullopt : std::optional(s);
}

}  // namespace

std::string AmdSmiSource::reason(amdsmi::Status s) const {
  const char* text = nullptr;
  if (f_.status_code_to_string && f_.status_code_to_string(s, &text) == amdsmi::kSuccess && text)
    return fmt::format("{} (amd-smi status {})", text, s);
  return fmt::format("amd-smi status {}", s);
}

AmdSmiSource::AmdSmiSource(const amdsmi::Functions& f, Clock clock)
    : f_(f), clock_(std::move(clock)) {
  if (!f_.init || !f_.shut_down || !f_.get_socket_handles || !f_.get_processor_handles)
    throw InfeasibleError(
        "amd-smi lacks amdsmi_init/amdsmi_shut_down/amdsmi_get_socket_handles/"
        "amdsmi_get_processor_handles");
  if (const amdsmi::Status s = f_.init(amdsmi::kInitAmdGpus); s != amdsmi::kSuccess)
    throw InfeasibleError("amdsmi_init failed: " + reason(s));
  initialised_ = true;
  try {
    find_layout();
    discover();
  } catch (...) {
    f_.shut_down();  // the destructor does not run for a constructor that throws
    throw;
  }
}

void AmdSmiSource::find_layout() {
  Padded<amdsmi::VersionWords> v;
  if (!f_.get_lib_version || f_.get_lib_version(&v.value) != amdsmi::kSuccess) {
    notes_.push_back("amd-smi did not give its version: power, clocks and names are unknown");
    return;
  }
  const uint32_t* w = v.value.words;
  if (w[0] == 24 && (w[1] == 6 || w[1] == 7)) {
    layout_ = Layout::v24;  // {year, major, ...}: 24.6 and 24.7 share the declared layouts
  } else if (w[0] == 26) {
    layout_ = Layout::v26;  // {major, minor, ...}
  } else {
    notes_.push_back(fmt::format(
        "amd-smi library version {}.{} has struct layouts memwall was not checked against (24.6, "
        "24.7, 26.x): power, clocks and names are unknown",
        w[0], w[1]));
  }
}

void AmdSmiSource::discover() {
  uint32_t sockets = 0;
  if (const amdsmi::Status s = f_.get_socket_handles(&sockets, nullptr); s != amdsmi::kSuccess)
    throw InfeasibleError("amdsmi_get_socket_handles failed: " + reason(s));
  std::vector<amdsmi::SocketHandle> socket_handles(sockets);
  if (sockets > 0)
    if (const amdsmi::Status s = f_.get_socket_handles(&sockets, socket_handles.data());
        s != amdsmi::kSuccess)
      throw InfeasibleError("amdsmi_get_socket_handles failed: " + reason(s));
  socket_handles.resize(std::min<size_t>(sockets, socket_handles.size()));
  int index = 0;
  for (auto socket : socket_handles) {
    uint32_t count = 0;
    if (const amdsmi::Status s = f_.get_processor_handles(socket, &count, nullptr);
        s != amdsmi::kSuccess) {
      notes_.push_back("a socket skipped: amdsmi_get_processor_handles failed: " + reason(s));
      continue;
    }
    std::vector<amdsmi::ProcessorHandle> handles(count);
    if (count > 0 && f_.get_processor_handles(socket, &count, handles.data()) != amdsmi::kSuccess)
      continue;
    handles.resize(std::min<size_t>(count, handles.size()));
    for (auto h : handles) {
      Device d;
      d.handle = h;
      d.index = index++;
      // market_name leads amdsmi_asic_info_t in both layouts.
      Padded<amdsmi::AsicInfo> asic;
      if (layout_ != Layout::unknown && f_.get_gpu_asic_info &&
          f_.get_gpu_asic_info(h, &asic.value) == amdsmi::kSuccess)
        d.name = text_of(asic.value.market_name, sizeof asic.value.market_name);
      char uuid[amdsmi::kGpuUuidSize + 1] = {};
      unsigned int length = amdsmi::kGpuUuidSize;
      if (f_.get_gpu_device_uuid && f_.get_gpu_device_uuid(h, &length, uuid) == amdsmi::kSuccess)
        d.uuid = text_of(uuid, amdsmi::kGpuUuidSize);
      devices_.push_back(d);
    }
  }
  if (devices_.empty())
    throw InfeasibleError(
        "amd-smi found no AMD GPU (amdsmi_get_socket_handles/amdsmi_get_processor_handles "
        "returned none)");
  notes_.push_back(
      "amd-smi gives no SM activity, occupancy or tensor activity: they are unknown; the DRAM "
      "column is UMC activity, the memory controller's busy share (as DCGM's DRAM_ACTIVE)");
}

std::unique_ptr<AmdSmiSource> AmdSmiSource::open(const std::vector<std::string>& paths) {
  std::string why;
  auto lib = DynamicLibrary::open_first(paths, why);
  if (!lib) throw InfeasibleError(no_library_message(SourceKind::amd, why));
  amdsmi::Functions f;
  lib->bind("amdsmi_init", f.init);
  lib->bind("amdsmi_shut_down", f.shut_down);
  lib->bind("amdsmi_get_socket_handles", f.get_socket_handles);
  lib->bind("amdsmi_get_processor_handles", f.get_processor_handles);
  lib->bind("amdsmi_status_code_to_string", f.status_code_to_string);
  lib->bind("amdsmi_get_lib_version", f.get_lib_version);
  lib->bind("amdsmi_get_gpu_asic_info", f.get_gpu_asic_info);
  lib->bind("amdsmi_get_gpu_device_uuid", f.get_gpu_device_uuid);
  lib->bind("amdsmi_get_gpu_activity", f.get_gpu_activity);
  lib->bind("amdsmi_get_gpu_memory_total", f.get_gpu_memory_total);
  lib->bind("amdsmi_get_gpu_memory_usage", f.get_gpu_memory_usage);
  lib->bind("amdsmi_get_power_info", f.get_power_info);
  lib->bind("amdsmi_get_clock_info", f.get_clock_info);
  lib->bind("amdsmi_get_temp_metric", f.get_temp_metric);
  if (const std::string missing = missing_symbol(
          *lib, {{"amdsmi_init", f.init != nullptr},
                 {"amdsmi_shut_down", f.shut_down != nullptr},
                 {"amdsmi_get_socket_handles", f.get_socket_handles != nullptr},
                 {"amdsmi_get_processor_handles", f.get_processor_handles != nullptr}});
      !missing.empty())
    throw InfeasibleError(missing + " (not amd-smi's library, or one older than ROCm 5.5?)");
  auto source = std::make_unique<AmdSmiSource>(f);
  source->library_ = std::move(lib);
  return source;
}

AmdSmiSource::~AmdSmiSource() {
  if (initialised_) f_.shut_down();
}

template <class Layout>
std::optional<double> AmdSmiSource::socket_power(amdsmi::ProcessorHandle h) const {
  Padded<Layout> p;
  if (!f_.get_power_info || f_.get_power_info(h, &p.value) != amdsmi::kSuccess) return std::nullopt;
  if (const auto current = known(p.value.current_socket_power)) return current;
  return known(p.value.average_socket_power);
}

std::vector<GpuSample> AmdSmiSource::sample() {
  const double now_s = clock_();
  std::vector<GpuSample> out;
  for (const auto& d : devices_) {
    GpuSample s;
    s.time_s = now_s;
    s.index = d.index;
    s.name = d.name;
    s.uuid = d.uuid;
    // amdsmi_engine_usage_t is the same in every header read (24.x, 26.x).
    Padded<amdsmi::EngineUsage> usage;
    if (f_.get_gpu_activity && f_.get_gpu_activity(d.handle, &usage.value) == amdsmi::kSuccess) {
      s.gpu_util_ratio = percent_ratio(usage.value.gfx_activity);
      // The memory controller's busy share: the reading DCGM_FI_PROF_DRAM_ACTIVE and the AMD
      // exporter's gpu_umc_activity also fill (sample.h, data/monitor/exporters.json).
      s.dram_bw_util_ratio = percent_ratio(usage.value.umc_activity);
    }
    uint64_t bytes = 0;
    if (f_.get_gpu_memory_usage &&
        f_.get_gpu_memory_usage(d.handle, amdsmi::kMemTypeVram, &bytes) == amdsmi::kSuccess)
      s.memory_used_bytes = static_cast<double>(bytes);
    if (f_.get_gpu_memory_total &&
        f_.get_gpu_memory_total(d.handle, amdsmi::kMemTypeVram, &bytes) == amdsmi::kSuccess)
      s.memory_total_bytes = static_cast<double>(bytes);
    // Current socket power where the GPU's metrics table has it (MI300), else the average.
    if (layout_ == Layout::v24) s.power_w = socket_power<amdsmi::PowerInfo>(d.handle);
    if (layout_ == Layout::v26) s.power_w = socket_power<amdsmi::PowerInfo26>(d.handle);
    if (layout_ != Layout::unknown && f_.get_clock_info) {
      Padded<amdsmi::ClkInfo> clk;
      if (f_.get_clock_info(d.handle, amdsmi::kClkTypeGfx, &clk.value) == amdsmi::kSuccess)
        s.sm_clock_mhz = known(clk.value.clk);
      if (f_.get_clock_info(d.handle, amdsmi::kClkTypeMem, &clk.value) == amdsmi::kSuccess)
        s.memory_clock_mhz = known(clk.value.clk);
    }
    // The hotspot (junction) sensor, as the die temperature; the edge sensor where it is absent.
    for (uint32_t sensor : {amdsmi::kTemperatureHotspot, amdsmi::kTemperatureEdge}) {
      int64_t c = 0;
      if (!s.temperature_c && f_.get_temp_metric &&
          f_.get_temp_metric(d.handle, sensor, amdsmi::kTempCurrent, &c) == amdsmi::kSuccess &&
          c >= 0 && c < 1000)
        s.temperature_c = static_cast<double>(c);
    }
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace memwall::monitor
