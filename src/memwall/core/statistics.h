// Summary statistics of error lists: the median and the nearest-rank 90th percentile that the
// validation report and the calibration report both state.
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

namespace memwall {

// Median (mean of the middle two for an even count); 0 for none.
inline double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// Nearest-rank 90th percentile; 0 for none.
inline double percentile90(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const auto rank = static_cast<size_t>(std::ceil(0.9 * double(v.size())));
  return v[std::max<size_t>(rank, 1) - 1];
}

}  // namespace memwall
