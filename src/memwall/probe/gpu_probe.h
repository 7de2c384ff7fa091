// Measurements of NVIDIA GPUs through the CUDA runtime, cuBLAS and cuBLASLt: device memory
// bandwidth (a copy kernel), host<->device bandwidth from pinned memory, device<->device (peer)
// bandwidth, and GEMM FLOP/s per precision. The implementation (gpu_probe.cu) is built only when
// CMake finds the CUDA toolkit and MEMWALL_CUDA is on; otherwise run_gpu_probe says it was not
// built. Plain types with unit-suffixed names, so that nvcc compiles this header as it is.
#pragma once

#include <string>
#include <vector>

namespace memwall::probe {

struct GpuTransfer {
  std::string what;        // "device copy", "host to device (pinned)", "peer 0 -> 1" ...
  double bytes = 0;        // counted per pass: a copy reads and writes, so 2 x buffer for "device copy"
  double best_seconds = 0;
  double bytes_per_s() const { return best_seconds > 0 ? bytes / best_seconds : 0; }
};

struct GpuGemm {
  std::string precision;   // memwall precision name: fp32, tf32, fp16, bf16, fp8_e4m3
  std::string library;     // "cublas" or "cublaslt"
  long long m = 0, n = 0, k = 0;
  double flops = 0;        // 2 m n k
  // A burst: the best of a few timed calls. Sustained (sustained_seconds > 0): the same GEMM back to
  // back for that long, best_seconds then being the mean time per call over the run's second half,
  // when the board's power limit has settled the clock (what a long prefill or training step sees).
  double best_seconds = 0;
  double sustained_seconds = 0;
  double flops_per_s() const { return best_seconds > 0 ? flops / best_seconds : 0; }
};

struct GpuDevice {
  int index = 0;
  std::string name;        // as the driver reports it, e.g. "NVIDIA H200"
  int compute_capability_major = 0, compute_capability_minor = 0;
  int multiprocessors = 0;
  double memory_bytes = 0;
  std::vector<GpuTransfer> transfers;  // device copy, host to device, device to host
  std::vector<GpuGemm> gemms;
  std::vector<std::string> notes;      // what was skipped and why
};

struct GpuReport {
  bool built = false;      // this binary has the CUDA part
  bool ran = false;        // at least one GPU was found and measured
  std::string reason;      // why not, when !ran
  std::string runtime;     // "CUDA runtime 13.0, driver 13.0"
  std::vector<GpuDevice> devices;
  std::vector<GpuTransfer> peers;      // device <-> device where peer access is possible
};

struct GpuProbeOptions {
  bool quick = false;
  double buffer_bytes = 1 << 30;  // device copy buffer; transfers use a quarter of it
  long long gemm_size = 8192;     // square GEMM m = n = k
  int repetitions = 10;
  // Back-to-back 16-bit GEMM for this long to measure the sustained rate (0: skip).
  double sustained_seconds = 20;
};

GpuReport run_gpu_probe(const GpuProbeOptions& o);

}  // namespace memwall::probe
