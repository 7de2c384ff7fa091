#include "memwall/quality/policy.h"

#include <fmt/format.h>

#include <cmath>

#include "memwall/core/error.h"

namespace memwall::quality {

std::optional<double> QualityPolicy::floor_pct() const {
  if (min_recovery_pct) return min_recovery_pct;
  switch (level) {
    case QualityLevel::lossless:
      return kLosslessPct;
    case QualityLevel::near_lossless:
      return kNearLosslessPct;
    case QualityLevel::any:
      return std::nullopt;
  }
  return std::nullopt;
}

bool QualityPolicy::admits(const QualityVerdict& v) const {
  const auto floor = floor_pct();
  if (!floor) return true;
  if (v.baseline) return true;
  return v.recovery_pct && *v.recovery_pct >= *floor;
}

std::string QualityPolicy::describe() const {
  if (min_recovery_pct)
    return fmt::format("recovery >= {:g} % (--min-recovery)", *min_recovery_pct);
  switch (level) {
    case QualityLevel::lossless:
      return fmt::format("lossless (bf16/fp16, or recovery >= {:g} %)", kLosslessPct);
    case QualityLevel::near_lossless:
      return fmt::format("near-lossless (recovery >= {:g} %)", kNearLosslessPct);
    case QualityLevel::any:
      return "any (every format, unknown ones flagged)";
  }
  return "";
}

QualityPolicy parse_quality_policy(const std::string& level,
                                   std::optional<double> min_recovery_pct) {
  QualityPolicy p;
  if (level == "lossless") {
    p.level = QualityLevel::lossless;
  } else if (level == "near-lossless" || level.empty()) {
    p.level = QualityLevel::near_lossless;
  } else if (level == "any") {
    p.level = QualityLevel::any;
  } else {
    throw InputError("quality", level, "lossless, near-lossless, any");
  }
  if (min_recovery_pct) {
    if (!(*min_recovery_pct > 0 && *min_recovery_pct <= 100) || !std::isfinite(*min_recovery_pct))
      throw InputError("min_recovery", fmt::format("{:g}", *min_recovery_pct),
                       "a recovery in % above 0, at most 100");
    p.min_recovery_pct = min_recovery_pct;
  }
  return p;
}

Json to_json(const QualityVerdict& v) {
  return Json{{"format", v.format},
              {"method", v.method.empty() ? Json(nullptr) : Json(v.method)},
              {"baseline", v.baseline},
              {"recovery_pct", v.recovery_pct ? Json(*v.recovery_pct) : Json(nullptr)},
              {"unknown", v.unknown()},
              {"worst_benchmark", v.benchmark.empty() ? Json(nullptr) : Json(v.benchmark)},
              {"source", v.source.empty() ? Json(nullptr) : Json(v.source)},
              {"tag", v.tag}};
}

Json to_json(const QualityPolicy& p) {
  const auto floor = p.floor_pct();
  return Json{{"policy", p.min_recovery_pct                  ? "min-recovery"
                         : p.level == QualityLevel::lossless ? "lossless"
                         : p.level == QualityLevel::any      ? "any"
                                                             : "near-lossless"},
              {"min_recovery_pct", floor ? Json(*floor) : Json(nullptr)},
              {"rule", p.describe()}};
}

}  // namespace memwall::quality
