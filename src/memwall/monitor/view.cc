#include "memwall/monitor/view.h"

#include <fmt/format.h>

#include <cmath>
#include <ctime>

#include "memwall/core/units.h"

namespace memwall::monitor {
namespace {

constexpr const char* kUnknown = "unknown";

std::string pct(const std::optional<double>& r) {
  return r ? fmt::format("{:.1f}%", *r * 100) : kUnknown;
}

std::string num(const std::optional<double>& v, double scale, int decimals) {
  return v ? fmt::format("{:.{}f}", *v / scale, decimals) : kUnknown;
}

std::string pair(const std::optional<double>& a, const std::optional<double>& b, double scale) {
  if (!a && !b) return kUnknown;
  return num(a, scale, 2) + "/" + num(b, scale, 2);
}

std::string reasons(const std::optional<uint64_t>& mask) {
  if (!mask) return kUnknown;
  const auto names = throttle_reason_names(*mask);
  if (names.empty()) return "none";
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ",") + n;
  return out;
}

}  // namespace

std::string format_utc(double time_s) {
  const auto t = static_cast<std::time_t>(std::floor(time_s));
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S UTC", &tm);
  return buf;
}

std::string format_table(const std::string& title, const std::vector<GpuSample>& rows) {
  std::string out = title + "\n";
  out += fmt::format(
      "{:>3} {:>7} {:>7} {:>7} {:>7} {:>7} {:>15} {:>7} {:>7} {:>7} {:>7} {:>15} "
      "{:>15}  {}\n",
      "GPU", "SM act", "occup", "tensor", "DRAM bw", "util", "mem used/tot GiB", "power W",
      "temp C", "SM MHz", "mem MHz", "PCIe rx/tx GB/s", "NVLink rx/tx GB/s", "clock events / name");
  for (const auto& s : rows) {
    const std::string mem =
        s.memory_used_bytes || s.memory_total_bytes
            ? num(s.memory_used_bytes, kGiB, 1) + "/" + num(s.memory_total_bytes, kGiB, 1)
            : kUnknown;
    out += fmt::format(
        "{:>3} {:>7} {:>7} {:>7} {:>7} {:>7} {:>15} {:>7} {:>7} {:>7} {:>7} {:>15} "
        "{:>15}  {} / {}\n",
        s.index, pct(s.sm_active_ratio), pct(s.sm_occupancy_ratio), pct(s.tensor_active_ratio),
        pct(s.dram_bw_util_ratio), pct(s.gpu_util_ratio), mem, num(s.power_w, 1, 0),
        num(s.temperature_c, 1, 0), num(s.sm_clock_mhz, 1, 0), num(s.memory_clock_mhz, 1, 0),
        pair(s.pcie_rx_bytes_per_s, s.pcie_tx_bytes_per_s, kGiga),
        pair(s.nvlink_rx_bytes_per_s, s.nvlink_tx_bytes_per_s, kGiga), reasons(s.throttle_reasons),
        s.name.value_or(kUnknown));
  }
  return out;
}

}  // namespace memwall::monitor
