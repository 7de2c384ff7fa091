// The 80 % intervals of a plan's figures (uncertainty/model.h) and the planner's confidence rule:
// with `confidence` c, a plan stays only when its SLA holds at the pessimistic end of the c
// interval of its latencies (TTFT, TPOT and e2e times exp(+h)).
#pragma once

#include "memwall/core/document.h"
#include "memwall/plan/inference_search.h"
#include "memwall/plan/train_search.h"
#include "memwall/plan/workload.h"
#include "memwall/uncertainty/model.h"

namespace memwall::plan {

// The inference regime of the plan's (decode pool's) replica shape: hardware, weight precision,
// engine "default", scale. The planner does not keep the per-operator bound, so no bound
// dimension: the interval uses the other dimensions' factors.
uncertainty::Regime regime(const Plan& p);

// The plan's interval at `level` (the model's own level when equal; otherwise its half-width
// scaled by the ratio of normal quantiles, uncertainty::scale_to_level). With `calibration` (the
// profile the plans were timed with) and a plan on an engine and accelerator it fitted, the
// calibrated interval of that stack (uncertainty::calibrated_interval), as infer prints.
uncertainty::Interval interval(const Plan& p, double level = uncertainty::kDefaultLevel,
                               const perf::Efficiency* calibration = nullptr);

// {"ttft_p99_s", "ttft_mean_s", "tpot_s", "e2e_mean_s", "e2e_p99_s", "throughput_tokens_per_s",
//  "tokens_per_s_per_device", "tokens_per_s_per_user"} -> [low, high].
Json intervals_json(const Plan& p, const perf::Efficiency* calibration = nullptr);

// A training plan's regime (training kind: hardware, precision width, parallelism, scale; the
// search keeps no step breakdown, so no bound) and its intervals: {"tokens_per_s", "mfu", "days",
// "gpu_hours", "energy_kwh" (when known), "cost_usd" (when known)} -> [low, high].
uncertainty::Regime regime(const TrainPlan& p);
Json intervals_json(const TrainPlan& p);

// Removes the plans whose SLA fails at the pessimistic end of their `confidence` interval (and
// their Pareto indices); returns how many it removed. InputError for c outside (0, 1).
int require_confidence(InferenceSearchResult& r, const Sla& sla, double confidence,
                       const perf::Efficiency* calibration = nullptr);

}  // namespace memwall::plan
