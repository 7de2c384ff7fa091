// A local monitoring source: the driver library of one vendor, opened at run time, read one pass
// at a time. NVIDIA (NVML), AMD (amd-smi), Huawei Ascend (DCMI) and Intel Gaudi (hlml) each
// implement it (nvml_source.h, amdsmi_source.h, dcmi_source.h, hlml_source.h); local_source.h
// picks one by name. A reading a vendor does not give stays unknown, never zero.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "memwall/monitor/sample.h"

namespace memwall::monitor {

double unix_time_s();  // the samples' clock (nvml_source.cc)
// A percent reading as a ratio; out of [0, 100] or NaN is not a reading (local_source.cc).
std::optional<double> percent_ratio(double percent);

class Source {
 public:
  virtual ~Source() = default;
  virtual size_t device_count() const = 0;
  // One pass over every device, all stamped with the same time.
  virtual std::vector<GpuSample> sample() = 0;
  // What this driver and these devices cannot report, one line each (for stderr).
  virtual const std::vector<std::string>& notes() const = 0;
};

}  // namespace memwall::monitor
