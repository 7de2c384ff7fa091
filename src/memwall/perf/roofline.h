// The roofline with achievable ceilings: the time of one kernel from its FLOPs and bytes against
// the sustained (not peak) compute and bandwidth of a device, with GEMM tile and wave quantisation,
// imperfect compute/memory overlap near the ridge point, and a per-kernel overhead.
// Stable API reused by the inference and training estimators.
#pragma once

#include <cstdint>
#include <string_view>

#include "memwall/core/precision.h"
#include "memwall/core/units.h"
#include "memwall/hw/accelerator.h"
#include "memwall/perf/efficiency.h"

namespace memwall::perf {

enum class OpKind {
  gemm,               // dense matmul on tensor cores; `gemm` holds its shape
  attention_prefill,  // FlashAttention-style fused attention over new tokens (compute-heavy)
  attention_decode,   // one query per sequence against its KV cache (bandwidth-heavy)
  elementwise,        // norms, rotary, activations, residual adds, embedding gather, sampling
  communication,      // a collective; its time comes from comm::estimate, not the roofline
};
std::string_view to_string(OpKind k);

// A GEMM C[m,n] = A[m,k] * B[k,n], repeated `batch` times with the same shape (grouped experts).
struct GemmShape {
  int64_t m = 0, n = 0, k = 0;
  int64_t batch = 1;
};

// What one kernel (or `kernels` back-to-back kernels) does.
struct OpCost {
  OpKind kind = OpKind::elementwise;
  Flops flops;
  Bytes bytes_read;
  Bytes bytes_written;
  GemmShape gemm;                // kind == gemm only
  int kernels = 1;               // launches this op costs (0 when fused into a neighbour)
  Seconds communication_time;    // kind == communication only
  Seconds fixed_time;            // latency the op adds whatever its size (counted as overhead)
  Bytes bytes_moved() const { return bytes_read + bytes_written; }
};

struct OpTime {
  Seconds time;          // what the op adds to the step: blend(compute, memory) + overhead
  Seconds compute_time;  // flops / achievable FLOP/s at this shape
  Seconds memory_time;   // bytes / achievable bandwidth
  Seconds overhead;      // kernel launch overhead
  bool compute_bound = false;
  double compute_efficiency = 0;  // achievable FLOP/s / dense peak at this shape
};

// A device's achievable ceilings for one matmul precision and engine, resolved once so that timing
// an op is a few arithmetic operations.
struct Ceilings {
  FlopsPerSecond matmul_peak;        // datasheet dense peak of the matmul precision
  double gemm_peak_fraction = 1;     // best-shape / peak (MAMF) x sustained_compute_fraction
  double attention_compute_fraction = 1;  // x sustained_compute_fraction too
  double sustained_compute_fraction = 1;  // power-limited clock under sustained load (included)
  BytesPerSecond memory_peak;        // datasheet
  BytesPerSecond memory_sustained;   // x STREAM fraction
  double attention_bandwidth_fraction = 1;
  int compute_units = 0;             // 0: unknown, no wave quantisation
  // GEMMs with more rows (tokens) than skinny_gemm_max_m stream their operands at
  // library_gemm_stream_fraction of memory_sustained (EngineProfile::fp8_skinny_gemm_max_tokens);
  // -1: every GEMM streams at memory_sustained.
  int64_t skinny_gemm_max_m = -1;
  double library_gemm_stream_fraction = 1;
  Seconds kernel_overhead;
  Seconds step_overhead;               // per iteration
  Seconds step_overhead_per_sequence;  // per sequence the iteration runs (prefill or decode)
  bool fused_elementwise = true;
  bool gqa_shared_kv_loads = true;
  bool gqa_shared_kv_loads_mixed = true;  // in iterations mixing prompt chunks with decodes
  const Efficiency* efficiency = nullptr;
  // False when the fractions above are the vendor's conservative prior (efficiency_for).
  bool calibrated = true;
  std::string efficiency_source;
};

// The device's own ceilings (datasheet x STREAM, MAMF and sustained-clock fractions), with no
// serving engine's rates, overheads or dispatch rules: what the training estimator times with its
// own kernel overhead and in-situ GEMM fraction. InputError when the device's bandwidth or the
// precision's peak is unknown, InfeasibleError when the device has no path for the precision.
Ceilings resolve_device_ceilings(const Accelerator& a, Precision matmul_precision,
                                 const Efficiency& e);
// The share of the sustained GEMM / prefill-attention rate the engine's compute-bound kernels
// reach on device `a`: its per-architecture entry where one matches, else its general one.
double compute_in_situ_fraction(const Accelerator& a, const EngineProfile& eng);
// The engine's block-scaled FP8 GEMM rate relative to per-tensor FP8 on device `a`: its measured
// scale carried to a's FP8-tensor / FP32 peak ratio (EngineProfile::blockwise_fp8_reference_ratio);
// 1 unless `p` is fp8, the recipe blockwise and a's architecture one the engine lists.
double blockwise_fp8_rate_scale(const Accelerator& a, Precision p, Fp8Recipe recipe,
                                const EngineProfile& eng);
// The device's ceilings as one serving engine (profile name, version, platform) reaches them.
// FP8 GEMMs use `fp8_recipe`'s kernels (block-scaled ones run at the engine's
// blockwise_fp8_gemm_rate_scale on its listed architectures).
Ceilings resolve_ceilings(const Accelerator& a, Precision matmul_precision, const Efficiency& e,
                          std::string_view engine = "default",
                          Fp8Recipe fp8_recipe = Fp8Recipe::tensorwise);

// Shape-only factor in (0, 1]: tile quantisation x wave quantisation (with split-K for small
// grids) x mainloop fill, for `compute_units` SMs/CUs (0: unknown, no wave quantisation).
double gemm_shape_efficiency(int64_t m, int64_t n, int64_t k, int64_t batch, int compute_units,
                             const Efficiency& e);

// Achievable fraction of the dense peak for an m x n x k GEMM: MAMF best-shape fraction x shape.
double gemm_efficiency(int64_t m, int64_t n, int64_t k, const Accelerator& a,
                       Precision matmul_precision, const Efficiency& e);

OpTime time_op(const OpCost& op, const Ceilings& c);
OpTime time_op(const OpCost& op, const Accelerator& a, Precision matmul_precision,
               const Efficiency& e);

}  // namespace memwall::perf
