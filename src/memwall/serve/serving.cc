#include "memwall/serve/serving.h"

#include <fmt/format.h>

#include <cmath>

#include "memwall/core/error.h"
#include "memwall/infer/memory_plan.h"
#include "memwall/infer/step.h"

namespace memwall::serve {

ServingRun simulate_serving(const Catalog& catalog, const ServingOptions& o) {
  const infer::Deployment d = infer::make_deployment(catalog, o.deployment);
  ServingRun run;
  run.model = d.model.id;
  run.gpu = d.gpu.id;
  run.tp = d.tp;
  run.pp = d.pp;
  run.assumptions = d.assumptions;

  const infer::MemoryPlan plan = infer::plan_memory(d, 0, 0, 0);
  run.kv_bytes_per_token_per_device = plan.kv_bytes_per_token;
  run.kv_capacity_tokens = plan.kv_capacity_tokens;
  if (o.kv_capacity_tokens) {
    if (*o.kv_capacity_tokens < 1 || *o.kv_capacity_tokens > int64_t{1} << 40)
      throw InputError("--kv-capacity-tokens", std::to_string(*o.kv_capacity_tokens),
                       "tokens in [1, 2^40]");
    run.kv_capacity_tokens = *o.kv_capacity_tokens;
    run.assumptions.push_back(
        fmt::format("KV capacity set to {} tokens per replica (the memory plan gives {})",
                    run.kv_capacity_tokens, plan.kv_capacity_tokens));
  }

  SimulationConfig c;
  c.workload = o.workload;
  c.replicas = o.replicas;
  c.router = o.router;
  c.sla = o.sla;
  const int64_t context = o.max_len                 ? *o.max_len
                          : d.model.max_context > 0 ? d.model.max_context
                                                    : int64_t{2048};
  if (!o.max_len && d.model.max_context <= 0)
    run.assumptions.push_back("model context unknown: 2048 tokens assumed (--max-len to change)");
  c.replica.kv = KvConfig{o.kv, run.kv_capacity_tokens, o.block_tokens, context, o.watermark};
  c.replica.scheduler = o.scheduler;
  if (o.engine_limits) {
    auto& s = c.replica.scheduler;
    s.max_batch = d.max_num_seqs();
    s.token_budget = d.max_num_batched_tokens();
    if (s.policy == SchedulerPolicy::continuous || s.policy == SchedulerPolicy::chunked)
      s.policy = d.engine_profile->limits.chunked_prefill ? SchedulerPolicy::chunked
                                                          : SchedulerPolicy::continuous;
    run.assumptions.push_back(fmt::format(
        "engine limits of {}: {} sequences, {} tokens per iteration, {}", d.engine_profile->display,
        s.max_batch, s.token_budget,
        s.policy == SchedulerPolicy::chunked ? "chunked prefill" : "whole prompts"));
  }
  c.replica.kv_bytes_per_token = plan.kv_bytes_per_token;
  if (o.scheduler.preemption == Preemption::swap) {
    if (!(o.swap_space_gib > 0) || !std::isfinite(o.swap_space_gib) || o.swap_space_gib > 1e6)
      throw InputError("--swap-space", fmt::format("{}", o.swap_space_gib), "GiB in (0, 1e6]");
    c.replica.scheduler.swap_capacity_tokens =
        static_cast<int64_t>(std::floor(o.swap_space_gib * kGiB / plan.kv_bytes_per_token.value()));
    if (o.swap_bandwidth) {
      c.replica.swap_bandwidth = *o.swap_bandwidth;
    } else if (d.gpu.host_bandwidth_per_direction) {
      c.replica.swap_bandwidth = *d.gpu.host_bandwidth_per_direction;
      run.assumptions.push_back(
          fmt::format("swap over the host link at its peak {:.0f} GB/s per direction ({})",
                      c.replica.swap_bandwidth.value() / 1e9, d.gpu.host_link));
    } else {
      throw InputError("--swap-bandwidth", "unknown",
                       fmt::format("a host-link bandwidth: {} has none in the catalog", d.gpu.id));
    }
  }
  if (o.disaggregated) {
    c.disaggregation.enabled = true;
    c.disaggregation.prefill_replicas = o.prefill_replicas;
    c.disaggregation.decode_replicas = o.decode_replicas;
    c.disaggregation.link_latency = o.link_latency;
    if (o.link_bandwidth) {
      c.disaggregation.link_bandwidth = *o.link_bandwidth;
    } else {
      // Each device sends its own KV shard over its own NIC (RDMA), as in DistServe/Mooncake.
      c.disaggregation.link_bandwidth = d.node.nic_bandwidth_per_direction;
      run.assumptions.push_back(
          fmt::format("KV moves between the pools over one NIC per device at {:.1f} GB/s ({})",
                      c.disaggregation.link_bandwidth.value() / 1e9, d.node.id));
    }
    if (!(c.disaggregation.link_bandwidth.value() > 0))
      throw InputError("--link-bandwidth", "unknown", "a KV transfer bandwidth in GB/s > 0");
  }
  const StepCost cost = [&d](const infer::StepBatch& b) { return infer::step_time(d, b); };
  run.result = simulate(c, cost);
  return run;
}

Json to_json(const ServingRun& run) {
  Json j = to_json(run.result);
  j["deployment"] =
      Json{{"model", run.model},
           {"gpu", run.gpu},
           {"tp", run.tp},
           {"pp", run.pp},
           {"kv_capacity_tokens_per_replica", run.kv_capacity_tokens},
           {"kv_bytes_per_token_per_device", run.kv_bytes_per_token_per_device.value()}};
  j["assumptions"] = run.assumptions;
  return j;
}

}  // namespace memwall::serve
