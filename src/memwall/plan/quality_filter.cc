#include "memwall/plan/quality_filter.h"

#include <fmt/format.h>

#include <algorithm>

#include "memwall/core/error.h"

namespace memwall::plan {
namespace {

// The plan's fp8 scaling: the model's FP8 checkpoint (block-scaled DeepSeek-V3/R1), else
// per-tensor, as infer::make_deployment chooses it.
Fp8Recipe plan_fp8_recipe(const ModelSpec& m) {
  return m.fp8_checkpoint.value_or(Fp8Recipe::tensorwise);
}

std::string reason(const quality::QualityVerdict& v, const std::string& model_id) {
  if (v.unknown()) return fmt::format("no published evaluation of {} for {}", v.format, model_id);
  return fmt::format("{:.1f} % on {} ({})", *v.recovery_pct, v.benchmark, v.source);
}

}  // namespace

std::vector<std::string> apply_quality_policy(const ModelSpec& model,
                                              const quality::QualityPolicy& policy,
                                              const quality::QualityTable& table,
                                              std::vector<Precision>& weights,
                                              std::vector<Precision>& kv) {
  std::vector<std::string> removed;
  const Fp8Recipe recipe = plan_fp8_recipe(model);
  // Activations as the planner pairs them (infer::make_deployment): fp8 weights compute in fp8,
  // int8/int4 weight-only in bf16; fp4 in fp4 where the device has it, so both fp4 pairings must
  // pass.
  auto weights_pass = [&](Precision w) {
    std::vector<Precision> activations{is_fp8(w) ? w : Precision::bf16};
    if (w == Precision::fp4) activations.push_back(Precision::fp4);
    for (Precision a : activations) {
      const auto v = quality::weights_quality(table, model.id, w, a, recipe);
      if (!policy.admits(v)) {
        removed.push_back(fmt::format("{} weights: {}", to_string(w), reason(v, model.id)));
        return false;
      }
    }
    return true;
  };
  auto kv_pass = [&](Precision k) {
    const auto v = quality::kv_quality(table, model.id, k);
    if (policy.admits(v)) return true;
    removed.push_back(fmt::format("{} KV cache: {}", to_string(k), reason(v, model.id)));
    return false;
  };
  weights.erase(
      std::remove_if(weights.begin(), weights.end(), [&](Precision w) { return !weights_pass(w); }),
      weights.end());
  kv.erase(std::remove_if(kv.begin(), kv.end(), [&](Precision k) { return !kv_pass(k); }),
           kv.end());
  if (weights.empty() || kv.empty())
    throw InfeasibleError(fmt::format(
        "quality {}: no {} precision asked for is admitted for {}: {}. Add bf16, "
        "or use --quality any / a lower --min-recovery",
        policy.describe(), weights.empty() ? "weight" : "KV", model.id, fmt::join(removed, "; ")));
  return removed;
}

std::vector<std::string> apply_training_quality(const ModelSpec& model,
                                                const quality::QualityPolicy& policy,
                                                const quality::QualityTable& table,
                                                std::vector<Precision>& precisions,
                                                std::vector<Fp8Recipe>& fp8_recipes) {
  std::vector<std::string> removed;
  fp8_recipes.erase(
      std::remove_if(fp8_recipes.begin(), fp8_recipes.end(),
                     [&](Fp8Recipe r) {
                       const auto v =
                           quality::training_quality(table, model.id, Precision::fp8_e4m3, r);
                       if (policy.admits(v)) return false;
                       removed.push_back(
                           fmt::format("fp8 training ({}): {}", to_string(r), reason(v, model.id)));
                       return true;
                     }),
      fp8_recipes.end());
  if (fp8_recipes.empty())
    precisions.erase(
        std::remove_if(precisions.begin(), precisions.end(), [](Precision p) { return is_fp8(p); }),
        precisions.end());
  if (precisions.empty())
    throw InfeasibleError(
        fmt::format("quality {}: no training precision asked for is admitted for {}: {}. "
                    "Use --precision bf16, or --quality any / a lower --min-recovery",
                    policy.describe(), model.id, fmt::join(removed, "; ")));
  return removed;
}

quality::QualityVerdict plan_quality(const ModelSpec& model, const ReplicaShape& shape,
                                     const quality::QualityTable& table) {
  const Accelerator& a = *shape.accelerator;
  const Precision w = shape.weights;
  const Precision act =
      is_fp8(w) ? w
      : w == Precision::fp4 && a.supports(Precision::fp4) && a.peak(Precision::fp4)
          ? Precision::fp4
          : Precision::bf16;
  return quality::combine(quality::weights_quality(table, model.id, w, act, plan_fp8_recipe(model)),
                          quality::kv_quality(table, model.id, shape.kv));
}

}  // namespace memwall::plan
