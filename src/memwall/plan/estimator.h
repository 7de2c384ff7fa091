// The inference estimator (infer/) behind the planner's ReplicaModel interface: each candidate
// shape becomes an infer::Deployment, and the planner asks it for the largest batch that fits
// (infer memory plan) and for iteration times (infer::step_cost).
#pragma once

#include <memory>
#include <optional>

#include "memwall/hw/fabric.h"
#include "memwall/infer/deployment.h"
#include "memwall/plan/replica_model.h"

namespace memwall::plan {

// The deployment options of one candidate shape: its parallel sizes, precisions and the engine
// its plan names (the generic default profile when none is known).
infer::DeploymentOptions deployment_options(const ReplicaShape& s);

// `fabric` joins nodes when a replica spans more than one (pipeline stages across nodes);
// `efficiency`: the parameters to time with (a calibration profile); null: the built-in ones.
ReplicaModelFactory estimator_factory(std::optional<Fabric> fabric,
                                      std::shared_ptr<const perf::Efficiency> efficiency = nullptr);

}  // namespace memwall::plan
