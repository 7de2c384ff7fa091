#include "memwall/monitor/sample.h"

#include <fmt/format.h>

#include <cmath>

#include "memwall/core/error.h"

namespace memwall::monitor {
namespace {

// Largest accepted device index and Unix time (year 5138): bounds against corrupt input only.
constexpr int kMaxGpuIndex = 4095;
constexpr double kMaxUnixTimeS = 1e11;
constexpr size_t kMaxLabelChars = 256;

std::string value_text(const Json& v) {
  std::string s = v.dump();
  return s.size() > 60 ? s.substr(0, 57) + "..." : s;
}

double number_in(const Json& v, const std::string& where, const std::string& key, double lo,
                 double hi, const std::string& allowed) {
  if (!v.is_number()) throw InputError(where + ": " + key, value_text(v), allowed);
  const double x = v.get<double>();
  if (!std::isfinite(x) || x < lo || x > hi)
    throw InputError(where + ": " + key, value_text(v), allowed);
  return x;
}

std::string label_text(const Json& v, const std::string& where, const std::string& key) {
  if (!v.is_string() || v.get<std::string>().size() > kMaxLabelChars)
    throw InputError(where + ": " + key, value_text(v),
                     fmt::format("a string of at most {} characters", kMaxLabelChars));
  return v.get<std::string>();
}

}  // namespace

// The upper bounds are far above any real GPU (1 PB of memory, 100 TB/s of traffic, 100 kW, 1000
// degrees, 100 GHz) and only reject corrupt input.
const std::vector<NumericField>& numeric_fields() {
  static const std::vector<NumericField> fields = {
      {"sm_active_ratio", &GpuSample::sm_active_ratio, 1, "a ratio in [0, 1]"},
      {"sm_occupancy_ratio", &GpuSample::sm_occupancy_ratio, 1, "a ratio in [0, 1]"},
      {"tensor_active_ratio", &GpuSample::tensor_active_ratio, 1, "a ratio in [0, 1]"},
      {"dram_bw_util_ratio", &GpuSample::dram_bw_util_ratio, 1, "a ratio in [0, 1]"},
      {"gpu_util_ratio", &GpuSample::gpu_util_ratio, 1, "a ratio in [0, 1]"},
      {"memory_used_bytes", &GpuSample::memory_used_bytes, 1e15, "bytes in [0, 1e15]"},
      {"memory_total_bytes", &GpuSample::memory_total_bytes, 1e15, "bytes in [0, 1e15]"},
      {"power_w", &GpuSample::power_w, 1e5, "watts in [0, 1e5]"},
      {"temperature_c", &GpuSample::temperature_c, 1e3, "degrees Celsius in [0, 1000]"},
      {"sm_clock_mhz", &GpuSample::sm_clock_mhz, 1e5, "MHz in [0, 1e5]"},
      {"memory_clock_mhz", &GpuSample::memory_clock_mhz, 1e5, "MHz in [0, 1e5]"},
      {"pcie_rx_bytes_per_s", &GpuSample::pcie_rx_bytes_per_s, 1e14, "bytes/s in [0, 1e14]"},
      {"pcie_tx_bytes_per_s", &GpuSample::pcie_tx_bytes_per_s, 1e14, "bytes/s in [0, 1e14]"},
      {"nvlink_rx_bytes_per_s", &GpuSample::nvlink_rx_bytes_per_s, 1e14, "bytes/s in [0, 1e14]"},
      {"nvlink_tx_bytes_per_s", &GpuSample::nvlink_tx_bytes_per_s, 1e14, "bytes/s in [0, 1e14]"},
  };
  return fields;
}

const std::vector<ThrottleReason>& throttle_reasons() {
  // nvmlClocksEventReason* / nvmlClocksThrottleReason* bit values, NVML API reference.
  static const std::vector<ThrottleReason> reasons = {
      {0x1, "gpu_idle", false},
      {0x2, "applications_clocks_setting", false},
      {0x4, "sw_power_cap", true},
      {0x8, "hw_slowdown", true},
      {0x10, "sync_boost", false},
      {0x20, "sw_thermal_slowdown", true},
      {0x40, "hw_thermal_slowdown", true},
      {0x80, "hw_power_brake_slowdown", true},
      {0x100, "display_clock_setting", false},
  };
  return reasons;
}

std::vector<std::string> throttle_reason_names(uint64_t mask) {
  std::vector<std::string> out;
  uint64_t known = 0;
  for (const auto& r : throttle_reasons()) {
    known |= r.bit;
    if (mask & r.bit) out.push_back(r.name);
  }
  if (mask & ~known) out.push_back(fmt::format("{:#x}", mask & ~known));
  return out;
}

bool clocks_limited(uint64_t mask) {
  for (const auto& r : throttle_reasons())
    if (r.limits_clocks && (mask & r.bit)) return true;
  return false;
}

const std::vector<std::string>& sample_keys() {
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> k = {"time_s", "index", "name", "uuid"};
    for (const auto& f : numeric_fields()) k.push_back(f.key);
    k.push_back("throttle_reasons");
    return k;
  }();
  return keys;
}

Json to_json(const GpuSample& s) {
  Json j = Json::object();
  j["time_s"] = s.time_s;
  j["index"] = s.index;
  if (s.name) j["name"] = *s.name;
  if (s.uuid) j["uuid"] = *s.uuid;
  for (const auto& f : numeric_fields())
    if (s.*f.member) j[f.key] = *(s.*f.member);
  if (s.throttle_reasons) j["throttle_reasons"] = *s.throttle_reasons;
  return j;
}

GpuSample sample_from_json(const Json& j, const std::string& where) {
  if (!j.is_object()) throw InputError(where, value_text(j), "a JSON object (one GPU sample)");
  GpuSample s;
  s.time_s = number_in(require_field(j, "time_s", where), where, "time_s", 0, kMaxUnixTimeS,
                       "Unix time in seconds, in [0, 1e11]");
  s.index = static_cast<int>(number_in(require_field(j, "index", where), where, "index", 0,
                                       kMaxGpuIndex, "a device index in [0, 4095]"));
  if (!j["index"].is_number_integer())
    throw InputError(where + ": index", value_text(j["index"]), "an integer device index");
  for (const auto& [key, v] : j.items()) {
    if (key == "time_s" || key == "index" || v.is_null()) continue;  // null = unknown
    if (key == "name") {
      s.name = label_text(v, where, key);
    } else if (key == "uuid") {
      s.uuid = label_text(v, where, key);
    } else if (key == "throttle_reasons") {
      if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<int64_t>() >= 0))
        throw InputError(where + ": throttle_reasons", value_text(v),
                         "a non-negative integer bitmask (nvmlClocksEventReasons)");
      s.throttle_reasons = v.get<uint64_t>();
    } else {
      const NumericField* field = nullptr;
      for (const auto& f : numeric_fields())
        if (key == f.key) field = &f;
      if (!field) throw InputError::unknown_name(where + ": key", key, sample_keys());
      s.*field->member = number_in(v, where, key, 0, field->max, field->allowed);
    }
  }
  // A device cannot hold more than its capacity (NVML's nvmlMemory_t: used <= total).
  if (s.memory_used_bytes && s.memory_total_bytes && *s.memory_used_bytes > *s.memory_total_bytes)
    throw InputError(where + ": memory_used_bytes", fmt::format("{:g}", *s.memory_used_bytes),
                     fmt::format("bytes at most memory_total_bytes ({:g})", *s.memory_total_bytes));
  return s;
}

}  // namespace memwall::monitor
