#include "memwall/monitor/prometheus.h"

#include <fmt/format.h>

namespace memwall::monitor {
namespace {

struct Family {
  const char* name;
  const char* help;
  std::optional<double> GpuSample::*member;
  double scale;  // to the base unit of the name
};

const std::vector<Family>& families() {
  static const std::vector<Family> f = {
      {"memwall_gpu_sm_activity_ratio",
       "Fraction of cycles an SM had a warp resident, averaged over SMs (NVML GPM SM_UTIL)",
       &GpuSample::sm_active_ratio, 1},
      {"memwall_gpu_sm_occupancy_ratio",
       "Resident warps / maximum warps per SM, averaged over SMs (NVML GPM SM_OCCUPANCY)",
       &GpuSample::sm_occupancy_ratio, 1},
      {"memwall_gpu_tensor_activity_ratio",
       "Tensor-pipe activity relative to its peak sustained rate (NVML GPM ANY_TENSOR_UTIL)",
       &GpuSample::tensor_active_ratio, 1},
      {"memwall_gpu_dram_bandwidth_utilization_ratio",
       "DRAM bandwidth used / theoretical maximum (NVML GPM DRAM_BW_UTIL), or the memory interface's "
       "busy share where that is what the device reports (AMD UMC activity)",
       &GpuSample::dram_bw_util_ratio, 1},
      {"memwall_gpu_utilization_ratio",
       "Share of time any kernel ran (coarse NVML utilization.gpu; not how much of the GPU)",
       &GpuSample::gpu_util_ratio, 1},
      {"memwall_gpu_memory_used_bytes", "Device memory in use (NVML memory info)",
       &GpuSample::memory_used_bytes, 1},
      {"memwall_gpu_memory_total_bytes", "Device memory capacity (NVML memory info)",
       &GpuSample::memory_total_bytes, 1},
      {"memwall_gpu_power_watts", "Board power draw (NVML power usage)", &GpuSample::power_w, 1},
      {"memwall_gpu_temperature_celsius", "GPU die temperature", &GpuSample::temperature_c, 1},
      {"memwall_gpu_sm_clock_hertz", "Current SM clock", &GpuSample::sm_clock_mhz, 1e6},
      {"memwall_gpu_memory_clock_hertz", "Current memory clock", &GpuSample::memory_clock_mhz, 1e6},
      {"memwall_gpu_pcie_rx_bytes_per_second", "PCIe bytes received by the GPU per second",
       &GpuSample::pcie_rx_bytes_per_s, 1},
      {"memwall_gpu_pcie_tx_bytes_per_second", "PCIe bytes sent by the GPU per second",
       &GpuSample::pcie_tx_bytes_per_s, 1},
      {"memwall_gpu_nvlink_rx_bytes_per_second", "NVLink bytes received per second (all links)",
       &GpuSample::nvlink_rx_bytes_per_s, 1},
      {"memwall_gpu_nvlink_tx_bytes_per_second", "NVLink bytes sent per second (all links)",
       &GpuSample::nvlink_tx_bytes_per_s, 1},
  };
  return f;
}

std::string labels(const GpuSample& s) {
  return fmt::format("gpu=\"{}\",uuid=\"{}\"", s.index, escape_label_value(s.uuid.value_or("")));
}

void header(std::string& out, const char* name, const char* help) {
  out += fmt::format("# HELP {} {}\n# TYPE {} gauge\n", name, help, name);
}

}  // namespace

std::string escape_label_value(const std::string& v) {
  std::string out;
  out.reserve(v.size());
  for (char c : v) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '"')
      out += "\\\"";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

std::string prometheus_text(const std::vector<GpuSample>& samples) {
  std::string out;
  if (!samples.empty()) {
    header(out, "memwall_gpu_info", "Device identity; the value is always 1");
    for (const auto& s : samples)
      out += fmt::format("memwall_gpu_info{{{},name=\"{}\"}} 1\n", labels(s),
                         escape_label_value(s.name.value_or("")));
  }
  for (const auto& f : families()) {
    bool any = false;
    for (const auto& s : samples) {
      const auto& v = s.*f.member;
      if (!v) continue;
      if (!any) header(out, f.name, f.help);
      any = true;
      out += fmt::format("{}{{{}}} {}\n", f.name, labels(s), *v * f.scale);
    }
  }
  bool any = false;
  for (const auto& s : samples) {
    if (!s.throttle_reasons) continue;
    if (!any)
      header(out, "memwall_gpu_clocks_event_reason",
             "1 while the reason holds the clocks down (NVML clocks event reasons)");
    any = true;
    for (const auto& r : throttle_reasons())
      out += fmt::format("memwall_gpu_clocks_event_reason{{{},reason=\"{}\"}} {}\n", labels(s),
                         r.name, (*s.throttle_reasons & r.bit) ? 1 : 0);
  }
  return out;
}

}  // namespace memwall::monitor
