#include "memwall/plan/compare.h"

#include <fmt/format.h>

#include "memwall/plan/rejections.h"

namespace memwall::plan {

Comparison compare_accelerators(const ModelSpec& model, const InferenceWorkload& w,
                                const SearchSpace& space, const Constraints& constraints,
                                const SearchOptions& options, const ReplicaModelFactory& factory,
                                const cost::PriceBook& prices, const score::EcosystemBook& ecosystem) {
  Comparison out;
  out.requirements = derive_requirements(model, w, Precision::bf16, Precision::bf16);
  std::vector<score::Evidence> evidence;
  for (const Accelerator* a : space.accelerators) {
    SearchSpace one = space;
    one.accelerators = {a};
    const InferenceSearchResult r = search_inference(model, w, one, constraints, options, factory, prices);
    score::Evidence e;
    e.accelerator = a;
    Plan best;
    if (!r.plans.empty()) {
      best = r.plans.front();
      const Requirements req = derive_requirements(model, w, best.shape.weights, best.shape.kv);
      e.required_capacity = req.capacity;
      e.required_bandwidth = req.bandwidth;
      e.feasible = true;
      e.devices = best.devices;
      e.devices_per_replica = best.shape.devices();
      e.scaling_efficiency = best.scaling_efficiency;
      e.tokens_per_joule = best.cost.tokens_per_joule;
      e.usd_per_million_tokens = best.cost.usd_per_million_tokens;
      e.billed_devices = best.cost.billed_devices;
      e.node = best.shape.node ? best.shape.node->id : "";
      e.plan_summary = best.prefill ? fmt::format("{}, decode batch {}", best.describe(), best.point.batch)
                                    : fmt::format("{} x {} replicas, batch {}", best.shape.describe(),
                                                  best.replicas, best.point.batch);
    } else {
      e.required_capacity = out.requirements.capacity;
      e.required_bandwidth = out.requirements.bandwidth;
      // The same binding reason `plan` prints for this accelerator.
      const auto reasons = binding_rejections(r.rejected);
      e.infeasible_reason = reasons.count(a->id) ? reasons.at(a->id) : "not searched (vendor filter)";
    }
    evidence.push_back(e);
    out.best_plans.push_back(best);
  }
  out.rows = score::build_scorecard(evidence, ecosystem);
  return out;
}

}  // namespace memwall::plan
