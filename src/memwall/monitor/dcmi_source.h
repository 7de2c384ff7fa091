// Live samples from Huawei Ascend NPUs through DCMI (libdcmi.so, opened at run time): per NPU
// chip the chip name, utilisation rates, on-chip memory (HBM), power, temperature and AI Core
// clock. What each DCMI reading is, and where it goes:
//   AI Core utilisation (input type 2)     share of time the AI Cores were busy, averaged over
//                                          them -> sm_active_ratio (the nearest reading: core
//                                          busy time, as SM activity is; not the same counter)
//   AI Cube utilisation (14)               the matrix (cube) units' busy share ->
//                                          tensor_active_ratio
//   HBM bandwidth utilisation (10)         on-chip memory bandwidth used / peak ->
//                                          dram_bw_util_ratio (dcmi_hbm_info.bandwith_util_rate
//                                          where type 10 is refused)
//   NPU utilisation (13)                   the chip's overall busy share -> gpu_util_ratio
//   Vector Core utilisation (12)           no memwall reading
// DCMI reports 0 for AI Core, Vector Core and HBM bandwidth where profiling is on or in a VM
// pass-through (dcmi_get_device_utilization_rate.md): such a 0 is passed on as read, and
// docs/monitor.md says so. Occupancy and clock-event reasons are unknown. A refused reading stays
// unknown.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "memwall/monitor/dcmi_api.h"
#include "memwall/core/dynamic_library.h"
#include "memwall/monitor/source.h"

namespace memwall::monitor {

class DcmiSource : public Source {
 public:
  using Clock = std::function<double()>;  // Unix time, seconds

  // Initialises DCMI through `f` and finds the NPU chips of every card. InfeasibleError (exit 3)
  // with DCMI's error code when dcmi_init or the card list fails, or no chip is found.
  explicit DcmiSource(const dcmi::Functions& f, Clock clock = unix_time_s);
  static std::unique_ptr<DcmiSource> open(const std::vector<std::string>& paths);
  DcmiSource(const DcmiSource&) = delete;
  DcmiSource& operator=(const DcmiSource&) = delete;

  size_t device_count() const override { return devices_.size(); }
  std::vector<GpuSample> sample() override;
  const std::vector<std::string>& notes() const override { return notes_; }

 private:
  struct Device {
    int card = 0, chip = 0, index = 0;
    std::optional<std::string> name;
  };
  std::optional<double> utilization(const Device& d, int type) const;

  std::unique_ptr<DynamicLibrary> library_;  // declared first: outlives the calls below
  dcmi::Functions f_;
  Clock clock_;
  std::vector<Device> devices_;
  std::vector<std::string> notes_;
};

}  // namespace memwall::monitor
