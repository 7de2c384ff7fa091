#include "memwall/hw/accelerator.h"

#include <algorithm>

namespace memwall {

std::optional<FlopsPerSecond> Accelerator::peak(Precision p) const {
  if (!supports(p)) return std::nullopt;
  const std::string key(info(p).peak_key);
  if (auto acc = fp32_accumulate_peak.find(key); acc != fp32_accumulate_peak.end())
    return acc->second;
  auto it = dense_peak.find(key);
  if (it == dense_peak.end()) return std::nullopt;
  return it->second;
}

bool Accelerator::supports(Precision p) const {
  const std::string key(info(p).peak_key);
  return std::find(unsupported_precisions.begin(), unsupported_precisions.end(), key) ==
         unsupported_precisions.end();
}

double memory_unit_bytes(const std::string& unit) {
  if (unit == "GiB") return kGiB;
  if (unit == "GB") return kGiga;
  return 0.0;
}

std::optional<double> Accelerator::memory_datasheet_figure() const {
  const double unit = memory_unit_bytes(memory_unit);
  if (!memory || unit <= 0) return std::nullopt;
  return memory->value() / unit;
}

}  // namespace memwall
