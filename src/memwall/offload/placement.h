// Heterogeneous placement of one model replica on one GPU and its host: each tensor class
// (per-layer weights, MoE routed experts, embedding/LM head, KV cache, activations) lives in GPU
// memory, host DRAM or NVMe, and each operator runs on the GPU or the CPU. A step's time is the
// roofline of every operator on the device that runs it plus the transfers its placement forces
// over PCIe / NVLink-C2C, with the overlap the engine has:
//   layers:N        llama.cpp -ngl N: N layers on the GPU, the rest computed by the CPU from
//                   DRAM; big prompt steps stream CPU layers' weights to the GPU (ggml-cuda
//                   offload_op); one hand-over at each GPU/CPU boundary.
//   experts         KTransformers (and llama.cpp -ot exps=CPU): routed experts in DRAM, computed
//                   by the CPU; attention, shared experts, dense layers and KV on the GPU; two
//                   hand-overs per MoE layer (Chen et al., KTransformers, SOSP 2025).
//   kv              KV cache in DRAM, decode attention computed by the CPU (FlexGen's CPU
//                   delegation, Sheng et al., ICML 2023 §4.2); the prompt's attention on the
//                   GPU, its KV written home over the link; weights on the GPU.
//   weights-stream  weights that do not fit stream from DRAM (or NVMe) to the GPU every step,
//                   the next layer's copy overlapping this layer's compute (FlexGen §4.2, vLLM
//                   --cpu-offload-gb, DeepSpeed ZeRO-Inference).
//   cpu             no GPU: every operator on the CPU (llama.cpp CPU build).
// Weights that do not fit in DRAM spill to NVMe and are read from it every step they are used
// (llama.cpp mmap, FlexGen's disk tier).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "memwall/core/document.h"
#include "memwall/core/units.h"
#include "memwall/infer/deployment.h"
#include "memwall/infer/estimate.h"
#include "memwall/offload/efficiency.h"
#include "memwall/offload/host_setup.h"

namespace memwall::offload {

enum class Strategy { none, auto_search, layers, experts, kv, weights_stream, cpu };

struct StrategySpec {
  Strategy strategy = Strategy::none;
  std::optional<int> gpu_layers;  // layers:N
};

// none | auto | layers:N | experts | kv | weights-stream | cpu; InputError naming `field`.
StrategySpec parse_strategy(const std::string& s, const std::string& field = "--offload");
std::string to_string(const StrategySpec& s);

// Where one tensor class lives and which device computes on it.
struct TensorClass {
  std::string name;  // layer_weights | expert_weights | head_weights | kv_cache | activations
  Bytes gpu, host, disk;
  std::string compute;  // gpu | cpu | gpu (streamed) | -
};

struct Placement {
  StrategySpec strategy;  // the resolved preset (auto resolved to the one chosen)
  int layers = 0;
  int gpu_layers = 0;           // layers whose non-expert weights are on the GPU
  bool experts_on_cpu = false;  // routed experts in DRAM, computed by the CPU
  bool kv_on_host = false;      // KV in DRAM, decode attention on the CPU
  bool stream = false;          // CPU-side weights stream to the GPU instead of CPU compute
  bool cpu_only = false;
  std::vector<TensorClass> classes;
  Bytes gpu_used, gpu_usable, host_used, host_usable, disk_used;
};

// Time of one step split by where it goes.
struct StepSplit {
  Seconds gpu, cpu, transfer, disk, overhead, total;
  Bytes transfer_bytes, disk_bytes;
  Bytes gpu_bytes;    // GPU-memory traffic of the operators the GPU runs (streamed ones included)
  std::string bound;  // HBM bandwidth | GPU FLOP/s | DRAM bandwidth | CPU FLOP/s | PCIe | ...
};

struct Estimate {
  Placement placement;
  StepSplit prefill, decode;  // the prefill pass; the decode step at the mean context
  infer::Estimate infer;      // TTFT, TPOT, throughput, GPU memory, in infer's form
  std::string bound;          // of the phase that takes longer
  std::vector<std::string> assumptions;
};

// The estimate of `w` with the placement `s` (not auto). InputError when the strategy does not
// apply (experts on a dense model, a replica of more than one device, N out of range);
// InfeasibleError when it does not fit in GPU memory, DRAM and NVMe, with the numbers.
Estimate estimate(const infer::Deployment& d, const HostSetup& h, const StrategySpec& s,
                  const infer::Workload& w, const HostEfficiency& e = default_host_efficiency());

// auto: every strategy that applies, the most GPU layers that fit for each, the fastest
// end-to-end one that fits. InfeasibleError when none fits.
Estimate best(const infer::Deployment& d, const HostSetup& h, const infer::Workload& w,
              const HostEfficiency& e = default_host_efficiency());

// The "offload" object of the JSON answer.
Json to_json(const Estimate& e, const HostSetup& h);

}  // namespace memwall::offload
