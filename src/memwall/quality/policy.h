// The quality a plan must keep: `lossless`, `near-lossless` (the default) or `any`, or an explicit
// floor on the published recovery. docs/plan.md "Model quality" gives the thresholds and reasons.
#pragma once

#include <optional>
#include <string>

#include "memwall/core/document.h"
#include "memwall/quality/verdict.h"

namespace memwall::quality {

enum class QualityLevel { lossless, near_lossless, any };

// Near-lossless: at least 99 % of the bf16 score on every benchmark recorded; 1 % is the loss
// Kurtic et al. (arXiv 2411.02355) treat as the bound of an acceptable 8-bit format, and the
// spread they report between repeated evaluations of the same bf16 model is of that order.
inline constexpr double kNearLosslessPct = 99.0;
// Lossless: bf16/fp16 themselves, or at least 99.9 % on every benchmark recorded (a loss below
// the third significant figure the sources print).
inline constexpr double kLosslessPct = 99.9;

struct QualityPolicy {
  QualityLevel level = QualityLevel::near_lossless;
  std::optional<double> min_recovery_pct;  // replaces the level's floor when set
  // The floor on the recovery; nullopt: `any` (every format kept, unknown ones flagged).
  std::optional<double> floor_pct() const;
  bool admits(const QualityVerdict& v) const;  // unknown formats only under `any`
  std::string describe() const;                // "near-lossless (recovery >= 99 %)"
};

// InputError naming `quality` (lossless, near-lossless, any) or `min_recovery` (0-100 %).
QualityPolicy parse_quality_policy(const std::string& level,
                                   std::optional<double> min_recovery_pct);

Json to_json(const QualityVerdict& v);
Json to_json(const QualityPolicy& p);

}  // namespace memwall::quality
