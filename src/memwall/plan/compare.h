// The scorecard for a workload: the planner run once per candidate accelerator, its best plan
// turned into score::Evidence, then the four-dimension scorecard (memory, interconnect,
// ecosystem, energy) plus cost, side by side.
#pragma once

#include <optional>
#include <vector>

#include "memwall/plan/inference_search.h"
#include "memwall/score/scorecard.h"

namespace memwall::plan {

struct Comparison {
  Requirements requirements;                 // at bf16 weights and KV
  std::vector<score::ScorecardRow> rows;     // in the order of space.accelerators
  std::vector<Plan> best_plans;              // the plan behind each feasible row (same order; empty
                                             // shape accelerator when infeasible)
  // Per row, the binding rejection of an infeasible one (its stage and reason; plan/rejections.h).
  std::vector<std::optional<ShapeVerdict>> rejections;
};

Comparison compare_accelerators(const ModelSpec& model, const InferenceWorkload& w,
                                const SearchSpace& space, const Constraints& constraints,
                                const SearchOptions& options, const ReplicaModelFactory& factory,
                                const cost::PriceBook& prices, const score::EcosystemBook& ecosystem);

}  // namespace memwall::plan
