// The achievable fractions of the host's datasheet peaks that the offload model times CPU work
// and CPU<->GPU transfers with, each a named parameter with its evidence. They are set from the
// published offload runs of the dev set (validation/dev-cases.json, kind "offload") and the
// microbenchmarks cited; never per case.
#pragma once

#include "memwall/core/units.h"

namespace memwall::offload {

struct HostEfficiency {
  // Decode GEMVs on the CPU (llama.cpp ggml and KTransformers' llamafile kernels, quantised
  // weights): bytes read / DRAM peak. The dev set's decode runs imply 0.44 (KTransformers, Xeon
  // Gold 6454S, 8 x DDR5-4800), ~0.5 (KTransformers, EPYC 9654, 12 x DDR5-4800) and 0.57-0.70
  // (KTransformers and llama.cpp, EPYC 7773X, 8 x DDR4-3200); 0.5 gives the lowest median error
  // over them (when set: 0.55 gave 17.7 % median, 42.8 % p90; 0.5 gave 17.0 %, 33.6 %; the
  // offload group's current figures are in validation/REPORT.md). STREAM triad reaches
  // 0.75-0.85 of peak on the same parts; the gap is the dequantisation work between loads.
  double cpu_memory_bandwidth_fraction = 0.5;
  // Prompt-processing GEMMs on the CPU with AVX-512/AVX2 int8 dot products (not AMX): achieved
  // / peak int8 operations. KTransformers prefill of routed experts reaches ~0.13 (6454S) to
  // ~0.19 (7773X) of the VNNI/AVX2 peak, llama.cpp CPU-only ~0.11 (7773X).
  double cpu_gemm_fraction = 0.13;
  // A second socket adds this fraction of its DRAM bandwidth and cores when the engine keeps a
  // copy of the CPU-side weights on every NUMA node (KTransformers USE_NUMA: 1 TB for two
  // sockets): the cross-socket barrier per operator remains. KTransformers V0.2 decode goes from
  // 8.73 to 12.21 tokens/s from one to two 6454S sockets (expert time 1.44x faster for 2x).
  double second_socket_fraction = 0.45;
  // Engines that keep one copy (llama.cpp: mmap'd weights land on the node that first touches
  // them; --numa distribute spreads threads, not pages) read from one node's DRAM and use one
  // socket's cores at full rate: the KTransformers table's llama.cpp on 2 x 6454S decodes at
  // 4.51 tokens/s, about what one socket's bandwidth gives.
  double second_socket_fraction_single_copy = 0.0;
  // Per operator on the CPU: the thread pool's barrier (ggml_barrier / KTransformers' backend
  // sync), tens of microseconds with 32-128 threads.
  Seconds cpu_op_overhead = us(20);
  // Host<->device copies from pinned memory reach ~80 % of the PCIe link (nvbandwidth and
  // CUDA bandwidthTest: ~25 GB/s on Gen4 x16, ~50 GB/s on Gen5 x16); the same for NVLink-C2C
  // (NVIDIA reports ~ 375-400 of 450 GB/s per direction on GH200).
  double link_fraction = 0.8;
  // Every CPU<->GPU hand-over: a copy launch and a synchronisation (cudaMemcpyAsync +
  // cudaStreamSynchronize round trip, ~10 us on PCIe).
  Seconds handover_latency = us(10);
  // Usable fraction of host memory after the OS, page cache and the engine's own buffers.
  double host_memory_usable_fraction = 0.9;
  // llama.cpp moves a CPU-resident layer's matmul to the GPU (streaming its weights over the
  // link) when a step has at least this many tokens (ggml-cuda offload_op, min batch 32).
  int stream_min_tokens = 32;
};

inline const HostEfficiency& default_host_efficiency() {
  static const HostEfficiency e;
  return e;
}

}  // namespace memwall::offload
