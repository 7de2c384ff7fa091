// Training with model states off the GPU, as DeepSpeed does it:
//   ZeRO-Offload (Ren et al., USENIX ATC 2021): the fp32 optimizer state (master weights, Adam m
//     and v) and the 16-bit gradient partition live in host DRAM, the Adam step runs on the CPU
//     (CPU-Adam: a streaming pass, DRAM-bandwidth bound), each step moves the 16-bit gradients
//     GPU->CPU and the updated 16-bit parameters CPU->GPU over PCIe (2 bytes per parameter each
//     way); optionally the one-step delayed parameter update (DPU, §4.2) overlaps the CPU step
//     with the next step's forward and backward.
//   ZeRO-Infinity (Rajbhandari et al., SC 2021): with ZeRO-3 the 16-bit parameters too live in
//     DRAM or on NVMe; each GPU reads only its own shard over its own PCIe link and NVMe drives
//     share the node's aggregate bandwidth (bandwidth-centric partitioning, §6.1); the next
//     layer's fetch overlaps this layer's compute (overlap-centric design, §6.2); optimizer state
//     on NVMe is swapped in and out around the CPU step.
// Names follow DeepSpeed's config: offload_optimizer.device and offload_param.device (cpu|nvme).
// The transfer and CPU-pass rates are the inference offload model's (memwall/offload/bandwidth.h).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "memwall/core/document.h"
#include "memwall/core/units.h"
#include "memwall/offload/efficiency.h"
#include "memwall/offload/host_setup.h"
#include "memwall/train/estimate.h"
#include "memwall/train/setup.h"

namespace memwall::train {

enum class OffloadDevice { none, cpu, nvme };
std::string_view to_string(OffloadDevice d);

struct OffloadSpec {
  OffloadDevice optimizer = OffloadDevice::none;  // DeepSpeed offload_optimizer.device
  OffloadDevice params = OffloadDevice::none;     // DeepSpeed offload_param.device (ZeRO-3)
  bool delayed_update = false;                    // ZeRO-Offload's DPU (Ren et al. §4.2)
  bool any() const { return optimizer != OffloadDevice::none || params != OffloadDevice::none; }
};

// "none", or a comma list of optimizer:cpu|nvme and params:cpu|nvme (e.g.
// "optimizer:nvme,params:nvme"); InputError naming `field` otherwise.
OffloadSpec parse_offload(const std::string& s, const std::string& field = "--offload");
std::string to_string(const OffloadSpec& s);

// Constants of the offload path, each with its evidence (never fitted per case).
struct OffloadParameters {
  // CPU-Adam's DRAM traffic per parameter (DeepSpeed csrc/adam, Step_AVX): it loads the fp32
  // master weight, the fp32 gradient, m and v (16 B) and stores the master weight, m and v (12 B)
  // and the 16-bit copy sent back to the GPU (2 B). The pass runs at the host's streaming
  // bandwidth (offload::HostEfficiency::cpu_memory_bandwidth_fraction, the same as inference).
  double cpu_adam_bytes_per_param = 30;
  // NVMe writes are timed at this fraction of the catalog's read bandwidth (the catalog states
  // reads; data-centre TLC drives write sequentially at roughly their read rate or below, so this
  // is the optimistic end).
  double nvme_write_fraction = 1.0;
};

// Where the model states went and what moving them costs per iteration.
struct OffloadEstimate {
  OffloadSpec spec;
  int gpus_per_node = 1;
  int nvme_drives = 0;      // per node
  Bytes gpu_saved_per_gpu;  // weights / gradients / optimizer state moved off each GPU
  Bytes gpu_per_gpu;  // what stays on each GPU (the memory plan total)
  Bytes host_per_gpu, host_per_node, host_usable;
  Bytes nvme_per_node;
  // Per iteration, per GPU.
  Bytes pcie_to_host, pcie_to_gpu;  // gradients down, parameters up
  Bytes nvme_read, nvme_write;
  BytesPerSecond link_per_gpu;  // the GPU's share of its PCIe switch uplink, nominal
  Seconds pcie_time;            // both directions, before overlap
  Seconds nvme_time;            // the node's drives, before overlap
  Seconds cpu_step_time;        // CPU-Adam over the node's partitions
  Seconds optimizer_exposed;    // CPU step + its swaps and copy not hidden (DPU hides it)
  Seconds transfer_exposed;     // gradient and parameter streams not hidden by compute
  // The wall with the most exposed time: PCIe | CPU-Adam (DRAM bandwidth) | NVMe, or nothing
  // when under 1 % of the GPU's work is exposed.
  std::string bound;
  std::vector<std::string> notes;
};

struct OffloadedEstimate {
  TrainEstimate estimate;  // memory per GPU and step time with the offload
  OffloadEstimate offload;
};

// The estimate `base` (computed without the memory check) with the states of `s` moved off the
// GPU: memory per GPU drops by the moved bytes; the GPU's optimizer step is replaced by the
// exposed CPU step, NVMe swaps and PCIe streams (breakdown.optimizer holds them, so the breakdown
// still sums to the step). InputError when the configuration cannot offload (ZeRO stage, pipeline
// parallelism); InfeasibleError when host memory cannot hold the states.
OffloadedEstimate apply_offload(
    const TrainSetup& setup, const TrainEstimate& base, const OffloadSpec& s,
    const offload::HostSetup& h, int nvme_drives,
    const offload::HostEfficiency& he = offload::default_host_efficiency(),
    const OffloadParameters& op = {});

// The "offload" object of `memwall train --json`.
Json offload_json(const OffloadEstimate& o, const offload::HostSetup& h);

}  // namespace memwall::train
