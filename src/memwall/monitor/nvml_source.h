// Live GPU samples read through NVML: per device the identity, the coarse utilisation, memory,
// power, temperature, clocks, clock-event reasons and PCIe throughput, and on GPM-capable devices
// (Hopper and newer) SM activity, SM occupancy, tensor activity, DRAM bandwidth utilisation and
// PCIe/NVLink throughput over the interval between two GPM samples. A reading the driver refuses
// (not supported, no permission, out of range, NaN) stays unknown.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "memwall/monitor/nvml_api.h"
#include "memwall/monitor/nvml_loader.h"
#include "memwall/monitor/sample.h"
#include "memwall/monitor/source.h"

namespace memwall::monitor {

// GPM metrics need two samples at least 100 ms apart (NVML API reference, nvmlGpmMetricsGet;
// a DCGM developer calls it a hard limit on Hopper, NVIDIA/DCGM#310). A pass sooner than this
// after the last GPM sample leaves the GPM readings unknown.
inline constexpr double kGpmMinIntervalS = 0.100;

class NvmlSource : public Source {
 public:
  using Clock = std::function<double()>;  // Unix time, seconds

  // Initialises NVML through `f` and finds the devices. InfeasibleError (exit 3) with NVML's
  // reason when nvmlInit_v2 or the device count fails.
  explicit NvmlSource(const nvml::Functions& f, Clock clock = unix_time_s);
  // Opens the driver library at `path` first; InfeasibleError saying no NVML was found otherwise.
  static std::unique_ptr<NvmlSource> open(const std::string& path = kNvmlLibrary);
  ~NvmlSource() override;
  NvmlSource(const NvmlSource&) = delete;
  NvmlSource& operator=(const NvmlSource&) = delete;

  size_t device_count() const override { return devices_.size(); }
  // One pass over every device, all stamped with the same time. The first pass of a GPM device
  // only starts its interval: its GPM readings are known from the second pass on.
  std::vector<GpuSample> sample() override;
  // What this driver and these devices cannot report, one line each (for stderr).
  const std::vector<std::string>& notes() const override { return notes_; }

 private:
  struct DeviceState {
    nvml::Device handle = nullptr;
    int index = 0;
    std::optional<std::string> name, uuid;
    bool gpm = false;
    nvml::GpmSample previous = nullptr, current = nullptr;
    std::optional<double> previous_time_s;
  };
  void discover();  // finds the devices and their GPM support
  void release();   // frees GPM buffers, shuts NVML down
  std::string reason(nvml::Return r) const;
  void read_basic(DeviceState& d, GpuSample& s) const;
  void read_gpm(DeviceState& d, double now_s, GpuSample& s) const;

  std::unique_ptr<NvmlLibrary> library_;  // declared first: outlives the calls below
  nvml::Functions f_;
  Clock clock_;
  std::vector<DeviceState> devices_;
  std::vector<std::string> notes_;
  bool initialised_ = false;
};

}  // namespace memwall::monitor
