#include "memwall/serve/rate_search.h"

#include <cmath>

namespace memwall::serve {

double max_sustainable_rate(const SimulationConfig& config, const StepCost& cost,
                            const std::function<bool(const SimulationResult&)>& ok,
                            const RateSearch& search) {
  auto holds = [&](double rate) {
    SimulationConfig c = config;
    c.workload.arrival.kind = ArrivalKind::poisson;
    c.workload.arrival.rate_per_s = rate;
    return ok(simulate(c, cost));
  };
  double lo = search.low_per_s, hi = search.high_per_s;
  if (!holds(lo)) return 0;
  if (holds(hi)) return hi;
  for (int i = 0; i < search.probes; ++i) {
    const double mid = std::sqrt(lo * hi);
    (holds(mid) ? lo : hi) = mid;
  }
  return lo;
}

}  // namespace memwall::serve
