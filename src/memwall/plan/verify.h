// --verify: re-checks a plan in the discrete-event serving simulator (serve/) with the same
// estimator step times, arrival process and length distributions, and reports the simulated
// percentiles next to the analytic steady state.
#pragma once

#include <cstdint>

#include "memwall/model/transformer.h"
#include "memwall/plan/inference_search.h"
#include "memwall/serve/simulator.h"

namespace memwall::plan {

struct Verification {
  serve::SimulationResult simulated;
  bool meets_sla = false;  // every SLA term of the workload holds in the simulation
};

// Simulates the plan's replicas: continuous batching with at most `batch_cap` sequences each,
// paged KV of the replica's capacity (from the estimator's memory plan), closed-loop users or
// Poisson arrivals as in the workload, `requests` requests (seeded, reproducible).
Verification verify_plan(const ModelSpec& model, const Plan& plan, const InferenceWorkload& w,
                         const serve::Dataset& lengths, const ReplicaModelFactory& factory,
                         int64_t requests, const CancelFlag* cancel = nullptr);

}  // namespace memwall::plan
