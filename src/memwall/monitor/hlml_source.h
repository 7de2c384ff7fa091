// Live samples from Intel Gaudi accelerators through hlml (libhlml.so, opened at run time): per
// device the name, UUID, AIP utilisation, memory, power, AIP temperature and TPC clock. What
// each hlml reading is, and where it goes:
//   utilization.aip   share of the last second the AIP was busy -> gpu_util_ratio (time, as
//                     NVML's coarse util)
//   clock TPC         the Tensor Processor Cores' clock -> sm_clock_mhz
// hlml has no counter for SM/TPC activity, MME (matrix) activity or HBM bandwidth: those stay
// unknown. Its clock-throttle bits (power, thermal) are not NVML's bitmask and are not read.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "memwall/core/dynamic_library.h"
#include "memwall/monitor/hlml_api.h"
#include "memwall/monitor/source.h"

namespace memwall::monitor {

class HlmlSource : public Source {
 public:
  using Clock = std::function<double()>;  // Unix time, seconds

  // Initialises hlml through `f` and finds the devices. InfeasibleError (exit 3) with hlml's
  // return code when hlml_init or the device count fails, or there is no device.
  explicit HlmlSource(const hlml::Functions& f, Clock clock = unix_time_s);
  static std::unique_ptr<HlmlSource> open(const std::vector<std::string>& paths);
  ~HlmlSource() override;
  HlmlSource(const HlmlSource&) = delete;
  HlmlSource& operator=(const HlmlSource&) = delete;

  size_t device_count() const override { return devices_.size(); }
  std::vector<GpuSample> sample() override;
  const std::vector<std::string>& notes() const override { return notes_; }

 private:
  struct Device {
    hlml::Device handle = nullptr;
    int index = 0;
    std::optional<std::string> name, uuid;
  };
  void discover();

  std::unique_ptr<DynamicLibrary> library_;  // declared first: outlives the calls below
  hlml::Functions f_;
  Clock clock_;
  std::vector<Device> devices_;
  std::vector<std::string> notes_;
  bool initialised_ = false;
};

}  // namespace memwall::monitor
