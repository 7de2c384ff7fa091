// A summary of a run of samples per GPU: how many, over what time, the mean of every reading that
// was known (over the samples that knew it) and how often power or thermal limits held the clocks.
#pragma once

#include <cstdint>
#include <vector>

#include "memwall/monitor/sample.h"

namespace memwall::monitor {

struct GpuSummary {
  GpuSample mean;  // index, name, uuid of the GPU; each reading the mean of its known values;
                   // throttle_reasons: every reason seen
  size_t samples = 0;
  double first_time_s = 0, last_time_s = 0;
  std::optional<double> clocks_limited_share;  // of the samples that reported reasons
  uint64_t throttle_reasons_seen = 0;          // union of the reason bits
};

// One summary per device index, in index order.
std::vector<GpuSummary> summarise(const std::vector<GpuSample>& samples);

// The mean of one reading over every sample that knew it; nullopt when none did.
std::optional<double> mean_of(const std::vector<GpuSample>& samples,
                              std::optional<double> GpuSample::*member);

Json to_json(const GpuSummary& s);

}  // namespace memwall::monitor
