#include "memwall/plan/estimator.h"

#include <algorithm>
#include <cmath>
#include <memory>

#include "memwall/infer/deployment.h"
#include "memwall/infer/memory_plan.h"
#include "memwall/infer/step.h"

namespace memwall::plan {

infer::DeploymentOptions deployment_options(const ReplicaShape& s) {
  infer::DeploymentOptions o;
  o.tp = s.tp;
  o.pp = s.pp;
  o.ep = s.ep;
  o.weight_precision = s.weights;
  o.kv_precision = s.kv;
  // Timed with the engine the plan names (its kernel and host overheads, streaming and compute
  // shares, limits), not a generic one.
  if (!s.engine.empty()) o.engine = s.engine;
  return o;
}

StepUtilisation step_utilisation(const infer::Deployment& d, const infer::StepBatch& b) {
  const infer::StepCost c = infer::step_cost(d, b);
  StepUtilisation u;
  if (c.total.value() <= 0) return {0.0, 0.0};
  const double per_step = double(d.pp) / c.total.value();
  u.mfu = c.flops.value() * per_step / d.ceilings.matmul_peak.value();
  if (d.gpu.memory_bandwidth)
    u.mbu = c.bytes_moved.value() * per_step / d.gpu.memory_bandwidth->value();
  return u;
}

ReplicaModelFactory estimator_factory(std::optional<Fabric> fabric,
                                      std::shared_ptr<const perf::Efficiency> efficiency) {
  // The collective tables of the shapes asked so far: the shapes of a search share a few hundred
  // (node, group) combinations (one per accelerator, node and TP x PP, whatever the precisions).
  auto comm_tables = std::make_shared<infer::CommTableCache>();
  return [fabric, efficiency, comm_tables](const ModelSpec& model, const ReplicaShape& s) {
    const infer::DeploymentOptions o = deployment_options(s);
    const std::optional<Node> node = s.node ? std::optional<Node>(*s.node) : std::nullopt;
    auto d = std::make_shared<const infer::Deployment>(
        infer::make_deployment(model, *s.accelerator, node, fabric, o, efficiency, comm_tables.get()));
    ReplicaModel m;
    m.kv_capacity_tokens = infer::plan_engine_memory(*d).kv_capacity_tokens;
    m.max_batch = [d](double context_tokens) {
      const auto ctx = static_cast<int64_t>(std::ceil(context_tokens));
      return static_cast<int>(std::min<int64_t>(infer::max_batch(*d, ctx, ctx), 1 << 20));
    };
    m.max_num_seqs = d->max_num_seqs();
    m.step = [d](const infer::StepBatch& b) { return infer::step_time(*d, b); };
    m.communication_share = [d](const infer::StepBatch& b) {
      const infer::StepCost c = infer::step_cost(*d, b);
      return c.total.value() > 0 ? c.communication / c.total : 0.0;
    };
    m.breakdown = [d](const infer::StepBatch& b) {
      const infer::StepCost c = infer::step_cost(*d, b);
      return StepShares{c.memory_bound, c.compute_bound, c.communication, c.overhead, c.bytes_moved};
    };
    // Device activity for the power model: the larger of MBU and MFU of the iteration (a device
    // whose bandwidth is unknown is taken as fully active).
    m.activity = [d](const infer::StepBatch& b) {
      const StepUtilisation u = step_utilisation(*d, b);
      return std::clamp(std::max(u.mbu.value_or(1.0), u.mfu), 0.0, 1.0);
    };
    return m;
  };
}

}  // namespace memwall::plan
