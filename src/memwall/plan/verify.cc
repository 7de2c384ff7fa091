#include "memwall/plan/verify.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "memwall/core/error.h"

namespace memwall::plan {

Verification verify_plan(const ModelSpec& model, const Plan& plan, const InferenceWorkload& w,
                         const serve::Dataset& lengths, const ReplicaModelFactory& factory,
                         int64_t requests, const CancelFlag* cancel) {
  const ReplicaModel rm = factory(model, plan.shape);
  if (!rm.infeasible.empty()) throw InfeasibleError(rm.infeasible);
  ReplicaModel prefill;
  if (plan.prefill) {
    prefill = factory(model, plan.prefill->shape);
    if (!prefill.infeasible.empty()) throw InfeasibleError(prefill.infeasible);
  }
  serve::SimulationConfig c;
  c.cancel = cancel;
  c.workload.lengths = lengths;
  c.workload.requests = requests;
  c.workload.seed = 1;
  if (w.load.concurrency) {
    c.workload.arrival.kind = serve::ArrivalKind::closed_loop;
    c.workload.arrival.concurrency = static_cast<int>(std::ceil(*w.load.concurrency));
    // Users join over one mean request latency, so the run starts near its steady state.
    c.workload.arrival.ramp_s = plan.point.e2e_mean.value();
  } else {
    c.workload.arrival.kind = serve::ArrivalKind::poisson;
    c.workload.arrival.rate_per_s = *w.load.rate_per_s;
  }
  c.replicas = plan.replicas;
  // The planner sizes the replicas as one pool of batch slots (the load spread evenly, the open
  // loop's in-flight count at its p99 over all of them), which a router that sends each request to
  // the replica with the fewest outstanding requests serves; round robin lets one replica queue
  // while another has free slots.
  c.router = serve::RouterPolicy::least_outstanding;
  if (plan.prefill) {
    // Disaggregated: prefill-only and decode-only replicas, the KV moved over the pool link.
    c.disaggregation.enabled = true;
    c.disaggregation.prefill_replicas = plan.prefill->replicas;
    c.disaggregation.decode_replicas = plan.replicas;
    c.disaggregation.link_bandwidth = plan.prefill->link;
    c.disaggregation.link_latency = plan.prefill->link_latency;
    c.disaggregation.prefill_token_budget = 1;  // one prompt per iteration, as the analytic pool model
    // The whole replica's KV per token crosses the pool link (kv_transfer_time in disaggregated.h).
    c.replica.kv_bytes_per_token =
        derive_requirements(model, w, plan.shape.weights, plan.shape.kv).kv_bytes_per_token;
  }
  c.replica.scheduler.policy = serve::SchedulerPolicy::continuous;
  c.replica.scheduler.max_batch = std::max(1, plan.batch_cap);
  c.replica.kv.policy = serve::KvPolicy::paged;
  const double context = w.mean_context();
  c.replica.kv.capacity_tokens =
      rm.kv_capacity_tokens > 0
          ? rm.kv_capacity_tokens
          : static_cast<int64_t>(std::ceil(rm.max_batch(context) * context));
  c.replica.kv.max_sequence_tokens =
      model.max_context > 0 ? model.max_context : int64_t{1} << 20;
  std::string sla = fmt::format("ttft_p99={}s,tpot_p99={}s", w.sla.ttft_p99.value(), w.sla.tpot_p99.value());
  if (w.sla.e2e_p99) sla += fmt::format(",e2e_p99={}s", w.sla.e2e_p99->value());
  c.sla = serve::parse_sla(sla);
  Verification v;
  v.simulated = serve::simulate(c, rm.step, plan.prefill ? prefill.step : serve::StepCost{});
  v.meets_sla = v.simulated.sla_met && v.simulated.completed > 0;
  return v;
}

}  // namespace memwall::plan
