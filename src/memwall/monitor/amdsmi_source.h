// Live samples from AMD GPUs through amd-smi (libamd_smi.so, opened at run time): per GPU the
// name, UUID, GFX and memory-controller activity, VRAM used and total, socket power, GFX and
// memory clocks and the hotspot temperature. What each amd-smi counter is, and where it goes:
//   gfx_activity  share of time the graphics/compute engine was busy -> gpu_util_ratio (time, as
//                 NVML's coarse util: not how much of the GPU was used)
//   umc_activity  share of time the memory controller (UMC) was busy -> dram_bw_util_ratio,
//                 the memory interface's busy share, as the AMD exporter's gpu_umc_activity and
//                 DCGM's DRAM_ACTIVE are read (sample.h); SM activity, occupancy and tensor
//                 activity stay unknown: they need rocprofiler counters amd-smi does not read
//   mm_activity   the multimedia (video) engines: no memwall reading
// A reading the library refuses, or reports as its "not available" value, stays unknown.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "memwall/monitor/amdsmi_api.h"
#include "memwall/core/dynamic_library.h"
#include "memwall/monitor/source.h"

namespace memwall::monitor {

class AmdSmiSource : public Source {
 public:
  using Clock = std::function<double()>;  // Unix time, seconds

  // Initialises amd-smi through `f` (GPUs only) and finds the GPUs. InfeasibleError (exit 3) with
  // amd-smi's reason when amdsmi_init or the handle queries fail, or no GPU is found.
  explicit AmdSmiSource(const amdsmi::Functions& f, Clock clock = unix_time_s);
  // Opens the first of `paths` that loads; InfeasibleError naming the library and its package
  // otherwise, or when a required symbol is missing.
  static std::unique_ptr<AmdSmiSource> open(const std::vector<std::string>& paths);
  ~AmdSmiSource() override;
  AmdSmiSource(const AmdSmiSource&) = delete;
  AmdSmiSource& operator=(const AmdSmiSource&) = delete;

  size_t device_count() const override { return devices_.size(); }
  std::vector<GpuSample> sample() override;
  const std::vector<std::string>& notes() const override { return notes_; }

 private:
  struct Device {
    amdsmi::ProcessorHandle handle = nullptr;
    int index = 0;
    std::optional<std::string> name, uuid;
  };
  // Which struct layouts the library has (amdsmi_api.h): the 24.x header's, the 26.x one's, or
  // one memwall was not checked against (its power, clock and name readings then stay unknown).
  enum class Layout { v24, v26, unknown };
  void discover();
  void find_layout();
  std::string reason(amdsmi::Status s) const;
  template <class Layout>
  std::optional<double> socket_power(amdsmi::ProcessorHandle h) const;

  std::unique_ptr<DynamicLibrary> library_;  // declared first: outlives the calls below
  amdsmi::Functions f_;
  Clock clock_;
  std::vector<Device> devices_;
  std::vector<std::string> notes_;
  Layout layout_ = Layout::unknown;
  bool initialised_ = false;
};

}  // namespace memwall::monitor
