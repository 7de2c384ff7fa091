// The 80 % intervals of an inference estimate (uncertainty/model.h): the regime of each phase
// (prefill for TTFT, decode for TPOT, the longer one for whole-request figures) and the JSON
// object `intervals: {"ttft_s": [low, high], ...}` that infer's --json carries.
#pragma once

#include "memwall/core/document.h"
#include "memwall/infer/deployment.h"
#include "memwall/infer/estimate.h"
#include "memwall/uncertainty/model.h"
#include "memwall/uncertainty/regime.h"

namespace memwall::infer {

enum class Phase { whole, prefill, decode };

// The regime of `phase` of the estimate on the deployment.
uncertainty::Regime regime(const Deployment& d, const Estimate& e, Phase phase = Phase::whole);

// The 80 % interval of `phase`: the built-in uncertainty model's, or, on a stack a calibration
// profile fitted (--calibration), the one its records' scatter gives
// (uncertainty::calibrated_interval).
uncertainty::Interval interval(const Deployment& d, const Estimate& e, Phase phase = Phase::whole);

// {"ttft_s", "tpot_s", "e2e_s", "throughput_tokens_per_s", "throughput_tokens_per_s_per_device",
//  "requests_per_s", "mfu", "mbu"} -> [low, high] from interval().
Json intervals_json(const Deployment& d, const Estimate& e);

}  // namespace memwall::infer
