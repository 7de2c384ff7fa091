#include "memwall/quality/verdict.h"

#include <fmt/format.h>

#include <algorithm>

namespace memwall::quality {
namespace {

bool is_baseline(Precision p) {
  return p == Precision::fp32 || p == Precision::tf32 || p == Precision::bf16 ||
         p == Precision::fp16;
}

const char* recipe_method(Fp8Recipe r) {
  switch (r) {
    case Fp8Recipe::tensorwise:
      return "per-tensor";
    case Fp8Recipe::blockwise:
      return "blockwise";
    case Fp8Recipe::mxfp8:
      return "mxfp8";
  }
  return "per-tensor";
}

QualityVerdict baseline(Precision p) {
  QualityVerdict v;
  v.format = std::string(to_string(p));
  v.baseline = true;
  v.recovery_pct = 100.0;
  v.tag = v.format;
  return v;
}

// Worst benchmark over the results of `format` for `model_id` (and `method` when given).
QualityVerdict look_up(const QualityTable& table, const std::string& model_id,
                       const std::string& format, const std::string& use,
                       const std::string& method) {
  QualityVerdict v;
  v.format = format;
  v.method = method;
  for (const auto& r : table.results()) {
    if (r.format != format || r.use != use) continue;
    if (!method.empty() && r.method != method) continue;
    if (std::find(r.models.begin(), r.models.end(), model_id) == r.models.end()) continue;
    for (const auto& b : r.benchmarks) {
      if (v.recovery_pct && *v.recovery_pct <= b.recovery_pct) continue;
      v.recovery_pct = b.recovery_pct;
      v.benchmark = b.name;
      v.source = r.source;
      v.tag = r.tag;
      v.method = r.method;
    }
  }
  return v;
}

}  // namespace

std::string QualityVerdict::cell() const {
  if (baseline) return fmt::format("100 ({})", format);
  if (!recovery_pct) return "unknown!";
  return fmt::format("{:.1f} {}", *recovery_pct, tag);
}

QualityVerdict weights_quality(const QualityTable& table, const std::string& model_id,
                               Precision weights, Precision activations, Fp8Recipe fp8_recipe) {
  if (is_baseline(weights)) return baseline(weights);
  switch (weights) {
    case Precision::fp8_e4m3:
    case Precision::fp8_e5m2:
      return look_up(table, model_id, "w8a8-fp8", "inference", recipe_method(fp8_recipe));
    case Precision::int8:
      return look_up(table, model_id, activations == Precision::int8 ? "w8a8-int8" : "w8a16-int8",
                     "inference", "");
    case Precision::int4:
      return look_up(table, model_id, "w4a16-int4", "inference", "");
    case Precision::fp4:
      return look_up(table, model_id, activations == Precision::fp4 ? "w4a4-fp4" : "w4a16-fp4",
                     "inference", "");
    default:
      break;
  }
  return look_up(table, model_id, "w-" + std::string(to_string(weights)), "inference", "");
}

QualityVerdict kv_quality(const QualityTable& table, const std::string& model_id, Precision kv) {
  if (is_baseline(kv)) return baseline(kv);
  const bool fp8 = kv == Precision::fp8_e4m3 || kv == Precision::fp8_e5m2;
  return look_up(table, model_id, "kv-" + (fp8 ? std::string("fp8") : std::string(to_string(kv))),
                 "inference", "");
}

QualityVerdict training_quality(const QualityTable& table, const std::string& model_id,
                                Precision matmul, Fp8Recipe fp8_recipe) {
  if (is_baseline(matmul)) return baseline(matmul);
  return look_up(table, model_id, "train-fp8", "training", recipe_method(fp8_recipe));
}

QualityVerdict combine(const QualityVerdict& a, const QualityVerdict& b) {
  if (a.baseline) return b;
  if (b.baseline) return a;
  if (a.unknown()) return a;
  if (b.unknown()) return b;
  return *a.recovery_pct <= *b.recovery_pct ? a : b;
}

}  // namespace memwall::quality
