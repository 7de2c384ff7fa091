#include "memwall/uncertainty/regime.h"

#include <cmath>
#include <limits>

#include "memwall/core/text.h"

namespace memwall::uncertainty {

std::string Regime::value(std::string_view dim) const {
  for (const auto& [k, v] : dims)
    if (k == dim) return v;
  return {};
}

void Regime::set(const std::string& dim, const std::string& v) {
  for (auto& [k, old] : dims)
    if (k == dim) {
      old = v;
      return;
    }
  dims.emplace_back(dim, v);
}

const std::vector<std::string>& dimension_names() {
  static const std::vector<std::string> names = {"bound",   "hardware", "precision", "engine",
                                                 "offload", "scale",    "ceilings",  "datasheet"};
  return names;
}

std::string hardware_family(const Accelerator& a) {
  std::string arch = a.arch.substr(0, a.arch.find(" ("));
  return arch.empty() ? "unknown" : arch;
}

std::string precision_class(Precision p) {
  // The element width, not the storage with group scales: NVFP4 stores 4.5 bits and GPTQ-style
  // int4 4.125, both 4-bit formats.
  const double bits = info(p).bits;
  if (bits > 16) return "32-bit";
  if (bits > 8) return "16-bit";
  if (bits > 4) return "8-bit";
  return "4-bit";
}

std::string scale_bucket(int64_t devices) {
  if (devices <= 0) return "unknown";
  if (devices == 1) return "1";
  if (devices <= 8) return "2-8";
  if (devices <= 64) return "9-64";
  if (devices <= 512) return "65-512";
  return ">512";
}

namespace {

// Whether `table` has an entry for the accelerator (any level but the fallback).
bool has_entry(perf::FractionTable table, const Accelerator& a, Precision p) {
  table.fallback = std::numeric_limits<double>::quiet_NaN();
  return !std::isnan(table.lookup(a, p));
}

bool has_id_key(const perf::FractionTable& table, const Accelerator& a) {
  for (const auto& [key, value] : table.entries)
    if (to_lower(key) == to_lower(a.id)) return true;
  return false;
}

}  // namespace

void set_hardware(Regime& r, const Accelerator& a, const perf::Efficiency& efficiency,
                  Precision matmul) {
  r.set("hardware", hardware_family(a));
  r.set("datasheet", a.confidence.empty() ? "none" : to_lower(a.confidence));
  // Families without evidence run on their vendor's conservative prior (perf::efficiency_for).
  if (!perf::efficiency_for(efficiency, a, matmul).calibrated)
    r.set("ceilings", "vendor prior");
  else
    r.set("ceilings", has_entry(efficiency.gemm_peak_fraction, a, matmul) &&
                              has_entry(efficiency.memory_bandwidth_fraction, a, matmul)
                          ? "measured"
                          : "table median");
  // `memwall probe --gpu ID` keys the measured bandwidth fraction by the accelerator's id
  // (probe/calibration_profile.cc); the built-in table keys by architecture and memory type.
  r.probe_calibrated = has_id_key(efficiency.memory_bandwidth_fraction, a) &&
                       !has_id_key(perf::default_efficiency().memory_bandwidth_fraction, a);
}

}  // namespace memwall::uncertainty
