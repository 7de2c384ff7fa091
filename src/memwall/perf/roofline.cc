#include "memwall/perf/roofline.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "memwall/core/error.h"
#include "memwall/core/text.h"

namespace memwall::perf {

std::string_view to_string(OpKind k) {
  switch (k) {
    case OpKind::gemm: return "gemm";
    case OpKind::attention_prefill: return "attention-prefill";
    case OpKind::attention_decode: return "attention-decode";
    case OpKind::elementwise: return "elementwise";
    case OpKind::communication: return "communication";
  }
  return "?";
}

Ceilings resolve_device_ceilings(const Accelerator& a, Precision p, const Efficiency& e) {
  if (!a.supports(p))
    throw InfeasibleError(a.id + " has no " + std::string(to_string(p)) +
                          " matmul path (unsupported precisions: " +
                          [&] {
                            std::string s;
                            for (const auto& u : a.unsupported_precisions) s += (s.empty() ? "" : ", ") + u;
                            return s;
                          }() +
                          ")");
  const auto peak = a.peak(p);
  if (!peak || peak->value() <= 0)
    throw InputError("accelerator " + a.id + ": the dense " + std::string(to_string(p)) +
                     " peak is unknown in the catalog; add it with --catalog FILE");
  if (!a.memory_bandwidth || a.memory_bandwidth->value() <= 0)
    throw InputError("accelerator " + a.id +
                     ": the memory bandwidth is unknown in the catalog; add it with --catalog FILE");
  Ceilings c;
  c.matmul_peak = *peak;
  const EfficiencyPrior prior = efficiency_for(e, a, p);
  // Sustained load, not a burst: the power-limited clock scales every compute-bound kernel.
  c.sustained_compute_fraction = e.sustained_compute_fraction.lookup(a, p);
  c.gemm_peak_fraction = prior.gemm_peak_fraction * c.sustained_compute_fraction;
  c.attention_compute_fraction = prior.attention_compute_fraction * c.sustained_compute_fraction;
  c.memory_peak = *a.memory_bandwidth;
  c.memory_sustained = c.memory_peak * prior.memory_bandwidth_fraction;
  c.calibrated = prior.calibrated;
  c.efficiency_source = prior.source;
  c.attention_bandwidth_fraction = e.attention_bandwidth_fraction;
  c.compute_units = a.compute_units.value_or(0);
  c.efficiency = &e;
  return c;
}

namespace {
// True when the device's architecture starts with one of `archs` (case-insensitive).
bool arch_listed(const Accelerator& a, const std::vector<std::string>& archs) {
  const std::string arch = to_lower(a.arch);
  return std::any_of(archs.begin(), archs.end(),
                     [&arch](const std::string& x) { return arch.rfind(to_lower(x), 0) == 0; });
}
}  // namespace

double compute_in_situ_fraction(const Accelerator& a, const EngineProfile& eng) {
  const std::string arch = to_lower(a.arch);
  for (const auto& [prefix, f] : eng.compute_in_situ_fraction_by_arch)
    if (arch.rfind(to_lower(prefix), 0) == 0) return f;
  return eng.compute_in_situ_fraction;
}

double blockwise_fp8_rate_scale(const Accelerator& a, Precision p, Fp8Recipe recipe,
                                const EngineProfile& eng) {
  if (!is_fp8(p) || recipe != Fp8Recipe::blockwise ||
      !arch_listed(a, eng.blockwise_fp8_gemm_rate_scale_archs))
    return 1.0;
  const double s = eng.blockwise_fp8_gemm_rate_scale;
  const auto fp8 = a.peak(p);
  const auto fp32 = a.peak(Precision::fp32);
  if (eng.blockwise_fp8_reference_ratio <= 0 || !fp8 || !fp32 || fp32->value() <= 0) return s;
  // Block-scaled FP8 on Hopper (DeepSeek-V3 report §3.3.2): every 128-deep K interval the
  // tensor-core partial sums are promoted to FP32 registers and scaled and accumulated on the CUDA
  // cores, a fixed share of the MMA work; its time relative to the MMA time grows with the
  // device's FP8-tensor / FP32-CUDA-core peak ratio (H100 SXM 1979 / 67 = 29.5; H20 296 / 44).
  const double added = (1.0 / s - 1.0) * (fp8->value() / fp32->value()) /
                       eng.blockwise_fp8_reference_ratio;
  return 1.0 / (1.0 + added);
}

Ceilings resolve_ceilings(const Accelerator& a, Precision p, const Efficiency& e,
                          std::string_view engine, Fp8Recipe fp8_recipe) {
  Ceilings c = resolve_device_ceilings(a, p, e);
  const EngineProfile& eng = e.engine(engine, engine_platform(a));
  const bool scale_applies =
      eng.fp8_gemm_rate_scale_archs.empty() || arch_listed(a, eng.fp8_gemm_rate_scale_archs);
  if (is_fp8(p) && scale_applies) {
    c.gemm_peak_fraction *= eng.fp8_gemm_rate_scale;
    c.skinny_gemm_max_m = eng.fp8_skinny_gemm_max_tokens;
    c.library_gemm_stream_fraction = eng.fp8_library_gemm_stream_fraction;
  }
  c.gemm_peak_fraction *= blockwise_fp8_rate_scale(a, p, fp8_recipe, eng);
  // The engine's own kernels stream at a share of what STREAM reaches on the device.
  c.memory_sustained = c.memory_sustained * eng.memory_stream_fraction;
  // ... and its compute-bound kernels at a share of the sustained GEMM / attention rate.
  const double in_situ = compute_in_situ_fraction(a, eng);
  c.gemm_peak_fraction *= in_situ;
  c.attention_compute_fraction *= in_situ;
  c.kernel_overhead = eng.kernel_overhead;
  c.step_overhead = eng.step_overhead;
  c.step_overhead_per_sequence = eng.step_overhead_per_sequence;
  c.fused_elementwise = eng.fused_elementwise;
  c.gqa_shared_kv_loads = eng.gqa_shared_kv_loads;
  c.gqa_shared_kv_loads_mixed = eng.gqa_shared_kv_loads && !arch_listed(a, eng.mixed_step_gqa_unshared_archs);
  c.efficiency = &e;
  return c;
}

double gemm_shape_efficiency(int64_t m, int64_t n, int64_t k, int64_t batch, int compute_units,
                             const Efficiency& e) {
  if (m <= 0 || n <= 0 || k <= 0 || batch <= 0) return 1.0;
  // One CTA tiling: tile quantisation (NVIDIA "Matrix Multiplication Background" user guide: a
  // partial tile does full work), wave quantisation over the SMs (a partial last wave idles SMs;
  // a grid smaller than the SM count is split along K), and the mainloop fill per tile.
  auto tiling = [&](int64_t tile_m, int64_t tile_n, double rate) {
    const int64_t tiles_m = (m + tile_m - 1) / tile_m, tiles_n = (n + tile_n - 1) / tile_n;
    const double tile_util =
        double(m) * double(n) / (double(tiles_m * tile_m) * double(tiles_n * tile_n));
    double wave_eff = 1.0;
    double k_per_tile = double(k);
    if (compute_units > 0) {
      const int64_t tiles = tiles_m * tiles_n * batch;
      int64_t splits = 1;
      if (tiles < compute_units)
        splits = std::max<int64_t>(
            1, std::min<int64_t>(compute_units / tiles, k / std::max(1, e.gemm_min_k_per_split)));
      const int64_t units = tiles * splits;
      const int64_t waves = (units + compute_units - 1) / compute_units;
      wave_eff = (e.gemm_stream_k && tiles >= compute_units)
                     ? 1.0
                     : double(units) / double(waves * compute_units);
      k_per_tile = double(k) / double(splits);
    }
    return rate * tile_util * wave_eff * k_per_tile / (k_per_tile + e.gemm_k_overhead);
  };
  // The library picks the best of its tilings (cuBLAS heuristics); small-M kernels shrink the M
  // tile to the next power of two >= m (GEMV-like decode kernels).
  double best = 0;
  for (const auto& t : e.gemm_tiles) best = std::max(best, tiling(t.m, t.n, t.relative_rate));
  if (!e.gemm_tiles.empty() && m < e.gemm_tiles.back().m) {
    int64_t tile_m = std::max(1, e.gemm_min_tile_m);
    while (tile_m < m) tile_m *= 2;
    best = std::max(best, tiling(tile_m, e.gemm_tiles.front().m, 1.0));
  }
  return best;
}

double gemm_efficiency(int64_t m, int64_t n, int64_t k, const Accelerator& a, Precision p,
                       const Efficiency& e) {
  return efficiency_for(e, a, p).gemm_peak_fraction *
         gemm_shape_efficiency(m, n, k, 1, a.compute_units.value_or(0), e);
}

OpTime time_op(const OpCost& op, const Ceilings& c) {
  OpTime t;
  t.overhead = c.kernel_overhead * double(op.kernels) + op.fixed_time;
  if (op.kind == OpKind::communication) {
    t.time = op.communication_time + t.overhead;
    return t;
  }
  double frac = 0;
  BytesPerSecond bw = c.memory_sustained;
  switch (op.kind) {
    case OpKind::gemm:
      frac = c.gemm_peak_fraction * gemm_shape_efficiency(op.gemm.m, op.gemm.n, op.gemm.k,
                                                          op.gemm.batch, c.compute_units,
                                                          *c.efficiency);
      if (c.skinny_gemm_max_m >= 0 && op.gemm.m > c.skinny_gemm_max_m)
        bw = bw * c.library_gemm_stream_fraction;
      break;
    case OpKind::attention_prefill: frac = c.attention_compute_fraction; break;
    case OpKind::attention_decode:
      frac = c.attention_compute_fraction;
      bw = bw * c.attention_bandwidth_fraction;
      break;
    default: frac = c.gemm_peak_fraction; break;  // vector work: negligible FLOPs
  }
  t.compute_efficiency = frac;
  t.compute_time = op.flops.value() > 0 ? op.flops / (c.matmul_peak * frac) : Seconds(0);
  t.memory_time = op.bytes_moved() / bw;
  t.compute_bound = t.compute_time > t.memory_time;
  // Imperfect overlap near the ridge: an L^p blend of the two times (p -> inf: ideal max).
  const double p = c.efficiency ? c.efficiency->overlap_exponent : 1e9;
  const double hi = std::max(t.compute_time.value(), t.memory_time.value());
  const double lo = std::min(t.compute_time.value(), t.memory_time.value());
  // p = 3 (the default) takes cbrt and a cube: the same value, without two pow() calls on the
  // planner's hot path.
  const double r = hi > 0 ? lo / hi : 0.0;
  const double blended = !(hi > 0) ? 0.0
                         : p == 3.0 ? hi * std::cbrt(1.0 + r * r * r)
                                    : hi * std::pow(1.0 + std::pow(r, p), 1.0 / p);
  t.time = Seconds(blended) + t.overhead;
  return t;
}

OpTime time_op(const OpCost& op, const Accelerator& a, Precision p, const Efficiency& e) {
  return time_op(op, resolve_ceilings(a, p, e));
}

}  // namespace memwall::perf
