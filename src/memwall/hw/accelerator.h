// An accelerator (GPU, NPU, TPU ...): the datasheet facts memwall reasons with. Values the sources
// do not give stay empty (std::nullopt) and are printed as "unknown"; nothing is filled in by guess.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "memwall/core/precision.h"
#include "memwall/core/units.h"

namespace memwall {

// Where one figure of an entry comes from, when it differs from the entry's own sources: the
// source, its confidence (high | medium | low) and the published range the value was taken from.
struct FigureSource {
  std::string source;
  std::string confidence;
  std::optional<double> low, high;  // in the file's unit for that field (GB/s, TFLOP/s, W)
};

struct Accelerator {
  std::string id;       // as in shared/reference/accelerators.json, e.g. "nvidia-h100-sxm"
  std::vector<std::string> aliases;  // short names: "h100", "h100-sxm" ...
  std::string vendor, name, arch, form_factor, memory_type;
  std::string confidence;  // high | medium | low | none, from the reference table

  // HBM/GDDR capacity in bytes, as the vendor means its figure: the datasheet's "80 GB" of an
  // H100 is 80 GiB (nvidia-smi shows 81559 MiB, more than 80e9 bytes). Consumers read bytes.
  std::optional<Bytes> memory;
  // The unit of the datasheet's memory figure: "GiB" (2^30 bytes) or "GB" (1e9 bytes), and the
  // evidence for it (tool-reported totals, vendor documents).
  std::string memory_unit = "GB";
  std::string memory_unit_basis;
  // Total memory the driver reports (nvidia-smi / deviceQuery), where a tool-reported figure is
  // cited in memory_unit_basis: what a runtime can allocate from, below `memory` where the driver
  // reserves part (H100: 81559 MiB of 80 GiB) or ECC takes 1/16 (L40S: 46068 MiB of 48 GiB).
  std::optional<Bytes> memory_reported;
  std::optional<BytesPerSecond> memory_bandwidth;  // datasheet peak
  // Dense (no sparsity) peak per precision column: fp32 tf32 fp16 bf16 fp8 int8 int4 fp4.
  std::map<std::string, std::optional<FlopsPerSecond>> dense_peak;
  std::vector<std::string> unsupported_precisions;  // columns the hardware has no path for
  std::string dense_method;  // how the dense peaks were derived from the vendor's figures
  // The accumulate mode each tensor figure of `dense_peak` is ("fp16" | "fp32"), by column, where
  // the vendor states it. GeForce parts run FP16-accumulate at twice their FP32-accumulate rate.
  std::map<std::string, std::string> peak_accumulate;
  // The FP32-accumulate dense rate of a column whose `dense_peak` figure is FP16-accumulate: what
  // vLLM-class engines run (their GEMMs accumulate in fp32), so what peak() times GEMMs at.
  std::map<std::string, FlopsPerSecond> fp32_accumulate_peak;

  std::string scaleup_interconnect;  // e.g. "NVLink 4.0 (18 links)"
  std::optional<BytesPerSecond> scaleup_bandwidth_per_direction;  // per device
  std::optional<BytesPerSecond> scaleup_bandwidth_published;  // the vendor's figure, as stated
  std::string scaleup_bandwidth_direction;  // what that figure counts: bidirectional, per-direction
  std::string host_link;                                          // e.g. "PCIe Gen5 x16"
  std::optional<BytesPerSecond> host_bandwidth_per_direction;     // from the PCIe generation
  std::optional<Watts> tdp;
  std::optional<int> compute_units;  // SMs (NVIDIA) / CUs (AMD) ..., for wave quantisation
  std::optional<int> year;
  std::optional<Dollars> price;
  std::optional<Dollars> price_low, price_high;  // the range a price estimate was taken from
  std::string price_source;
  std::vector<std::string> sources;
  std::string notes;
  // What deploying this device risks beyond its stack's maturity, with its source, e.g. a driver
  // licence that excludes datacenter use (empty: none); plans on it carry it as a software risk
  // (RISK column, --risk-averse), as a node's `risk`.
  std::string risk;
  // Per-figure provenance, keyed by the file's field name: "mem_bw_gbps", "tdp_w",
  // "tflops.bf16" ... A figure without an entry is covered by `sources` and `confidence`.
  std::map<std::string, FigureSource> figure_sources;

  // The datasheet's memory figure in memory_unit (80 for an "80 GB" H100); nullopt when unknown.
  std::optional<double> memory_datasheet_figure() const;
  // What software can allocate from: the driver-reported total where known, else `memory`.
  std::optional<Bytes> runtime_memory() const { return memory_reported ? memory_reported : memory; }
  // Dense peak for the matmul precision, at FP32 accumulate where the catalog gives that rate;
  // nullopt when unknown or unsupported.
  std::optional<FlopsPerSecond> peak(Precision p) const;
  bool supports(Precision p) const;
};

// Bytes in one unit of a datasheet memory figure: 2^30 for "GiB", 1e9 for "GB"; 0 otherwise.
double memory_unit_bytes(const std::string& unit);

}  // namespace memwall
