// The highest request rate a serving configuration sustains while a latency condition holds
// (e.g. p99 end-to-end latency under a limit): the yardstick for comparing schedulers and KV
// allocators "at the same latency". Bisection on the Poisson arrival rate, seeded identically at
// every probe so only the rate changes.
#pragma once

#include <functional>

#include "memwall/serve/simulator.h"

namespace memwall::serve {

struct RateSearch {
  double low_per_s = 0.01, high_per_s = 1000;  // bracket searched (geometric bisection)
  int probes = 14;
};

// The largest rate in the bracket at which `ok(result)` holds (0 when even the lowest fails).
// The workload's arrival kind is replaced by Poisson at the probed rate.
double max_sustainable_rate(const SimulationConfig& config, const StepCost& cost,
                            const std::function<bool(const SimulationResult&)>& ok,
                            const RateSearch& search = {});

}  // namespace memwall::serve
