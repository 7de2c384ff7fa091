// run_gpu_probe for builds without the CUDA part (MEMWALL_CUDA off or no CUDA toolkit found).
#include "memwall/probe/gpu_probe.h"

#if !MEMWALL_HAVE_CUDA
namespace memwall::probe {

GpuReport run_gpu_probe(const GpuProbeOptions&) {
  GpuReport r;
  r.reason =
      "this build has no CUDA part (configure with the CUDA toolkit and MEMWALL_CUDA=ON, e.g. "
      "MEMWALL_CUDA=1 scripts/gpu-check.sh)";
  return r;
}

}  // namespace memwall::probe
#endif
