// Model quality as a constraint on the planner (docs/plan.md "Model quality"): before the search,
// the weight and KV precisions whose published recovery for the model does not meet the policy are
// taken out of the space; at report time each plan carries the recovery of its formats.
#pragma once

#include <string>
#include <vector>

#include "memwall/core/precision.h"
#include "memwall/model/transformer.h"
#include "memwall/plan/replica_model.h"
#include "memwall/quality/policy.h"
#include "memwall/quality/table.h"

namespace memwall::plan {

// Removes from `weights` and `kv` the precisions `policy` does not admit for `model`; returns one
// line per precision removed, with its recovery and source or "no published evaluation".
// InfeasibleError (exit 3) naming each removal when a list ends up empty.
std::vector<std::string> apply_quality_policy(const ModelSpec& model,
                                              const quality::QualityPolicy& policy,
                                              const quality::QualityTable& table,
                                              std::vector<Precision>& weights,
                                              std::vector<Precision>& kv);

// Training: removes the fp8 recipes (and fp8 itself when none is left) whose published training
// quality for `model` does not meet `policy`; returns a line per removal. InfeasibleError when no
// precision asked for is left.
std::vector<std::string> apply_training_quality(const ModelSpec& model,
                                                const quality::QualityPolicy& policy,
                                                const quality::QualityTable& table,
                                                std::vector<Precision>& precisions,
                                                std::vector<Fp8Recipe>& fp8_recipes);

// The published recovery of a plan's weights and KV together (quality::combine).
quality::QualityVerdict plan_quality(const ModelSpec& model, const ReplicaShape& shape,
                                     const quality::QualityTable& table);

}  // namespace memwall::plan
