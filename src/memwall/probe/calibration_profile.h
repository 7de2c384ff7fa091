// From measurements to a calibration profile: the measured fraction of each datasheet peak (the
// keys perf::apply_calibration reads), and memwall's predicted-vs-measured time for the kernels the
// probe ran, so a user sees how far the default efficiencies are from this machine.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "memwall/core/document.h"
#include "memwall/core/units.h"
#include "memwall/hw/accelerator.h"
#include "memwall/perf/efficiency.h"
#include "memwall/probe/gpu_probe.h"
#include "memwall/probe/host_probe.h"

namespace memwall::probe {

// Datasheet peaks of the host CPU as the user gives them (memwall has no CPU catalog).
struct HostPeaks {
  std::optional<BytesPerSecond> memory_bandwidth;
  std::optional<FlopsPerSecond> fp32;
};

// The host as an accelerator for the roofline: id and arch "cpu", memory type "DRAM", fp32 peak
// only. Unknown peaks stay unknown.
Accelerator host_accelerator(const HostPeaks& peaks);

// One kernel the probe ran: what memwall predicts for it and what was measured.
struct Comparison {
  std::string device;  // "host" or the catalog id of the GPU
  std::string what;    // "STREAM triad", "fp32 GEMM 2048x2048x2048", "sweep n=4" ...
  Flops flops;
  Bytes bytes;
  Seconds measured;
  // perf::time_op with the datasheet peaks and the default efficiencies; nullopt when a peak is
  // unknown (`note` says which).
  std::optional<Seconds> predicted;
  // The ideal roofline of the measured ceilings (STREAM triad, best fp32 GEMM), host only:
  // max(flops / compute, bytes / bandwidth) (Williams et al., CACM 2009).
  std::optional<Seconds> measured_roofline;
  std::string note;
  // predicted / measured - 1: negative = memwall predicts faster than measured.
  std::optional<double> error() const;
};

std::vector<Comparison> compare_host(const HostReport& host, const HostPeaks& peaks,
                                     const perf::Efficiency& e);
// `spec`: the catalog entry of the measured GPU (device 0), from --gpu.
std::vector<Comparison> compare_gpu(const GpuReport& gpu, const Accelerator& spec,
                                    const perf::Efficiency& e);

// A document perf::apply_calibration accepts: memory_bandwidth_fraction and gemm_peak_fraction
// (measured / datasheet peak), keyed "cpu" for the host and, for GPU device 0, by the catalog id
// (bandwidth) and "<arch>/<precision>" (GEMM, the best burst), sustained_compute_fraction by the
// catalog id (a sustained GEMM's rate / the burst's of its precision); plus "probe", the measurements behind them
// (ignored when applied). A fraction is left out, and a note says why, when the peak is unknown
// or the measurement exceeds it (a wrong peak: fractions must lie in (0, 1]).
struct CalibrationProfile {
  Json document;
  std::vector<std::string> notes;
};
// `host` or `gpu` may be null (not measured).
CalibrationProfile calibration_profile(const HostReport* host, const HostPeaks& peaks,
                                       const GpuReport* gpu, const Accelerator* gpu_spec,
                                       const Json& measurements);

}  // namespace memwall::probe
