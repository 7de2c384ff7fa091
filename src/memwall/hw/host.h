// A host: the CPU sockets, DRAM, PCIe and NVMe an accelerator sits behind, as the offload model
// (src/memwall/offload) needs them: where weights, experts and KV cache go when the GPU is too
// small, how fast the CPU reads and computes on them, and how fast the link to the GPU carries
// them. Datasheet facts per socket; unknown values stay empty.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "memwall/core/precision.h"
#include "memwall/core/units.h"

namespace memwall {

struct Host {
  std::string id;  // e.g. "amd-epyc-9654"
  std::vector<std::string> aliases;
  std::string vendor, name;
  std::string kind;  // server | workstation | desktop | superchip
  int sockets = 1;   // the configuration used (a --cpu "2xID" spec sets it)
  std::optional<int> cores_per_socket;
  std::optional<double> base_clock_ghz;
  std::string memory_type;
  std::optional<int> memory_channels_per_socket;
  std::optional<double> memory_mt_s;
  // Stated directly where channels x MT/s does not apply (LPDDR5X on Grace).
  std::optional<BytesPerSecond> memory_bandwidth_per_socket_stated;
  std::optional<Bytes> installed_memory_per_socket;  // configuration assumed by default
  std::optional<Bytes> max_memory_per_socket;        // platform limit
  std::string simd;
  // FLOPs (int8: operations) per cycle per core of the widest unit for the element type.
  std::optional<double> fp32_per_cycle, bf16_per_cycle, int8_per_cycle;
  std::optional<int> pcie_generation, pcie_lanes_per_socket;
  std::string gpu_link = "PCIe";                                   // or "NVLink-C2C"
  std::optional<BytesPerSecond> gpu_link_bandwidth_per_direction;  // C2C; PCIe comes from the GPU
  std::optional<BytesPerSecond> nvme_read_bandwidth;
  std::vector<std::string> sources;
  std::string notes;

  // DRAM peak of all sockets: channels x MT/s x 8 bytes per transfer (a 64-bit DDR4/DDR5
  // channel, JEDEC JESD79-5), or the stated figure; nullopt when unknown.
  std::optional<BytesPerSecond> memory_bandwidth() const;
  std::optional<Bytes> installed_memory() const;
  std::optional<Bytes> max_memory() const;
  int cores() const { return sockets * cores_per_socket.value_or(0); }
  // Peak of the CPU's vector/matrix units for GEMMs whose weights are stored as `weight`:
  // int8 dot products (VNNI, AMX-INT8, SDOT) for int8/int4/fp8 weights (llama.cpp and
  // KTransformers quantise activations to int8), bf16 (AVX512_BF16, AMX) for bf16/fp16,
  // else fp32: base clock x cores x FLOPs per cycle. nullopt when unknown.
  std::optional<FlopsPerSecond> peak(Precision weight) const;
  // The element type that peak() uses for `weight` ("int8", "bf16" or "fp32").
  std::string peak_path(Precision weight) const;
};

}  // namespace memwall
