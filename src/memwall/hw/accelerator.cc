#include "memwall/hw/accelerator.h"

#include <algorithm>

namespace memwall {

std::optional<FlopsPerSecond> Accelerator::peak(Precision p) const {
  if (!supports(p)) return std::nullopt;
  auto it = dense_peak.find(std::string(info(p).peak_key));
  if (it == dense_peak.end()) return std::nullopt;
  return it->second;
}

bool Accelerator::supports(Precision p) const {
  const std::string key(info(p).peak_key);
  return std::find(unsupported_precisions.begin(), unsupported_precisions.end(), key) ==
         unsupported_precisions.end();
}

}  // namespace memwall
