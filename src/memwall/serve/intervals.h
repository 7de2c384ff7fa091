// The 80 % intervals of a serving simulation (uncertainty/model.h). The simulator times every
// iteration with the inference step cost, so its figures carry the inference regime's interval:
// the prefill regime for TTFT, decode for TPOT, the longer phase for end-to-end and throughput,
// each taken at the simulation's mean batch and lengths. Queueing adds no width of its own: the
// event loop is exact for the step times it is given.
#pragma once

#include "memwall/core/document.h"
#include "memwall/infer/deployment.h"
#include "memwall/serve/metrics.h"

namespace memwall::serve {

// {"ttft_s": {"mean": [low, high], "p50": ..., "p90", "p99"}, "tpot_s": {...}, "e2e_s": {...},
//  "throughput_tokens_per_s": [low, high], "requests_per_s", "goodput_requests_per_s"}.
Json intervals_json(const infer::Deployment& d, const SimulationResult& r);

}  // namespace memwall::serve
