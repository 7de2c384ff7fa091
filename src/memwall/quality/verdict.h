// What the published results say about one model in one format: the recovery (worst over the
// benchmarks recorded, with its source) or unknown. bf16/fp16 (and wider) are the baseline, 100 %.
// docs/plan.md "Model quality".
#pragma once

#include <optional>
#include <string>

#include "memwall/core/precision.h"
#include "memwall/quality/table.h"

namespace memwall::quality {

struct QualityVerdict {
  std::string
      format;  // "bf16" for the baseline, else the table's format name (w4a16-int4, kv-fp8, ...)
  std::string method;  // the method matched, or the one the plan runs ("per-tensor" fp8)
  bool baseline = false;
  std::optional<double>
      recovery_pct;       // worst benchmark over every matching result; nullopt: unknown
  std::string benchmark;  // the worst benchmark
  std::string source;     // of the worst benchmark
  std::string tag;
  bool unknown() const { return !baseline && !recovery_pct; }
  // "100 (bf16)", "97.4 RH card 3.1-70B-w4a16", "unknown!"
  std::string cell() const;
};

// Weights (with the activations a plan pairs them with: fp8 weights compute in fp8, int8/int4
// weight-only in bf16, fp4 in fp4 where the device has it) under `fp8_recipe` scaling.
QualityVerdict weights_quality(const QualityTable& table, const std::string& model_id,
                               Precision weights, Precision activations, Fp8Recipe fp8_recipe);
QualityVerdict kv_quality(const QualityTable& table, const std::string& model_id, Precision kv);
// A training run's matmul precision (fp8 under `fp8_recipe`).
QualityVerdict training_quality(const QualityTable& table, const std::string& model_id,
                                Precision matmul, Fp8Recipe fp8_recipe);
// Two quantized parts of one plan (weights and KV): the lower recovery, unknown if either is.
// Published evaluations measured each part alone, so the lower of the two is a bound from above.
QualityVerdict combine(const QualityVerdict& a, const QualityVerdict& b);

}  // namespace memwall::quality
