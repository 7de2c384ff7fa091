// Achievable fractions of nominal link bandwidth and the per-step latencies of an NCCL-like
// collective library: the named, sourced parameters of the network model. Everything the model
// does not take from the node or fabric entry comes from here.
#pragma once

#include <array>

namespace memwall::comm {

// Fraction of the NVLink line rate that SM-driven copies reach: 128-byte payloads give ~20 of
// 25 GB/s per link (NCCL maintainer, NVIDIA/nccl-tests #149); NCCL's own topology model uses
// 20.6/25 (Hopper) and 40.1/50 (Blackwell) GB/s per link (src/graph/topo.h SM90/SM100_NVLINK_BW).
// Used only when a node has no measured achievable bandwidth.
inline constexpr double kNvlinkEfficiency = 0.80;

// NVLink SHARP (NVLS) all-reduce: algorithm bandwidth as a fraction of the per-direction line
// rate. 8x H800: busbw 215 GB/s = algbw 123 GB/s of 200 (NVIDIA/nccl #1374, 0.614); 8x H100:
// algbw ~275 of 450 (maintainer, NVIDIA/nccl-tests #212, 0.611).
inline constexpr double kNvlsAlgbwEfficiency = 0.61;

// Non-NVIDIA scale-up meshes (Infinity Fabric, HCCS, Gaudi RoCE mesh): no collective-level
// measurement found; assumed equal to the NVLink payload efficiency.
inline constexpr double kMeshEfficiency = 0.80;

// PCIe: NCCL models a Gen3 x16 link as 12 GB/s of 15.75 nominal (src/graph/topo.h PCI_BW).
inline constexpr double kPcieEfficiency = 0.76;

// Intel root complexes split GPU peer traffic into 64-byte TLPs: +20% PCIe traffic
// (NCCL src/graph/topo.h INTEL_P2P_OVERHEAD = bw * 6/5); applied to P2P through a CPU.
inline constexpr double kIntelP2pOverhead = 1.2;

// Scale-out NIC + fabric: SimAI's measured efficiency table (inputs/ratio/nic_ratio.csv) gives
// 0.92 of peak bus bandwidth for a 1 GB collective on 2 nodes.
inline constexpr double kNetworkEfficiency = 0.92;

// NCCL protocols (src/graph/tuning.cc): LL moves 8-byte lines with 4 bytes of data (50 %),
// LL128 moves 128-byte lines with 120 bytes of data, Simple moves raw data with a heavier
// per-step synchronisation. Latencies in microseconds from the baseLat and hwLat tables
// (ring rows; tree rows for tree; NVLS column for NVLS).
enum class Protocol { ll, ll128, simple };
enum class HopClass { nvlink, pci, net };

struct ProtocolParams {
  Protocol protocol;
  const char* name;
  double bandwidth_fraction;
  double base_latency_us;
  std::array<double, 3> ring_hop_latency_us;  // nvlink, pci, net
  std::array<double, 3> tree_hop_latency_us;
};

inline constexpr std::array<ProtocolParams, 3> kProtocols = {{
    {Protocol::ll, "LL", 0.5, 6.6, {0.6, 1.0, 2.7}, {0.6, 1.0, 5.0}},
    {Protocol::ll128, "LL128", 120.0 / 128.0, 14.0, {1.9, 2.5, 4.0}, {1.25, 1.9, 8.5}},
    {Protocol::simple, "Simple", 1.0, 8.4, {3.4, 5.7, 14.0}, {4.0, 4.0, 14.0}},
}};

// NVLS (Simple only): NCCL hwLat NVLS column: 25 us on NVLink, 18 us per network step.
inline constexpr double kNvlsLatencyUs = 25.0;
inline constexpr double kNvlsNetLatencyUs = 18.0;

// All-to-all issues one send per peer; each costs about an LL hop (assumption: NCCL has no
// all-to-all entry in its tuning tables).
inline constexpr double kAllToAllPerPeerUs = 0.6;

// Engines' custom all-reduce over peer memory (vLLM custom_all_reduce, TensorRT-LLM AllReduce
// plugin, SGLang): one kernel that signals its peers through flags in NVLink-mapped buffers and
// either reads every peer's whole buffer (one-shot) or reduce-scatters then all-gathers
// (two-shot). Fixed cost per call: graph-replayed kernel plus one flag barrier, memwall's estimate
// set below NCCL LL's 6.6 us base (tuning.cc) and near the ~6 us measured for a CUDA-graph 2-GPU
// NVLS all-reduce on H100 (NVIDIA/nccl #1259); each further barrier costs one link latency.
inline constexpr double kCustomAllReduceBaseUs = 5.0;

}  // namespace memwall::comm
