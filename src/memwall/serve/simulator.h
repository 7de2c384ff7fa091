// The discrete-event loop of a serving run: requests arrive (open loop, closed loop or a trace),
// the router places them on replicas, each replica runs iterations whose times come from the
// step-cost function, and, with disaggregation, prefilled requests move their KV over the link to
// a decode replica. Returns the run's metrics.
#pragma once

#include <vector>

#include "memwall/core/cancel.h"
#include "memwall/core/units.h"
#include "memwall/serve/metrics.h"
#include "memwall/serve/replica.h"
#include "memwall/serve/router.h"
#include "memwall/serve/workload.h"

namespace memwall::serve {

struct Disaggregation {
  bool enabled = false;
  int prefill_replicas = 1, decode_replicas = 1;
  BytesPerSecond link_bandwidth{50e9};  // KV transfer link between the pools
  Seconds link_latency{10e-6};
  // Prompt tokens a prefill replica batches into one iteration (whole prompts; the first prompt
  // of an iteration always runs); 0: the replicas' token budget. 1 runs prompts one at a time, FCFS.
  int64_t prefill_token_budget = 0;
};

struct SimulationConfig {
  WorkloadSpec workload;
  ReplicaConfig replica;  // with disaggregation: the decode replicas (policy overridden)
  int replicas = 1;       // aggregated serving
  RouterPolicy router = RouterPolicy::round_robin;
  Disaggregation disaggregation;
  std::vector<SlaTerm> sla;
  const CancelFlag* cancel = nullptr;  // set: the run throws Cancelled (core/cancel.h)
};

// Runs the simulation. `cost` times one iteration of one replica. With disaggregation,
// `prefill_cost` times the prefill pool's iterations (empty: `cost`).
SimulationResult simulate(const SimulationConfig& config, const StepCost& cost,
                          const StepCost& prefill_cost = {});

}  // namespace memwall::serve
