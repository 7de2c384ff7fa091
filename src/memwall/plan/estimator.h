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

// MFU and MBU of one iteration (PRODUCT.md definitions): model FLOP/s per device / the matmul
// peak, bytes moved per second per device / the datasheet bandwidth (nullopt when unknown). A
// pipelined engine keeps pp such batches in flight, so each device does its stage's share pp times
// per step. Not clamped: a figure above 1 is a defect of the estimator (plan_property_test.cc).
struct StepUtilisation {
  double mfu = 0;
  std::optional<double> mbu;
};
StepUtilisation step_utilisation(const infer::Deployment& d, const infer::StepBatch& b);

// `fabric` joins nodes when a replica spans more than one (pipeline stages across nodes);
// `efficiency`: the parameters to time with (a calibration profile); null: the built-in ones.
// The factory remembers the collective tables of the shapes it has built (infer::CommTableCache):
// use one factory for the shapes of one catalog (a query's), from one thread at a time.
ReplicaModelFactory estimator_factory(std::optional<Fabric> fabric,
                                      std::shared_ptr<const perf::Efficiency> efficiency = nullptr);

}  // namespace memwall::plan
